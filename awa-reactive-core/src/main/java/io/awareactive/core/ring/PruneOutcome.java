package io.awareactive.core.ring;

import io.awareactive.core.Ring;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The result of one prune attempt, or of a ring tick the maintenance engine decided not to prune: an exhaustive,
 * immutable type. Each outcome has a stable metric {@link #label()} and a {@link #reasonLabel()} that is
 * {@code none} except for {@link SkippedActive}.
 *
 * <p>{@link RingOperations#prune(Ring)} produces {@link Pruned}, {@link Noop}, {@link Blocked}, {@link SkippedActive}
 * and {@link Failed}; the maintenance engine adds {@link AlreadyPruned} and {@link BackedOff}.
 */
public sealed interface PruneOutcome {

    /** The {@code awa.ring.reason} tag value of every outcome but {@link SkippedActive}. */
    String NO_REASON = "none";

    /**
     * The metric label ({@code awa.ring.outcome}).
     *
     * @return one of {@code pruned}, {@code noop}, {@code blocked}, {@code skipped_active}, {@code already_pruned},
     *     {@code backed_off}, {@code error}
     */
    String label();

    /**
     * The metric reason label ({@code awa.ring.reason}).
     *
     * @return the skip reason's label for {@link SkippedActive}, otherwise {@value #NO_REASON}
     */
    default String reasonLabel() {
        return NO_REASON;
    }

    /**
     * The slot truncated and committed.
     *
     * @param slot the pruned slot
     * @param generation the generation the slot was opened at
     * @param durations phase timings
     */
    record Pruned(int slot, long generation, PruneDurations durations) implements PruneOutcome {
        @Override
        public String label() {
            return "pruned";
        }
    }

    /** There was nothing to prune: no sealed slot yet (a fresh ring), or the slot row is missing (logged). */
    record Noop() implements PruneOutcome {
        @Override
        public String label() {
            return "noop";
        }
    }

    /**
     * A lock could not be had within the lock timeout, a {@code NOWAIT} lock failed, or the ring's serializer is held
     * elsewhere. The transaction rolled back, releasing every lock it had taken; the next tick retries.
     *
     * @param slot the target slot
     * @param cause which wait failed
     */
    record Blocked(int slot, BlockedCause cause) implements PruneOutcome {
        @Override
        public String label() {
            return "blocked";
        }
    }

    /**
     * The slot still holds live work (found before or after taking the locks); nothing was truncated.
     *
     * @param slot the target slot
     * @param reason which gate found live work
     */
    record SkippedActive(int slot, SkipReason reason) implements PruneOutcome {
        @Override
        public String label() {
            return "skipped_active";
        }

        @Override
        public String reasonLabel() {
            return reason.label();
        }
    }

    /**
     * The ring is idle and its prune target is the slot this engine already pruned; no transaction ran.
     *
     * @param slot the target slot
     * @param generation the target generation
     */
    record AlreadyPruned(int slot, long generation) implements PruneOutcome {
        @Override
        public String label() {
            return "already_pruned";
        }
    }

    /**
     * The engine skipped this tick's prune because earlier ticks found live work ({@link SkippedActive}).
     *
     * @param ring the ring
     * @param ticksRemaining ticks still to skip after this one
     */
    record BackedOff(Ring ring, int ticksRemaining) implements PruneOutcome {
        @Override
        public String label() {
            return "backed_off";
        }
    }

    /**
     * Any other failure (SQLSTATE other than 55P03, connection loss, pool timeout, a bug). The transaction rolled
     * back; nothing was truncated. Never escapes as an error signal.
     *
     * @param slot the target slot when it was known
     * @param sqlState the SQLSTATE of the first R2DBC exception in the cause chain, or {@code null}
     * @param error the failure
     */
    record Failed(@Nullable Integer slot, @Nullable String sqlState, Throwable error) implements PruneOutcome {
        /**
         * Creates the outcome.
         *
         * @param slot the target slot when it was known
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
