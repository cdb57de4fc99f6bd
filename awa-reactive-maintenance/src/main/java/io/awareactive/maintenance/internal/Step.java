package io.awareactive.maintenance.internal;

/**
 * A step that is not a whole task but whose failure is logged and counted in {@code awa.maintenance.task.failures}:
 * a sub-step of a task (fold, trim, sealed_slots_refresh) or of leadership (election, leader_check). A whole task's
 * failure is counted under the task's own label, the same value as on {@code awa.maintenance.ticks.dropped}.
 */
public enum Step {
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
}
