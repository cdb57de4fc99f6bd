package io.awareactive.core;

import java.util.Locale;

/**
 * The three rings of an awa-reactive schema. Each ring is a set of list-partitioned tables ("families") sharing one
 * partition key and slot count; its slots are used round-robin and recycled by {@code TRUNCATE}.
 */
public enum Ring {
    /** The queue ring (partition key {@code ready_slot}): ready rows, segments, claim ranges, tombstones, done rows. */
    QUEUE("ready_slot", 16, 4),
    /**
     * The lease ring (partition key {@code lease_slot}): one row per claimed run (its jobs' attempts), heartbeated,
     * and the closures that completions write for it.
     */
    LEASE("lease_slot", 8, 2),
    /**
     * The claim ring (partition key {@code claim_slot}): immutable receipts and closures of attempts claimed before
     * schema step 7 (later claims write none; the ring is still rotated and pruned so that those are reclaimed).
     */
    CLAIM("claim_slot", 8, 2);

    /** The largest slot count any ring may be installed with. */
    public static final int MAX_SLOT_COUNT = 64;

    private final String partitionKey;
    private final int defaultSlotCount;
    private final int minSlotCount;

    Ring(String partitionKey, int defaultSlotCount, int minSlotCount) {
        this.partitionKey = partitionKey;
        this.defaultSlotCount = defaultSlotCount;
        this.minSlotCount = minSlotCount;
    }

    /**
     * The stable lower-case name used in SQL identifiers, advisory-lock keys and metric tags.
     *
     * @return {@code queue}, {@code lease} or {@code claim}
     */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The partition-key column of this ring's families.
     *
     * @return {@code ready_slot}, {@code lease_slot} or {@code claim_slot}
     */
    public String partitionKey() {
        return partitionKey;
    }

    /**
     * The slot count a schema gets unless configured otherwise.
     *
     * @return 16 for the queue ring, 8 for the lease and claim rings
     */
    public int defaultSlotCount() {
        return defaultSlotCount;
    }

    /**
     * The smallest slot count this ring may be installed with.
     *
     * @return 4 for the queue ring, 2 for the lease and claim rings
     */
    public int minSlotCount() {
        return minSlotCount;
    }
}
