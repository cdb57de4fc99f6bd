package io.awareactive.benchmarks;

/** The JSON args of every benchmark job: the same text, byte for byte, in both systems. */
final class Payload {

    private Payload() {
    }

    /**
     * A JSON object of exactly {@code bytes} bytes (at least the 10 of its frame): {@code {"pad":"xxx..."}}.
     *
     * @param bytes the size
     * @return the JSON text
     */
    static String json(int bytes) {
        String frame = "{\"pad\":\"\"}";
        int pad = Math.max(0, bytes - frame.length());
        return "{\"pad\":\"" + "x".repeat(pad) + "\"}";
    }
}
