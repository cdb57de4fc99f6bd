package io.awareactive.core.internal;

import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RingOperations;
import io.awareactive.core.ring.RollupOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link RingOperations} of one storage: its rotator, pruner, rollup, lifecycle maintenance and dead-letter purge,
 * all on the storage's connection factory and under its prune lock timeout. Immutable and thread-safe.
 */
public final class StorageRingOperations implements RingOperations {

    private final QueueStorageConfig config;
    private final Schema schema;
    private final SchemaInstaller installer;
    private final Rotator rotator;
    private final Pruner pruner;
    private final TerminalRollup rollup;
    private final Lifecycle lifecycle;
    private final DeadLetters deadLetters;

    /**
     * Creates the operations over a storage's parts; does no I/O.
     *
     * @param config the storage configuration
     * @param schema the schema names
     * @param installer the storage's installer (for {@link #verifyInstalled()})
     * @param lifecycle the storage's job lifecycle (promotion and rescue)
     * @param deadLetters the storage's dead-letter table (the purge)
     */
    public StorageRingOperations(QueueStorageConfig config, Schema schema, SchemaInstaller installer,
            Lifecycle lifecycle, DeadLetters deadLetters) {
        this.config = config;
        this.schema = schema;
        this.installer = installer;
        long lockTimeoutMillis = config.effectivePruneLockTimeout().toMillis();
        this.rotator = new Rotator(config.connectionFactory(), schema, lockTimeoutMillis);
        this.pruner = new Pruner(config.connectionFactory(), schema, lockTimeoutMillis);
        this.rollup = new TerminalRollup(config.connectionFactory(), schema, lockTimeoutMillis);
        this.lifecycle = lifecycle;
        this.deadLetters = deadLetters;
    }

    @Override
    public String schema() {
        return config.schema();
    }

    @Override
    public ConnectionFactory connectionFactory() {
        return config.connectionFactory();
    }

    @Override
    public int slotCount(Ring ring) {
        return config.slotCount(ring);
    }

    @Override
    public Duration pruneLockTimeout() {
        return config.effectivePruneLockTimeout();
    }

    @Override
    public Mono<Void> verifyInstalled() {
        return installer.verify();
    }

    @Override
    public Mono<RotateOutcome> rotate(Ring ring) {
        return rotator.rotate(Objects.requireNonNull(ring, "ring"));
    }

    @Override
    public Mono<PruneOutcome> prune(Ring ring) {
        return pruner.prune(Objects.requireNonNull(ring, "ring"));
    }

    @Override
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        Validation.requireBetween(maxSlots, 1, Ring.MAX_SLOT_COUNT, "maxSlots");
        Validation.requirePositive(mvccPinMinAge, "mvccPinMinAge");
        Validation.requirePositive(mvccPinMinXids, "mvccPinMinXids");
        return rollup.rollup(maxSlots, mvccPinMinAge, mvccPinMinXids);
    }

    @Override
    public Mono<Long> foldTerminalCounts() {
        return rollup.foldTerminalCounts();
    }

    @Override
    public Mono<Long> trimLedgers() {
        return rollup.trimLedgers();
    }

    @Override
    public Mono<Integer> sealedSlots(Ring ring) {
        return pruner.sealedSlots(Objects.requireNonNull(ring, "ring"));
    }

    @Override
    public Mono<RingCursor> cursor(Ring ring) {
        Objects.requireNonNull(ring, "ring");
        return Db.withConnection(config.connectionFactory(), c -> RingReads.cursor(c, schema, ring));
    }

    @Override
    public Mono<Integer> promote(int maxJobs) {
        requireBatch(maxJobs, "maxJobs");
        return Mono.defer(() -> lifecycle.promote(maxJobs));
    }

    @Override
    public Mono<Integer> rescue(int maxJobs) {
        requireBatch(maxJobs, "maxJobs");
        return Mono.defer(() -> lifecycle.rescue(maxJobs));
    }

    @Override
    public Mono<Long> purgeFailedJobs(int batchSize) {
        requireBatch(batchSize, "batchSize");
        return Mono.defer(() -> deadLetters.purge(batchSize));
    }

    private static void requireBatch(int value, String option) {
        Validation.requireBetween(value, 1, 10_000, option);
    }
}
