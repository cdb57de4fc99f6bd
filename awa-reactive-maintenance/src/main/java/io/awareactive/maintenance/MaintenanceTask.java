package io.awareactive.maintenance;

/**
 * The maintenance engine's periodic tasks, in the order {@link ManualMaintenance#runOnce()} runs them. Each has its
 * own interval ({@link RingMaintenanceConfig}), feeding the engine's one serial loop. Adding a task is one constant
 * here, its option group in {@link RingMaintenanceConfig} and its interval and body in the engine's exhaustive
 * {@code switch}es (no {@code default}, so the compiler names every place a new task must be handled), plus its
 * test. Its {@link #label()} is its {@code awa.maintenance.task} tag value on every meter.
 */
public enum MaintenanceTask {
    /** The queue ring's tick. */
    RING_QUEUE("ring_queue"),
    /** The lease ring's tick. */
    RING_LEASE("ring_lease"),
    /** The claim ring's tick. */
    RING_CLAIM("ring_claim"),
    /** Terminal-count rollup, fold and ledger trim. */
    ROLLUP("rollup"),
    /** Deferred-job promotion. */
    PROMOTE("promote"),
    /** Rescue of stale attempts. */
    RESCUE("rescue"),
    /** Deletion of dead-letter rows past their retention. */
    DLQ_PURGE("dlq_purge");

    private final String label;

    MaintenanceTask(String label) {
        this.label = label;
    }

    /**
     * The {@code awa.maintenance.task} tag value of this task on every meter.
     *
     * @return the label
     */
    public String label() {
        return label;
    }
}
