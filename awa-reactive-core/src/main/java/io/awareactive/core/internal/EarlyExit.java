package io.awareactive.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * A stackless signal that ends a transaction body with a known outcome through the ROLLBACK path of
 * {@link Db#inTransaction(io.r2dbc.spi.ConnectionFactory, java.util.function.Function)}; the caller maps it back to
 * its outcome outside the transaction scope. Used for a {@code false} try-lock and for SQLSTATE 55P03, so one path
 * (rollback, which releases every lock taken) ends every abandoned attempt.
 */
public final class EarlyExit extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Object outcome;

    /**
     * Creates the signal.
     *
     * @param outcome the outcome to report
     * @param cause the database error that triggered it, if any
     */
    public EarlyExit(Object outcome, @Nullable Throwable cause) {
        super(null, cause, false, false);
        this.outcome = outcome;
    }

    /**
     * The outcome to report.
     *
     * @param type the expected outcome type
     * @param <T> the type
     * @return the outcome
     */
    public <T> T outcome(Class<T> type) {
        return type.cast(outcome);
    }
}
