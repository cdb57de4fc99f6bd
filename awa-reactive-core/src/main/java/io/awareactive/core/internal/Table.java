package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import org.jspecify.annotations.Nullable;

/**
 * The tables and sequences of an installation, one constant each, so run-time statements name them only through
 * {@link Schema#table(Table)} and {@link Schema#child(Table, int)}. Ring families carry their ring and are declared
 * in truncate order ({@link Schema#families(Ring)}). The per-ring ledger, state and slot tables are named by
 * {@link Schema#ledger(Ring)}, {@link Schema#ringState(Ring)} and {@link Schema#ringSlots(Ring)}; each lane's two
 * sequences are created by {@link SqlFunction#CREATE_LANE} and reached through {@link #QUEUE_LANES}; the queue ring's
 * {@code queue_ring_generation_seq} (schema step 9) is set by a trigger on its ledger and read by {@code enqueue_lane}
 * only.
 */
public enum Table {
    /** Queue ring family: one row per ready job. */
    READY_ENTRIES("ready_entries", Ring.QUEUE),
    /** Queue ring family: the lane-sequence ranges each enqueue wrote. */
    READY_SEGMENTS("ready_segments", Ring.QUEUE),
    /** Queue ring family: the lane-sequence ranges each claim took. */
    READY_CLAIM_RANGES("ready_claim_ranges", Ring.QUEUE),
    /** Queue ring family: ready rows removed without a claim (cancel, move). */
    READY_TOMBSTONES("ready_tombstones", Ring.QUEUE),
    /** Queue ring family: one row per ended job. */
    DONE_ENTRIES("done_entries", Ring.QUEUE),
    /** Queue ring family: terminal-count deltas not yet rolled up. */
    QUEUE_TERMINAL_COUNT_DELTAS("queue_terminal_count_deltas", Ring.QUEUE),
    /** Lease ring family: one mutable lease per running attempt claimed before schema step 18. */
    LEASES("leases", Ring.LEASE),
    /**
     * Lease ring family (schema step 18): one row per claimed run, its jobs as arrays, updated only by heartbeats and
     * by endings other than a completion.
     */
    LEASE_RUNS("lease_runs", Ring.LEASE),
    /**
     * Lease ring family (schema step 19): one row per completion statement and claimed run, the places of the run's
     * attempts it completed; appended only.
     */
    LEASE_RUN_CLOSURES("lease_run_closures", Ring.LEASE),
    /** Claim ring family: one immutable receipt per attempt claimed before schema step 7. */
    LEASE_CLAIMS("lease_claims", Ring.CLAIM),
    /** Claim ring family: one immutable closure per ended attempt that has a receipt. */
    LEASE_CLAIM_CLOSURES("lease_claim_closures", Ring.CLAIM),
    /**
     * Lease tallies (schema step 6), partitioned per lease slot but not a family: open attempts per lease slot, ready
     * slot, queue (schema step 18) and backend, written in the transaction that opens or ends them (triggers for the
     * leases, the claim and the enders for runs).
     */
    LEASE_TALLIES("lease_tallies", null),
    /**
     * Claim tallies (schema step 6), partitioned per claim slot but not a family: receipts (opened) and closures
     * (closed), per claim slot, ready slot and backend, written by triggers in the transaction that writes them.
     */
    CLAIM_TALLIES("claim_tallies", null),
    /** Per-queue settings (enqueue shard count). */
    QUEUE_META("queue_meta", null),
    /** One row per lane, naming its enqueue and claim sequences. */
    QUEUE_LANES("queue_lanes", null),
    /** Jobs scheduled for later, outside the rings until promoted. */
    DEFERRED_JOBS("deferred_jobs", null),
    /** Terminal counts folded from sealed queue slots, per slot. */
    QUEUE_TERMINAL_LIVE_COUNTS("queue_terminal_live_counts", null),
    /** Terminal counts handed off by prune, not yet folded into {@link #QUEUE_TERMINAL_ROLLUPS}. */
    QUEUE_TERMINAL_ROLLUP_DELTAS("queue_terminal_rollup_deltas", null),
    /** Terminal counts of pruned slots. */
    QUEUE_TERMINAL_ROLLUPS("queue_terminal_rollups", null),
    /** Terminally failed jobs, kept outside the rings. */
    DEAD_LETTER_JOBS("dead_letter_jobs", null),
    /** The installed schema version. */
    SCHEMA_VERSION("awa_reactive_schema_version", null),
    /** Sequence of job ids. */
    JOB_ID_SEQ("job_id_seq", null),
    /** Sequence of attempt ids ({@code run_lease}; before schema step 7 also the receipt ids). */
    RECEIPT_ID_SEQ("receipt_id_seq", null);

    private final String sqlName;
    private final @Nullable Ring ring;

    Table(String sqlName, @Nullable Ring ring) {
        this.sqlName = sqlName;
        this.ring = ring;
    }

    /**
     * The unquoted name in the installation's schema.
     *
     * @return for example {@code ready_entries}
     */
    public String sqlName() {
        return sqlName;
    }

    /**
     * The ring this table is a family (list-partitioned parent) of.
     *
     * @return the ring, or {@code null} for a table outside the rings
     */
    public @Nullable Ring ring() {
        return ring;
    }
}
