package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;

/** A step whose failure is logged and counted in {@code awa.maintenance.task.failures} (not a prune or rollup outcome). */
public enum Step {
    /** Rotation of the queue ring. */
    ROTATE_QUEUE("rotate_queue"),
    /** Rotation of the lease ring. */
    ROTATE_LEASE("rotate_lease"),
    /** Rotation of the claim ring. */
    ROTATE_CLAIM("rotate_claim"),
    /** A deferred-job promotion batch. */
    PROMOTE("promote"),
    /** A rescue batch. */
    RESCUE("rescue"),
    /** A dead-letter purge (its batches). */
    DLQ_PURGE("dlq_purge"),
    /** The rollup as a whole (its candidate read), not a slot transaction. */
    ROLLUP("rollup"),
    /** Folding rollup deltas into the rollups. */
    FOLD("fold"),
    /** Trimming the rotation ledgers. */
    TRIM("trim"),
    /** Reading a ring's cursor and sealed-slot count after its tick. */
    SEALED_SLOTS_REFRESH("sealed_slots_refresh"),
    /** An election attempt (the leader connection or its try-lock failed). */
    ELECTION("election"),
    /** The leader's liveness check of its connection. */
    LEADER_CHECK("leader_check");

    private final String label;

    Step(String label) {
        this.label = label;
    }

    /**
     * The {@code awa.maintenance.task} tag value.
     *
     * @return the label
     */
    public String label() {
        return label;
    }

    /**
     * The rotation step of a ring.
     *
     * @param ring the ring
     * @return the step
     */
    public static Step rotate(Ring ring) {
        return switch (ring) {
            case QUEUE -> ROTATE_QUEUE;
            case LEASE -> ROTATE_LEASE;
            case CLAIM -> ROTATE_CLAIM;
        };
    }
}
