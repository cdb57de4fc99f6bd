package io.awareactive.benchmarks;

import io.awareactive.core.Job;
import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.resources.LoopResources;

/**
 * awa-reactive under test, through its public API only: {@link QueueStorage#enqueueAll}, {@link QueueStorage#claim},
 * {@link QueueStorage#complete}, {@link QueueStorage#status}, {@link QueueStorage#counts}, and a
 * {@link RingMaintenance} engine with default settings but the rotate interval and prune lock timeout of the run.
 *
 * <p>The engine gets its own connections (a pool of two, plus the leader connection), as its own role when the
 * benchmark user may create one, on its own Netty event loop and its own single-thread scheduler, all named
 * {@value #THREAD_PREFIX}-*: the maintenance-overhead scenario reads its statement time by role and its JVM CPU by
 * thread name. Those are benchmark-side choices a deployment may also make; the engine's behaviour is unchanged.
 */
final class AwaQueue implements QueueSystem<Job> {

    static final String LABEL = "awa-reactive";

    /** The name prefix of every thread the maintenance engine runs on. */
    static final String THREAD_PREFIX = "awa-bench-maint";

    private final BenchDatabase database;
    private final String schema;
    private final ConnectionPool pool;
    private final String payload;
    private final QueueStorageConfig config;
    private final QueueStorage storage;
    private final PruneStats pruneStats = new PruneStats();
    private final String parentLookupSql;
    private final int enqueueShards;
    private final Duration rollupInterval;
    private @Nullable Engine engine;

    /** A running engine and what it runs on. */
    private record Engine(RingMaintenance maintenance, ConnectionPool pool, LoopResources loops, Scheduler scheduler,
            Scheduler outcomeScheduler, Disposable outcomes) {
    }

    AwaQueue(BenchDatabase database, String schema, ConnectionPool pool, String payload, int enqueueShards,
            Duration rollupInterval, int statementsInFlight) {
        this.database = database;
        this.enqueueShards = enqueueShards;
        this.rollupInterval = rollupInterval;
        this.schema = schema;
        this.pool = pool;
        this.payload = payload;
        this.config = QueueStorageConfig.builder().connectionFactory(pool).schema(schema)
                .maxStatementsInFlight(statementsInFlight).build();
        this.storage = QueueStorage.create(config);
        String s = "\"" + schema + "\"";
        // The design's worst case (§6.2): a job-by-id read of the ring parents locks every child of both families.
        // Done rows have no job_id index (schema step 10): they are probed by primary-key prefix in every slot.
        this.parentLookupSql = "SELECT 1 FROM " + s + ".ready_entries WHERE job_id = $1"
                + " UNION ALL SELECT 1 FROM " + s + ".done_entries WHERE job_id = $1"
                + " AND ready_slot IN (SELECT slot FROM " + s + ".queue_ring_slots)";
    }

    QueueStorage storage() {
        return storage;
    }

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public String schema() {
        return schema;
    }

    /**
     * Installs the schema and gives the queue its enqueue shards. There is no admin API for the shard count yet, so
     * it is written to {@code queue_meta} before the first enqueue creates the queue's lanes.
     */
    @Override
    public Mono<Void> install() {
        return storage.install().then(BenchSql.update(pool, "INSERT INTO \"" + schema
                + "\".queue_meta (queue, enqueue_shards) VALUES ($1, $2) ON CONFLICT (queue) DO UPDATE"
                + " SET enqueue_shards = EXCLUDED.enqueue_shards", QUEUE, enqueueShards)).then();
    }

    @Override
    public Mono<List<Long>> enqueue(int count) {
        return storage.enqueueAll(Flux.range(0, count).map(i -> JobRequest.builder(QUEUE, KIND).args(payload)
                .build())).collectList();
    }

    @Override
    public Mono<List<Job>> claim(int maxBatch, String workerId) {
        return storage.claim(QUEUE, maxBatch, workerId).collectList();
    }

    @Override
    public Mono<Void> complete(Job job) {
        return storage.complete(job).then();
    }

    @Override
    public Mono<Void> completeAll(List<Job> jobs) {
        return storage.completeAll(jobs).then();
    }

    @Override
    public Mono<Void> lookup(long jobId, String mode) {
        if (mode.equals("parent")) {
            return BenchSql.rows(pool, parentLookupSql, row -> 1, jobId).then();
        }
        return storage.status(jobId).then();
    }

    @Override
    public Mono<Void> count() {
        return storage.counts(QUEUE).then();
    }

    @Override
    public String contendingReaderSql() {
        return "SELECT count(*) FROM \"" + schema + "\".ready_segments";
    }

    @Override
    public synchronized Mono<Void> startMaintenance(Duration rotateInterval, Duration lockTimeout) {
        return Mono.defer(() -> {
            if (engine != null) {
                return Mono.error(new IllegalStateException("maintenance already running"));
            }
            LoopResources loops = LoopResources.create(THREAD_PREFIX + "-io", 1, true);
            PostgresqlConnectionFactory factory = database.maintenanceFactory(loops);
            // reactor-pool's default order: --pool-order is about the pool the producers and workers share.
            ConnectionPool maintenancePool = BenchDatabase.pool(factory, THREAD_PREFIX, 2, false);
            Scheduler scheduler = Schedulers.newSingle(THREAD_PREFIX + "-loop", true);
            Scheduler outcomeScheduler = Schedulers.newSingle("awa-bench-outcomes", true);
            // Its own pool and lock timeout: the engine maintains a storage of its own over the same schema.
            QueueStorage maintained = QueueStorage.create(config.mutate().connectionFactory(maintenancePool)
                    .pruneLockTimeout(lockTimeout).build());
            RingMaintenance maintenance = RingMaintenance.create(maintained, RingMaintenanceConfig.builder()
                    .leaderConnectionFactory(factory)
                    .task(MaintenanceTask.RING_QUEUE, t -> t.interval(rotateInterval))
                    .task(MaintenanceTask.RING_LEASE, t -> t.interval(rotateInterval))
                    .task(MaintenanceTask.RING_CLAIM, t -> t.interval(rotateInterval))
                    .task(MaintenanceTask.ROLLUP, t -> t.interval(rollupInterval))
                    .scheduler(scheduler)
                    .outcomeScheduler(outcomeScheduler)
                    .build());
            Disposable outcomes = maintenance.outcomes()
                    .subscribe(event -> pruneStats.record(event.ring(), event.outcome()));
            engine = new Engine(maintenance, maintenancePool, loops, scheduler, outcomeScheduler, outcomes);
            return maintenance.start();
        });
    }

    @Override
    public synchronized Mono<Void> stopMaintenance() {
        return Mono.defer(() -> {
            Engine running = engine;
            engine = null;
            if (running == null) {
                return Mono.empty();
            }
            return running.maintenance().stop(Duration.ofSeconds(10))
                    .then(running.pool().disposeLater())
                    .then(running.loops().disposeLater())
                    .doFinally(signal -> {
                        running.outcomes().dispose();
                        running.scheduler().dispose();
                        running.outcomeScheduler().dispose();
                    });
        });
    }

    @Override
    public PruneStats pruneStats() {
        return pruneStats;
    }

    @Override
    public void close() {
        stopMaintenance().block(Duration.ofSeconds(30));
        pool.disposeLater().block(Duration.ofSeconds(30));
    }
}
