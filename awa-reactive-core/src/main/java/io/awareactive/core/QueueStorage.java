package io.awareactive.core;

import io.awareactive.core.internal.Db;
import io.awareactive.core.internal.RingReads;
import io.awareactive.core.internal.Pruner;
import io.awareactive.core.internal.Rotator;
import io.awareactive.core.internal.Schema;
import io.awareactive.core.internal.SchemaInstaller;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The queue storage of one awa-reactive schema: installation, ring rotation and prune, and the job lifecycle.
 *
 * <p>Every method is lazy and non-blocking: nothing happens until the returned publisher is subscribed, and no
 * method blocks the subscribing thread. Instances are immutable and thread-safe; create one per schema and share
 * it. Connections come from {@link QueueStorageConfig#connectionFactory()} and are returned after each operation.
 */
public final class QueueStorage {

    private final QueueStorageConfig config;
    private final Schema schema;
    private final SchemaInstaller installer;
    private final Rotator rotator;
    private final Pruner pruner;

    private QueueStorage(QueueStorageConfig config) {
        this.config = config;
        this.schema = new Schema(config.schema());
        Map<Ring, Integer> slotCounts = new EnumMap<>(Ring.class);
        for (Ring ring : Ring.values()) {
            slotCounts.put(ring, config.slotCount(ring));
        }
        this.installer = new SchemaInstaller(config.connectionFactory(), schema, slotCounts);
        long lockTimeoutMillis = config.effectivePruneLockTimeout().toMillis();
        this.rotator = new Rotator(config.connectionFactory(), schema, lockTimeoutMillis);
        this.pruner = new Pruner(config.connectionFactory(), schema, lockTimeoutMillis);
    }

    /**
     * Creates the storage. Does no I/O.
     *
     * @param config the configuration
     * @return the storage
     * @throws IllegalArgumentException when {@code config} is null
     */
    public static QueueStorage create(QueueStorageConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        return new QueueStorage(config);
    }

    /**
     * The configuration this storage was created with.
     *
     * @return the configuration
     */
    public QueueStorageConfig config() {
        return config;
    }

    /**
     * Installs the schema: idempotent, versioned and serialised across concurrent installers (two installing at
     * once end with one correct schema and no error). An installed schema is only verified.
     *
     * @return completion; errors with {@link AwaReactiveException}, changing nothing, when the schema holds tables
     *     awa-reactive did not create, has another version, or was installed with other slot counts (the message
     *     names both values)
     */
    public Mono<Void> install() {
        return installer.install();
    }

    /**
     * Checks, changing nothing, that the schema is installed at this library's version with the configured slot
     * counts.
     *
     * @return completion; errors with {@link AwaReactiveException} otherwise
     */
    public Mono<Void> verifyInstalled() {
        return installer.verify();
    }

    /**
     * Rotates a ring once, in one short transaction: the ring serializer (try-lock, never waiting), a busy gate on
     * the next slot, an in-flight-writer probe, an idle gate, and a compare-and-swap append to the ledger.
     * Concurrent rotations never produce a duplicate or skipped generation.
     *
     * @param ring the ring
     * @return {@link RotateOutcome.Rotated}, {@link RotateOutcome.SkippedBusy} or {@link RotateOutcome.SkippedIdle};
     *     any other database failure is an error signal
     */
    public Mono<RotateOutcome> rotate(Ring ring) {
        return rotator.rotate(Objects.requireNonNull(ring, "ring"));
    }

    /**
     * Prunes the ring's oldest sealed slot in one transaction under the transaction-local prune lock timeout: proves
     * the slot holds no live work, locks its children within a bounded wait, proves it again and truncates them.
     * Never changes a ring cursor and never errors: every failure is an outcome.
     *
     * @param ring the ring
     * @return {@link PruneOutcome.Pruned}, {@link PruneOutcome.Noop}, {@link PruneOutcome.Blocked},
     *     {@link PruneOutcome.SkippedActive} or {@link PruneOutcome.Failed}
     */
    public Mono<PruneOutcome> prune(Ring ring) {
        return pruner.prune(Objects.requireNonNull(ring, "ring"));
    }

    /**
     * Folds the terminal-count deltas of sealed queue slots into live counts: one transaction per slot, each under
     * the transaction-local prune lock timeout, at most {@code maxSlots} slots, oldest first. Stops after a
     * {@link RollupOutcome.SkippedMvccPinned}. Never errors: every failure is an outcome.
     *
     * @param maxSlots the most slots to fold, 1 to 64
     * @param mvccPinMinAge a snapshot older than this pins the horizon
     * @param mvccPinMinXids without {@code pg_read_all_stats}, an xid age above this pins the horizon
     * @return one outcome per slot transaction
     */
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        return pruner.rollup(maxSlots, mvccPinMinAge, mvccPinMinXids);
    }

    /**
     * Reads a ring's current slot and generation: one index probe of its ledger.
     *
     * @param ring the ring
     * @return the cursor
     */
    public Mono<RingCursor> cursor(Ring ring) {
        Objects.requireNonNull(ring, "ring");
        return Db.withConnection(config.connectionFactory(), c -> RingReads.cursor(c, schema, ring));
    }
}
