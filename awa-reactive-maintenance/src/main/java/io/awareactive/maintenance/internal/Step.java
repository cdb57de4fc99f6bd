package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;
import io.awareactive.maintenance.MaintenanceTask;

/**
 * A step whose failure is logged and counted in {@code awa.maintenance.task.failures} (not a prune or rollup outcome).
 * A step that is a whole task carries that task's {@link MaintenanceTask#label()} (a ring's rotation is its ring tick's
 * {@code ring_queue}, {@code ring_lease} or {@code ring_claim}), so both meters tagged {@code awa.maintenance.task}
 * share one value per task; the rest name sub-steps of a task (fold, trim, sealed_slots_refresh) or of leadership.
 */
public enum Step {
    /** Rotation of the queue ring: tagged with its task's value, {@code ring_queue}. */
    ROTATE_QUEUE(MaintenanceTask.RING_QUEUE.label()),
    /** Rotation of the lease ring. */
    ROTATE_LEASE(MaintenanceTask.RING_LEASE.label()),
    /** Rotation of the claim ring. */
    ROTATE_CLAIM(MaintenanceTask.RING_CLAIM.label()),
    /** A deferred-job promotion batch. */
    PROMOTE(MaintenanceTask.PROMOTE.label()),
    /** A rescue batch. */
    RESCUE(MaintenanceTask.RESCUE.label()),
    /** A dead-letter purge (its batches). */
    DLQ_PURGE(MaintenanceTask.DLQ_PURGE.label()),
    /** The rollup as a whole (its candidate read), not a slot transaction. */
    ROLLUP(MaintenanceTask.ROLLUP.label()),
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
