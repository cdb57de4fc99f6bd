package io.awareactive.core;

import org.jspecify.annotations.Nullable;

/**
 * The one exception type awa-reactive raises for its own failures (an incompatible schema, a refused
 * installation, a lost lease). Invalid arguments raise {@link IllegalArgumentException} instead; database errors
 * are passed through as the driver's {@code R2dbcException} unless an operation documents otherwise.
 */
public class AwaReactiveException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong and what to do
     */
    public AwaReactiveException(String message) {
        super(message);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param message what went wrong and what to do
     * @param cause the underlying failure
     */
    public AwaReactiveException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
