package io.awareactive.examples.demo;

/** A failure the demo reports as one line (no stack trace) before exiting non-zero. */
final class DemoException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    DemoException(String message) {
        super(message, null, false, false);
    }
}
