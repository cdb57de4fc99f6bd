package io.awareactive.testkit;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Unique lower-case PostgreSQL identifiers for schemas, databases and roles. */
final class Names {

    /** Longest name handed out; well under PostgreSQL's 63-byte identifier limit. */
    static final int MAX_LENGTH = 40;

    private static final int SUFFIX_LENGTH = 6;
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<String> ISSUED = ConcurrentHashMap.newKeySet();

    private Names() {
    }

    /** Reduces a label (for example a class simple name) to {@code [a-z0-9_]}, never empty. */
    static String base(String label) {
        String cleaned = label.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "");
        return cleaned.isEmpty() ? "test" : cleaned;
    }

    /**
     * Returns {@code prefix + "_" + base + "_" + random}, truncating the base so that the name has at most
     * {@value #MAX_LENGTH} characters; never the same name twice in a JVM.
     */
    static String unique(String prefix, String base) {
        int room = MAX_LENGTH - prefix.length() - 2 - SUFFIX_LENGTH;
        String head = prefix + '_' + (base.length() > room ? base.substring(0, room) : base) + '_';
        while (true) {
            String name = head + randomSuffix();
            if (ISSUED.add(name)) {
                return name;
            }
        }
    }

    static String randomSuffix() {
        return random(SUFFIX_LENGTH);
    }

    static String random(int length) {
        StringBuilder suffix = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            suffix.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return suffix.toString();
    }

    /** Quotes an identifier for SQL ({@code "name"}, doubling embedded quotes). */
    static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
