package io.awareactive.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The blocking calls {@link BlockingCallGuard} detected, kept apart from it so that checking them
 * ({@link BlockingCallGuardExtension}) loads no BlockHound class: a module without BlockHound on its test class path
 * simply has nothing recorded. Thread-safe.
 */
final class BlockingCallRecord {

    private static final List<String> VIOLATIONS = new CopyOnWriteArrayList<>();

    private BlockingCallRecord() {
    }

    static void add(String violation) {
        VIOLATIONS.add(violation);
    }

    static List<String> snapshot() {
        return List.copyOf(VIOLATIONS);
    }

    static void clear() {
        VIOLATIONS.clear();
    }

    /**
     * Throws when any blocking call was recorded since the last check, and forgets those calls.
     *
     * @param when what just ended, for the message
     * @throws AssertionError listing the recorded calls
     */
    static void checkAndClear(String when) {
        List<String> found = snapshot();
        if (!found.isEmpty()) {
            VIOLATIONS.removeAll(found);
            throw new AssertionError("blocking calls on non-blocking threads during " + when + ": " + found);
        }
    }
}
