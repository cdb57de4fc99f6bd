package io.awareactive.maintenance;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One prune outcome of a ring tick, as published by {@link RingMaintenance#outcomes()}.
 *
 * @param ring the ring
 * @param outcome what happened (slot, generation, durations, blocked cause, skip reason or error are in the record)
 * @param at when the outcome was decided, from the engine's clock
 * @param blockers the sessions holding conflicting locks, filled only for a {@link PruneOutcome.Blocked} outcome when
 *     blocker diagnostics are on; otherwise empty
 */
public record PruneEvent(Ring ring, PruneOutcome outcome, Instant at, List<LockHolder> blockers) {

    /**
     * Creates the event with an immutable copy of the blockers.
     *
     * @param ring the ring
     * @param outcome the outcome
     * @param at the time
     * @param blockers the lock holders, possibly empty
     */
    public PruneEvent {
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(at, "at");
        blockers = List.copyOf(blockers);
    }
}
