package io.awareactive.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * A strict JSON syntax check (RFC 8259, as PostgreSQL's {@code jsonb} input accepts it, which also rejects the
 * {@code \u0000} escape), so bad job arguments are rejected at call time instead of failing the enqueue statement.
 * Nothing is built; the text is only scanned.
 */
public final class JsonSyntax {

    private final String text;
    private int pos;

    private JsonSyntax(String text) {
        this.text = text;
    }

    /**
     * Checks that {@code text} is one JSON value, optionally surrounded by whitespace.
     *
     * @param text the text
     * @return null when valid, else a short description of the first error with its offset
     */
    public static @Nullable String firstError(String text) {
        JsonSyntax parser = new JsonSyntax(text);
        try {
            parser.whitespace();
            parser.value(0);
            parser.whitespace();
            if (parser.pos != text.length()) {
                throw parser.error("unexpected text after the value");
            }
            return null;
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }

    private IllegalStateException error(String what) {
        return new IllegalStateException(what + " at offset " + pos);
    }

    private void whitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw error("unexpected end of input");
        }
        return text.charAt(pos);
    }

    private void value(int depth) {
        if (depth > 1000) {
            throw error("nesting deeper than 1000");
        }
        char c = peek();
        switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    number();
                } else {
                    throw error("unexpected character '" + c + "'");
                }
            }
        }
    }

    private void object(int depth) {
        pos++;
        whitespace();
        if (peek() == '}') {
            pos++;
            return;
        }
        while (true) {
            whitespace();
            if (peek() != '"') {
                throw error("expected a member name");
            }
            string();
            whitespace();
            expect(':');
            whitespace();
            value(depth + 1);
            whitespace();
            if (peek() == ',') {
                pos++;
                continue;
            }
            expect('}');
            return;
        }
    }

    private void array(int depth) {
        pos++;
        whitespace();
        if (peek() == ']') {
            pos++;
            return;
        }
        while (true) {
            whitespace();
            value(depth + 1);
            whitespace();
            if (peek() == ',') {
                pos++;
                continue;
            }
            expect(']');
            return;
        }
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private void literal(String word) {
        if (!text.startsWith(word, pos)) {
            throw error("unexpected literal");
        }
        pos += word.length();
    }

    private void string() {
        pos++;
        while (true) {
            char c = peek();
            pos++;
            if (c == '"') {
                return;
            }
            if (c < 0x20) {
                throw error("unescaped control character in a string");
            }
            if (c == '\\') {
                char e = peek();
                pos++;
                if (e == 'u') {
                    if (pos + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    String hex = text.substring(pos, pos + 4);
                    if (!hex.matches("[0-9a-fA-F]{4}")) {
                        throw error("bad \\u escape");
                    }
                    if (Integer.parseInt(hex, 16) == 0) {
                        throw error("\\u0000 is not accepted by PostgreSQL jsonb");
                    }
                    pos += 4;
                } else if ("\"\\/bfnrt".indexOf(e) < 0) {
                    throw error("bad escape");
                }
            }
        }
    }

    private void number() {
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else {
            digits();
        }
        if (pos < text.length() && text.charAt(pos) == '.') {
            pos++;
            digits();
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            digits();
        }
    }

    private void digits() {
        int start = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos)) && text.charAt(pos) <= '9') {
            pos++;
        }
        if (pos == start) {
            throw error("expected a digit");
        }
    }
}
