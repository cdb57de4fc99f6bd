package io.awareactive.core.internal;

import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RollupOutcome;
import org.jspecify.annotations.Nullable;

/**
 * Maps the failure of a prune or rollup transaction to its outcome, by SQLSTATE only (the first R2DBC exception in
 * the cause chain), and words the ERROR line of a failed attempt. Called outside the transaction scope, after the
 * rollback released every lock the attempt took.
 */
public final class MaintenanceFailures {

    private MaintenanceFailures() {
    }

    /**
     * The outcome of a prune that ended with {@code error}: SQLSTATE 55P03 ({@code lock_timeout} expiry or a failed
     * {@code NOWAIT}) with a known target is {@link PruneOutcome.Blocked} with the cause of the step that was running;
     * anything else (57014, 40P01, class 08, a pool timeout, a non-R2DBC exception, 55P03 before the target was
     * known) is {@link PruneOutcome.Failed}.
     *
     * @param error the failure
     * @param slot the target slot, when known
     * @param runningStep {@link BlockedCause#NOWAIT} while a {@code NOWAIT} statement ran, else
     *     {@link BlockedCause#LOCK_TIMEOUT}
     * @return the outcome
     */
    public static PruneOutcome pruneOutcome(Throwable error, @Nullable Integer slot, BlockedCause runningStep) {
        String sqlState = SqlStates.sqlState(error);
        if (slot != null && SqlStates.LOCK_NOT_AVAILABLE.equals(sqlState)) {
            return new PruneOutcome.Blocked(slot, runningStep);
        }
        return new PruneOutcome.Failed(slot, sqlState, error);
    }

    /**
     * The outcome of a rollup slot transaction that ended with {@code error}: 55P03 is
     * {@link RollupOutcome.Blocked} ({@link BlockedCause#LOCK_TIMEOUT}: every rollup wait is timed), anything else
     * {@link RollupOutcome.Failed}.
     *
     * @param error the failure
     * @param slot the slot
     * @return the outcome
     */
    public static RollupOutcome rollupOutcome(Throwable error, int slot) {
        String sqlState = SqlStates.sqlState(error);
        if (SqlStates.LOCK_NOT_AVAILABLE.equals(sqlState)) {
            return new RollupOutcome.Blocked(slot, BlockedCause.LOCK_TIMEOUT);
        }
        return new RollupOutcome.Failed(slot, sqlState, error);
    }

    /**
     * The ERROR line of a failed prune or rollup. 57014 points at {@code statement_timeout}, 40P01 at
     * {@code deadlock_timeout}; others give the SQLSTATE and the message.
     *
     * @param operation {@code prune} or {@code rollup}
     * @param ring the ring label
     * @param slot the slot, when known
     * @param sqlState the SQLSTATE, or {@code null}
     * @param error the failure
     * @param lockTimeoutMillis the effective prune lock timeout
     * @return the message
     */
    public static String message(String operation, String ring, @Nullable Integer slot, @Nullable String sqlState,
            Throwable error, long lockTimeoutMillis) {
        String what = operation + " of the " + ring + " ring, " + (slot == null ? "before its target slot was known"
                : "slot " + slot) + ",";
        if (SqlStates.QUERY_CANCELED.equals(sqlState)) {
            // The statement may have been a lock wait, a live-work gate or the truncate: say what is known.
            return what + " was cancelled (SQLSTATE 57014) by statement_timeout or a cancel request; raise"
                    + " statement_timeout for the maintenance role well above the prune lock timeout ("
                    + lockTimeoutMillis + " ms) and the time a prune's statements take, or set it to 0";
        }
        if (SqlStates.DEADLOCK_DETECTED.equals(sqlState)) {
            return what + " was cancelled as a deadlock victim (SQLSTATE 40P01): the prune lock timeout ("
                    + lockTimeoutMillis + " ms) is not well below deadlock_timeout, so the deadlock detector ran"
                    + " before the prune gave up; lower the prune lock timeout or raise deadlock_timeout";
        }
        return what + " failed (SQLSTATE " + (sqlState == null ? "none" : sqlState) + "): " + error;
    }
}
