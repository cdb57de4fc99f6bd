package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;
import org.jspecify.annotations.Nullable;

/** The engine's periodic tasks: each has its own {@code Flux.interval} feeding the one serial loop. */
public enum Task {
    /** The queue ring's tick. */
    RING_QUEUE("ring_queue", Ring.QUEUE),
    /** The lease ring's tick. */
    RING_LEASE("ring_lease", Ring.LEASE),
    /** The claim ring's tick. */
    RING_CLAIM("ring_claim", Ring.CLAIM),
    /** Terminal-count rollup, fold and ledger trim. */
    ROLLUP("rollup", null),
    /** Deferred-job promotion. */
    PROMOTE("promote", null),
    /** Rescue of stale attempts. */
    RESCUE("rescue", null),
    /** Deletion of dead-letter rows past their retention. */
    DLQ_PURGE("dlq_purge", null);

    private final String label;
    private final @Nullable Ring ring;

    Task(String label, @Nullable Ring ring) {
        this.label = label;
        this.ring = ring;
    }

    /**
     * The {@code awa.maintenance.task} tag value of {@code awa.maintenance.ticks.dropped}.
     *
     * @return the label
     */
    public String label() {
        return label;
    }

    /**
     * The ring of a ring tick.
     *
     * @return the ring, or {@code null} for the other tasks
     */
    public @Nullable Ring ring() {
        return ring;
    }

    /**
     * The tick task of a ring.
     *
     * @param ring the ring
     * @return the task
     */
    public static Task of(Ring ring) {
        return switch (ring) {
            case QUEUE -> RING_QUEUE;
            case LEASE -> RING_LEASE;
            case CLAIM -> RING_CLAIM;
        };
    }
}
