package io.awareactive.core.ring;

import io.awareactive.core.Ring;
import io.awareactive.core.internal.Table;
import org.jspecify.annotations.Nullable;

/**
 * Why a rotation was skipped as busy: a non-empty family of the next slot, an uncommitted writer, a held serializer
 * or a lost compare-and-swap. The {@link #label()} is the {@code awa.ring.blocker} metric tag.
 */
public enum RotationBlocker {
    /** {@code ready_entries} of the next queue slot holds rows. */
    QUEUE_READY_ROWS(Table.READY_ENTRIES, "queue.ready_rows"),
    /** {@code ready_segments} of the next queue slot holds rows. */
    QUEUE_READY_SEGMENTS(Table.READY_SEGMENTS, "queue.ready_segments"),
    /** {@code ready_claim_ranges} of the next queue slot holds rows. */
    QUEUE_CLAIM_RANGES(Table.READY_CLAIM_RANGES, "queue.claim_ranges"),
    /** {@code ready_tombstones} of the next queue slot holds rows. */
    QUEUE_TOMBSTONES(Table.READY_TOMBSTONES, "queue.tombstones"),
    /** {@code done_entries} of the next queue slot holds rows. */
    QUEUE_DONE_ROWS(Table.DONE_ENTRIES, "queue.done_rows"),
    /** {@code queue_terminal_count_deltas} of the next queue slot holds rows. */
    QUEUE_TERMINAL_DELTAS(Table.QUEUE_TERMINAL_COUNT_DELTAS, "queue.terminal_deltas"),
    /** {@code leases} of the next lease slot holds rows. */
    LEASE_ROWS(Table.LEASES, "lease.rows"),
    /** {@code lease_runs} (a row per claimed run, schema step 18) of the next lease slot holds rows. */
    LEASE_RUN_ROWS(Table.LEASE_RUNS, "lease.run_rows"),
    /** {@code lease_run_closures} (completions of claimed runs, schema step 19) of the next lease slot holds rows. */
    LEASE_RUN_CLOSURE_ROWS(Table.LEASE_RUN_CLOSURES, "lease.run_closure_rows"),
    /** {@code lease_claims} (receipts) of the next claim slot holds rows. */
    CLAIM_ROWS(Table.LEASE_CLAIMS, "claim.rows"),
    /** {@code lease_claim_closures} of the next claim slot holds rows. */
    CLAIM_CLOSURE_ROWS(Table.LEASE_CLAIM_CLOSURES, "claim.closure_rows"),
    /** A transaction holds an uncommitted insert into the next slot (the {@code SHARE NOWAIT} probe failed). */
    INFLIGHT_WRITES(null, "inflight_writes"),
    /** Another session holds the ring's serializer key. */
    SERIALIZER_BUSY(null, "serializer_busy"),
    /** Another rotator appended the same generation first (the ledger compare-and-swap lost). */
    LOST_CAS(null, "lost_cas");

    // The family is internal (not part of this API); ring() and family() derive from it.
    private final @Nullable Table family;
    private final String label;

    RotationBlocker(@Nullable Table family, String label) {
        this.family = family;
        this.label = label;
    }

    /**
     * The ring whose family this blocker names.
     *
     * @return the ring, or {@code null} for the ring-independent blockers
     */
    public @Nullable Ring ring() {
        return family == null ? null : family.ring();
    }

    /**
     * The family (parent table) whose next-slot child was found non-empty.
     *
     * @return the table name, or {@code null} for the ring-independent blockers
     */
    public @Nullable String family() {
        return family == null ? null : family.sqlName();
    }

    /**
     * The metric tag value.
     *
     * @return for example {@code queue.ready_rows} or {@code inflight_writes}
     */
    public String label() {
        return label;
    }
}
