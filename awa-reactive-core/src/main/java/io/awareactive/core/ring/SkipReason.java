package io.awareactive.core.ring;

import io.awareactive.core.Ring;

/**
 * Why a prune found live work in its target slot and skipped it ({@code skipped_active}). Each reason belongs to one
 * ring; {@link #LEASE_CURRENT} and {@link #CLAIM_CURRENT} are guards that fire only on a bug.
 */
public enum SkipReason {
    /**
     * A running attempt (a lease, or an attempt of a claimed run) still references a job of the queue slot, or a lease
     * slot not yet pruned still holds a claimed run of its jobs.
     */
    QUEUE_ACTIVE_LEASES(Ring.QUEUE, "queue.active_leases"),
    /** Receipts of jobs in the queue slot outnumber their closures: an attempt has not ended. */
    QUEUE_UNCLOSED_CLAIM_REFS(Ring.QUEUE, "queue.unclosed_claim_refs"),
    /** The queue slot holds a ready row at or beyond its lane's claim cursor: unclaimed work. */
    QUEUE_PENDING_READY(Ring.QUEUE, "queue.pending_ready"),
    /** Guard: the lease prune target is the current lease slot (a bug). */
    LEASE_CURRENT(Ring.LEASE, "lease.current"),
    /** The lease slot still holds a lease. */
    LEASE_ACTIVE(Ring.LEASE, "lease.active"),
    /** Guard: the claim prune target is the current claim slot (a bug). */
    CLAIM_CURRENT(Ring.CLAIM, "claim.current"),
    /** The claim slot holds a receipt without a closure. */
    CLAIM_OPEN(Ring.CLAIM, "claim.open");

    private final Ring ring;
    private final String label;

    SkipReason(Ring ring, String label) {
        this.ring = ring;
        this.label = label;
    }

    /**
     * The ring whose prune reports this reason.
     *
     * @return the ring
     */
    public Ring ring() {
        return ring;
    }

    /**
     * The metric tag value ({@code awa.ring.reason}).
     *
     * @return for example {@code queue.pending_ready}
     */
    public String label() {
        return label;
    }
}
