package io.awareactive.core.ring;

import io.awareactive.core.Ring;
import java.util.Set;

/**
 * The result of one rotation attempt ({@link RingOperations#rotate(Ring)}): exactly one of {@link Rotated},
 * {@link SkippedBusy} or {@link SkippedIdle}.
 */
public sealed interface RotateOutcome {

    /**
     * The metric label of this outcome ({@code awa.ring.outcome}).
     *
     * @return {@code rotated}, {@code skipped_busy} or {@code skipped_idle}
     */
    String label();

    /**
     * The ledger advanced: {@code slot} is now current at {@code generation}.
     *
     * @param slot the new current slot
     * @param generation the new generation
     */
    record Rotated(int slot, long generation) implements RotateOutcome {
        @Override
        public String label() {
            return "rotated";
        }
    }

    /**
     * The next slot cannot be reused yet; nothing was written.
     *
     * @param slot the next slot that was examined
     * @param blockers why, one entry per non-empty family (or the writer, serializer or compare-and-swap blocker)
     */
    record SkippedBusy(int slot, Set<RotationBlocker> blockers) implements RotateOutcome {
        /**
         * Creates the outcome with an immutable copy of the blockers.
         *
         * @param slot the next slot that was examined
         * @param blockers why the slot is busy; must not be empty
         */
        public SkippedBusy {
            blockers = Set.copyOf(blockers);
            if (blockers.isEmpty()) {
                throw new IllegalArgumentException("blockers must not be empty");
            }
        }

        @Override
        public String label() {
            return "skipped_busy";
        }
    }

    /**
     * Every family of the ring is empty, so rotating would only churn the ledger; nothing was written.
     *
     * @param slot the current slot, unchanged
     * @param generation the current generation, unchanged
     */
    record SkippedIdle(int slot, long generation) implements RotateOutcome {
        @Override
        public String label() {
            return "skipped_idle";
        }
    }
}
