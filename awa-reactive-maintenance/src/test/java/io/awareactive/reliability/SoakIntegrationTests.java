package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueCounts;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Issue 8 soak: concurrent producers, workers with random failures and random slow jobs, maintenance with short
 * intervals, periodic contending readers and random connection kills. At the end every job ran to exactly one end
 * (completed once, or failed after its max attempts), none is missing, none ran twice while its lease was live,
 * and the rings drain to {@code already_pruned} with no sealed slot holding rows.
 *
 * <p>Runs {@value #DEFAULT_DURATION} of load in CI; set {@code -Dawa.soak.duration=PT2H} (or the environment
 * variable {@code AWA_SOAK_DURATION}) for a longer run.
 */
@AwaPostgresTest
final class SoakIntegrationTests {

    static final String DEFAULT_DURATION = "PT60S";
    private static final int MAX_ATTEMPTS = 3;

    private final TestDatabase db;

    SoakIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    /** One run of a handler. */
    record Run(long runLease, int attempt, long startNanos, long endNanos) {
    }

    static Duration soakDuration() {
        String value = System.getProperty("awa.soak.duration", System.getenv("AWA_SOAK_DURATION"));
        return Duration.parse(value == null || value.isBlank() ? DEFAULT_DURATION : value);
    }

    @Test
    void shouldEndEveryJobExactlyOnceUnderFaultsAndDrainTheRings() throws Exception {
        Duration duration = soakDuration();
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(10).maxAcquireTime(Duration.ofSeconds(5)).build());
        QueueStorageConfig storage = Reliability.storage(pool, db.newSchemaName())
                .heartbeatInterval(Duration.ofMillis(300))
                .leaseStaleAfter(Duration.ofSeconds(3))
                .retryBackoffBase(Duration.ofMillis(20))
                .retryBackoffMax(Duration.ofMillis(200))
                .build();
        QueueStorage queue = QueueStorage.create(storage);
        queue.install().block(WAIT);
        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Duration tick = Duration.ofMillis(100);
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Reliability.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(tick))
                .task(MaintenanceTask.RING_LEASE, t -> t.interval(tick))
                .task(MaintenanceTask.RING_CLAIM, t -> t.interval(tick))
                .task(MaintenanceTask.PROMOTE, p -> p.interval(tick))
                .task(MaintenanceTask.RESCUE, p -> p.interval(Duration.ofMillis(500)))
                .task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ofSeconds(1)))
                .taskTimeout(Duration.ofSeconds(10)).meterRegistry(registry).build());

        Map<Long, List<Run>> runs = new ConcurrentHashMap<>();
        Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicLong enqueueErrors = new AtomicLong();
        AtomicLong kills = new AtomicLong();
        AtomicLong readers = new AtomicLong();
        List<Worker> workers = new ArrayList<>();
        List<Disposable> load = new ArrayList<>();
        try {
            engine.outcomes().subscribe(events::add);
            engine.start().block(WAIT);
            for (int i = 0; i < 3; i++) {
                Worker worker = queue.worker(WorkerConfig.builder("soak", job -> {
                    long start = System.nanoTime();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    int dice = random.nextInt(100);
                    Mono<Object> body = dice < 10
                            ? Mono.error(new IllegalStateException("random failure"))
                            : Mono.delay(Duration.ofMillis(dice < 15 ? random.nextInt(200, 800) : random.nextInt(1, 5)))
                                    .cast(Object.class);
                    return body.doFinally(signal -> runs.computeIfAbsent(job.id(), id -> new CopyOnWriteArrayList<>())
                            .add(new Run(job.runLease(), job.attempt(), start, System.nanoTime())));
                }).concurrency(8).pollInterval(Duration.ofMillis(100)).build());
                workers.add(worker);
                worker.start().block(WAIT);
            }
            for (int p = 0; p < 2; p++) {
                load.add(Flux.interval(Duration.ofMillis(15)).onBackpressureDrop()
                        .flatMap(i -> queue.enqueue(JobRequest.builder("soak", "k").maxAttempts(MAX_ATTEMPTS).build())
                                .doOnNext(acknowledged::add)
                                .onErrorResume(e -> {
                                    enqueueErrors.incrementAndGet();
                                    return Mono.empty();
                                }), 4)
                        .subscribe());
            }
            // Contending readers: a REPEATABLE READ report over the queue parents, held for 300 ms, every 2 s.
            load.add(Flux.interval(Duration.ofSeconds(2)).onBackpressureDrop()
                    .concatMap(i -> Mono.fromCallable(() -> {
                        try (Connection c = db.openJdbc(); Statement s = c.createStatement()) {
                            c.setAutoCommit(false);
                            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                            s.executeQuery("SELECT count(*) FROM " + Reliability.t(storage, "ready_entries")
                                    + " UNION ALL SELECT count(*) FROM " + Reliability.t(storage, "leases")).close();
                            s.execute("SELECT pg_sleep(0.3)");
                            c.commit();
                        }
                        return readers.incrementAndGet();
                    }).subscribeOn(Schedulers.boundedElastic()).onErrorResume(e -> Mono.empty()))
                    .subscribe());
            // Random connection kills: one backend of this database (pooled, LISTEN or leader) every 1.5 s.
            load.add(Flux.interval(Duration.ofMillis(1500)).onBackpressureDrop()
                    .concatMap(i -> Mono.fromCallable(() -> kills.addAndGet(db.queryLong("SELECT count(*) FROM"
                            + " (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname ="
                            + " current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                            + " AND query LIKE ? AND query NOT LIKE '%pg_sleep%' ORDER BY random() LIMIT 1) t",
                            "%" + storage.schema() + "%")))
                            .subscribeOn(Schedulers.boundedElastic()).onErrorResume(e -> Mono.empty()))
                    .subscribe());

            Mono.delay(duration).block(duration.plusSeconds(30)); // the soak itself: load runs this long
            load.forEach(Disposable::dispose);

            // Every acknowledged job reaches its end: retries are promoted, lost attempts rescued.
            await().atMost(Duration.ofSeconds(90)).until(() -> acknowledged.stream().allMatch(runs::containsKey)
                    && Reliability.quiet(queue.counts("soak").block(WAIT), runs.size()));
            assertThat(queue.claim("soak", 100, "probe").collectList().block(WAIT)).isEmpty();
            // The drain clock starts once no work is left: until then live leases rightly pin slots.
            int loadStopped = events.size();
            Drain.awaitDrained(events, loadStopped, registry, Duration.ofSeconds(60));

            QueueCounts counts = queue.counts("soak").block(WAIT);
            long totalRuns = runs.values().stream().mapToLong(List::size).sum();
            Map<String, Map<String, Long>> perRing = new TreeMap<>();
            for (Ring ring : Ring.values()) {
                perRing.put(ring.label(), events.stream().filter(e -> e.ring() == ring).collect(Collectors
                        .groupingBy(e -> e.outcome().label(), TreeMap::new, Collectors.counting())));
            }
            long deadLetters = db.queryLong("SELECT count(*) FROM " + Reliability.t(storage, "dead_letter_jobs"));
            System.out.printf("soak %s: jobs %d (+%d enqueue errors), ran %d, runs %d, retries %d, completed %d,"
                            + " failed %d, dead letters %d, kills %d, readers %d, outcomes %s%n", duration,
                    acknowledged.size(), enqueueErrors.get(), runs.size(), totalRuns, totalRuns - runs.size(),
                    counts.completed(), counts.failed(), deadLetters, kills.get(), readers.get(), perRing);
            for (Ring ring : Drain.RINGS_WITH_ROWS) {
                System.out.printf("soak: %s ring drained in %d ticks (allowed %d)%n", ring.label(),
                        Drain.ticksUntilAlreadyPruned(events, loadStopped, ring), Drain.allowedTicks(storage, ring));
            }

            // None missing; each job that ran ended exactly once in the terminal counts.
            assertThat(runs.keySet()).containsAll(acknowledged);
            assertThat(counts.completed() + counts.failed()).isEqualTo(runs.size());
            // Failures are terminal only after the last attempt.
            assertThat(deadLetters).isEqualTo(counts.failed());
            assertThat(db.queryLong("SELECT count(*) FROM " + Reliability.t(storage, "dead_letter_jobs")
                    + " WHERE attempts <> ?", MAX_ATTEMPTS)).isZero();
            // Never twice while a lease was live: distinct attempts, runs of a job never overlap.
            runs.forEach((id, list) -> {
                List<Run> sorted = list.stream().sorted(Comparator.comparingLong(Run::startNanos)).toList();
                assertThat(sorted.stream().map(Run::runLease).distinct().count()).as("job %d", id)
                        .isEqualTo(sorted.size());
                for (int i = 1; i < sorted.size(); i++) {
                    assertThat(sorted.get(i).startNanos()).as("job %d run %d", id, i)
                            .isGreaterThan(sorted.get(i - 1).endNanos());
                }
                assertThat(sorted.size()).as("job %d", id).isLessThanOrEqualTo(MAX_ATTEMPTS);
            });
            assertThat(kills.get()).isPositive();
            for (Ring ring : Drain.RINGS_WITH_ROWS) {
                assertThat(Drain.ticksUntilAlreadyPruned(events, loadStopped, ring)).as(ring.label())
                        .isLessThanOrEqualTo(Drain.allowedTicks(storage, ring));
            }
            Drain.assertClaimRingUnused(db, storage, events, registry);
        } finally {
            load.forEach(Disposable::dispose);
            workers.forEach(worker -> worker.stop(Duration.ofSeconds(5)).onErrorResume(e -> Mono.empty())
                    .block(WAIT));
            Reliability.stopQuietly(engine);
            pool.dispose();
        }
    }
}
