package io.awareactive.core.internal;

import io.r2dbc.spi.R2dbcException;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Classifies database failures by SQLSTATE, never by exception class: r2dbc-postgresql raises lock timeouts
 * (55P03), statement timeouts (57014) and connection failures (class 08) all as non-transient resource exceptions.
 */
public final class SqlStates {

    /** {@code lock_not_available}: a {@code lock_timeout} expiry or a failed {@code NOWAIT}. */
    public static final String LOCK_NOT_AVAILABLE = "55P03";
    /** {@code query_canceled}: {@code statement_timeout} fired (or a cancel request). */
    public static final String QUERY_CANCELED = "57014";
    /** {@code deadlock_detected}. */
    public static final String DEADLOCK_DETECTED = "40P01";
    /** {@code unique_violation}. */
    public static final String UNIQUE_VIOLATION = "23505";

    private SqlStates() {
    }

    /**
     * The SQLSTATE of the first {@link R2dbcException} in the cause chain (suppressed exceptions are not searched).
     *
     * @param error the failure
     * @return the SQLSTATE, or {@code null} when there is no R2DBC exception with one
     */
    public static @Nullable String sqlState(@Nullable Throwable error) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof R2dbcException r2dbc) {
                String state = r2dbc.getSqlState();
                if (state != null && !state.isEmpty()) {
                    return state;
                }
            }
        }
        return null;
    }

    /**
     * Whether the failure is SQLSTATE 55P03 ({@code lock_timeout} or {@code NOWAIT}).
     *
     * @param error the failure
     * @return true for 55P03
     */
    public static boolean isLockNotAvailable(@Nullable Throwable error) {
        return LOCK_NOT_AVAILABLE.equals(sqlState(error));
    }
}
