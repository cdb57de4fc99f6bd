package io.awareactive.maintenance.internal;

import io.awareactive.core.PruneOutcome;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.RingCursor;
import io.awareactive.core.RollupOutcome;
import io.awareactive.core.RotateOutcome;
import io.awareactive.core.internal.Schema;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.awareactive.maintenance.StartupWarning;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The real {@link TaskPort}: core's {@link QueueStorage} for rotation, prune, rollup, the job-lifecycle
 * maintenance and the dead-letter purge, plus the engine's own leader lock, diagnostics and blocker queries. Ring
 * work runs on the storage's (pooled) connections, never on the leader connection, so a failed prune never costs
 * leadership.
 */
public final class StoragePort implements TaskPort {

    private final QueueStorage storage;
    private final QueueStorageConfig storageConfig;
    private final LeaderLock leaderLock;
    private final BlockerQuery blockerQuery;

    /**
     * Creates the port; does no I/O.
     *
     * @param config the engine configuration (its effective storage configuration is used)
     */
    public StoragePort(RingMaintenanceConfig config) {
        this.storageConfig = config.queueStorage();
        this.storage = QueueStorage.create(storageConfig);
        Schema schema = new Schema(storageConfig.schema());
        this.leaderLock = new LeaderLock(config.leaderConnectionFactory(), schema.leaderKey());
        this.blockerQuery = new BlockerQuery(storageConfig.connectionFactory(), schema);
    }

    @Override
    public int slotCount(Ring ring) {
        return storageConfig.slotCount(ring);
    }

    @Override
    public Mono<Void> verifyInstalled() {
        return storage.verifyInstalled();
    }

    @Override
    public Mono<Leadership> tryLead() {
        return leaderLock.tryLead();
    }

    @Override
    public Mono<RotateOutcome> rotate(Ring ring) {
        return storage.rotate(ring);
    }

    @Override
    public Mono<PruneOutcome> prune(Ring ring) {
        return storage.prune(ring);
    }

    @Override
    public Mono<RingCursor> cursor(Ring ring) {
        return storage.cursor(ring);
    }

    @Override
    public Mono<Integer> sealedSlots(Ring ring) {
        return storage.sealedSlots(ring);
    }

    @Override
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        return storage.rollup(maxSlots, mvccPinMinAge, mvccPinMinXids);
    }

    @Override
    public Mono<Long> foldTerminalCounts() {
        return storage.foldTerminalCounts();
    }

    @Override
    public Mono<Long> trimLedgers() {
        return storage.trimLedgers();
    }

    @Override
    public Mono<Integer> promote(int maxJobs) {
        return storage.promote(maxJobs);
    }

    @Override
    public Mono<Integer> rescue(int maxJobs) {
        return storage.rescue(maxJobs);
    }

    @Override
    public Mono<Long> purgeFailedJobs(int batchSize) {
        return storage.purgeFailedJobs(batchSize);
    }

    @Override
    public Mono<List<LockHolder>> blockers(Ring ring, int slot) {
        return blockerQuery.holders(ring, slot);
    }

    @Override
    public Mono<List<StartupWarning>> diagnose(Duration lockTimeout) {
        return Diagnostics.run(storageConfig.connectionFactory(), lockTimeout);
    }
}
