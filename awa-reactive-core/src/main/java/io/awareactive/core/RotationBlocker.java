package io.awareactive.core;

import org.jspecify.annotations.Nullable;

/**
 * Why a rotation was skipped as busy: a non-empty family of the next slot, an uncommitted writer, a held serializer
 * or a lost compare-and-swap. The {@link #label()} is the {@code awa.ring.blocker} metric tag.
 */
public enum RotationBlocker {
    /** {@code ready_entries} of the next queue slot holds rows. */
    QUEUE_READY_ROWS(Ring.QUEUE, "ready_entries", "queue.ready_rows"),
    /** {@code ready_segments} of the next queue slot holds rows. */
    QUEUE_READY_SEGMENTS(Ring.QUEUE, "ready_segments", "queue.ready_segments"),
    /** {@code ready_claim_ranges} of the next queue slot holds rows. */
    QUEUE_CLAIM_RANGES(Ring.QUEUE, "ready_claim_ranges", "queue.claim_ranges"),
    /** {@code ready_tombstones} of the next queue slot holds rows. */
    QUEUE_TOMBSTONES(Ring.QUEUE, "ready_tombstones", "queue.tombstones"),
    /** {@code done_entries} of the next queue slot holds rows. */
    QUEUE_DONE_ROWS(Ring.QUEUE, "done_entries", "queue.done_rows"),
    /** {@code queue_terminal_count_deltas} of the next queue slot holds rows. */
    QUEUE_TERMINAL_DELTAS(Ring.QUEUE, "queue_terminal_count_deltas", "queue.terminal_deltas"),
    /** {@code leases} of the next lease slot holds rows. */
    LEASE_ROWS(Ring.LEASE, "leases", "lease.rows"),
    /** {@code lease_claims} (receipts) of the next claim slot holds rows. */
    CLAIM_ROWS(Ring.CLAIM, "lease_claims", "claim.rows"),
    /** {@code lease_claim_closures} of the next claim slot holds rows. */
    CLAIM_CLOSURE_ROWS(Ring.CLAIM, "lease_claim_closures", "claim.closure_rows"),
    /** A transaction holds an uncommitted insert into the next slot (the {@code SHARE NOWAIT} probe failed). */
    INFLIGHT_WRITES(null, null, "inflight_writes"),
    /** Another session holds the ring's serializer key. */
    SERIALIZER_BUSY(null, null, "serializer_busy"),
    /** Another rotator appended the same generation first (the ledger compare-and-swap lost). */
    LOST_CAS(null, null, "lost_cas");

    private final @Nullable Ring ring;
    private final @Nullable String family;
    private final String label;

    RotationBlocker(@Nullable Ring ring, @Nullable String family, String label) {
        this.ring = ring;
        this.family = family;
        this.label = label;
    }

    /**
     * The ring whose family this blocker names.
     *
     * @return the ring, or {@code null} for the ring-independent blockers
     */
    public @Nullable Ring ring() {
        return ring;
    }

    /**
     * The family (parent table) whose next-slot child was found non-empty.
     *
     * @return the table name, or {@code null} for the ring-independent blockers
     */
    public @Nullable String family() {
        return family;
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
