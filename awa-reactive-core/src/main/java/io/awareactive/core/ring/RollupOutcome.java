package io.awareactive.core.ring;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The result of one rollup slot transaction ({@link RingOperations#rollup(int, java.time.Duration, long)}): folding
 * a sealed queue slot's terminal count deltas into live counts.
 */
public sealed interface RollupOutcome {

    /**
     * The metric label ({@code awa.ring.outcome} of {@code awa.maintenance.rollup.attempts}).
     *
     * @return one of {@code rolled}, {@code empty}, {@code blocked}, {@code skipped_mvcc_pinned}, {@code error}
     */
    String label();

    /**
     * The slot's deltas were folded into live counts and its delta child truncated.
     *
     * @param slot the slot
     * @param generation the slot's generation
     * @param deltaRows how many delta rows were folded
     */
    record Rolled(int slot, long generation, long deltaRows) implements RollupOutcome {
        @Override
        public String label() {
            return "rolled";
        }
    }

    /**
     * Nothing to fold: the slot had no deltas, became current, or changed generation.
     *
     * @param slot the slot
     */
    record Empty(int slot) implements RollupOutcome {
        @Override
        public String label() {
            return "empty";
        }
    }

    /**
     * A lock could not be had within the lock timeout, or the serializer is held elsewhere; rolled back.
     *
     * @param slot the slot
     * @param cause which wait failed
     */
    record Blocked(int slot, BlockedCause cause) implements RollupOutcome {
        @Override
        public String label() {
            return "blocked";
        }
    }

    /**
     * An old snapshot pins the MVCC horizon; folding now would write unvacuumable versions. Ends this tick's rollup.
     *
     * @param slot the slot
     */
    record SkippedMvccPinned(int slot) implements RollupOutcome {
        @Override
        public String label() {
            return "skipped_mvcc_pinned";
        }
    }

    /**
     * Any other failure; rolled back.
     *
     * @param slot the slot
     * @param sqlState the SQLSTATE of the first R2DBC exception in the cause chain, or {@code null}
     * @param error the failure
     */
    record Failed(int slot, @Nullable String sqlState, Throwable error) implements RollupOutcome {
        /**
         * Creates the outcome.
         *
         * @param slot the slot
         * @param sqlState the SQLSTATE, or {@code null}
         * @param error the failure; must not be null
         */
        public Failed {
            Objects.requireNonNull(error, "error");
        }

        @Override
        public String label() {
            return "error";
        }
    }
}
