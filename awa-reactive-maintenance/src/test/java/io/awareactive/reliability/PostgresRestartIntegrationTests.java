package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueCounts;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.testkit.BlockingCallGuardExtension;
import io.awareactive.testkit.EmbeddedOptions;
import io.awareactive.testkit.PostgresProviders;
import io.awareactive.testkit.RestartablePostgresServer;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 8: PostgreSQL stopped and started under load, on its own durable server ({@code fsync} and
 * {@code synchronous_commit} on), by a fast and by an immediate (crash-like) shutdown. Producers, workers and the
 * maintenance engine keep running in this JVM: they report errors during the outage, recover by themselves, reach
 * at least 80 % of the pre-fault throughput within 30 s, lose no acknowledged job and never run a job twice while
 * its lease is live.
 */
@ExtendWith(BlockingCallGuardExtension.class)
final class PostgresRestartIntegrationTests {

    private static final Duration TICK = Duration.ofMillis(200);
    private static final int PRODUCE_EVERY_MS = 5; // about 200 jobs/s, well within the workers' capacity

    private static RestartablePostgresServer server;
    private static TestDatabase db;

    @BeforeAll
    static void startServer() {
        server = PostgresProviders.embedded(EmbeddedOptions.builder().durable(true).build());
        db = TestDatabase.of(server, "PostgresRestartIntegrationTests");
    }

    @AfterAll
    static void closeServer() {
        if (server != null) {
            server.close();
        }
    }

    /** One run of a job's handler. */
    record Execution(long runLease, int attempt, long startNanos, long endNanos) {
    }

    @ParameterizedTest(name = "immediate = {0}")
    @ValueSource(booleans = {false, true})
    void shouldRecoverWithoutLosingOrDoublingJobsWhenPostgresRestarts(boolean immediate) {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(12).maxAcquireTime(Duration.ofSeconds(2)).build());
        QueueStorageConfig storage = Reliability.storage(pool, db.newSchemaName())
                .heartbeatInterval(Duration.ofMillis(500))
                .leaseStaleAfter(Duration.ofSeconds(4))
                .retryBackoffBase(Duration.ZERO)
                .build();
        QueueStorage queue = QueueStorage.create(storage);
        // Installed outside the pool: the installation is not under test, and on a loaded machine opening the
        // pool's first connections can exceed its acquire time.
        QueueStorage.create(storage.mutate().connectionFactory(db.connectionFactory()).build()).install().block(WAIT);

        Map<Long, List<Execution>> executions = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Long> completedAt = new ConcurrentLinkedQueue<>();
        Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicLong enqueueErrors = new AtomicLong();
        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        RingMaintenance engine = RingMaintenance.create(queue, Reliability.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(TICK))
                .task(MaintenanceTask.RING_LEASE, t -> t.interval(TICK))
                .task(MaintenanceTask.RING_CLAIM, t -> t.interval(TICK))
                .task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofMillis(100)))
                .task(MaintenanceTask.RESCUE, p -> p.interval(Duration.ofMillis(500)))
                .task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ofSeconds(2)))
                .taskTimeout(Duration.ofSeconds(5))
                .meterRegistry(registry).build());
        engine.outcomes().subscribe(events::add);
        engine.start().block(WAIT);
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Worker worker = queue.worker(WorkerConfig.builder("restart", job -> {
                long start = System.nanoTime();
                return Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(1, 10))).doOnSuccess(v -> {
                    long end = System.nanoTime();
                    executions.computeIfAbsent(job.id(), id -> new CopyOnWriteArrayList<>())
                            .add(new Execution(job.runLease(), job.attempt(), start, end));
                    completedAt.add(end);
                });
            }).concurrency(20).batchSize(10).pollInterval(Duration.ofMillis(200)).build());
            workers.add(worker);
            worker.start().block(WAIT);
        }
        Disposable producer = Flux.interval(Duration.ofMillis(PRODUCE_EVERY_MS))
                .onBackpressureDrop()
                .flatMap(i -> queue.enqueue(JobRequest.of("restart", "k", "{\"i\": " + i + "}"))
                        .doOnNext(acknowledged::add)
                        .onErrorResume(error -> {
                            enqueueErrors.incrementAndGet();
                            return Mono.empty();
                        }), 8)
                .subscribe();
        try {
            await().atMost(WAIT).until(() -> completedAt.size() >= 200);
            double before = rate(completedAt, Duration.ofSeconds(3), System.nanoTime());
            await().atMost(WAIT).until(() -> rate(completedAt, Duration.ofSeconds(3), System.nanoTime()) > 0);
            before = Math.max(before, rate(completedAt, Duration.ofSeconds(3), System.nanoTime()));
            long errorsBefore = enqueueErrors.get();

            server.stop(immediate);
            // Producers see errors while the server is down.
            await().atMost(WAIT).until(() -> enqueueErrors.get() > errorsBefore + 5);
            server.start();
            long restarted = System.nanoTime();

            // Within 30 s of the restart a 2 s window completes at least 80 % of the pre-fault rate.
            double target = 0.8 * before;
            await().atMost(Duration.ofSeconds(30)).until(() -> System.nanoTime() - restarted > 2_000_000_000L
                    && rate(completedAt, Duration.ofSeconds(2), System.nanoTime()) >= target);
            double recoveredAfter = (System.nanoTime() - restarted) / 1e9;
            double after = rate(completedAt, Duration.ofSeconds(2), System.nanoTime());
            await().atMost(WAIT).until(engine::isLeader);

            producer.dispose();
            // Every acknowledged job runs to completion; rescue re-runs attempts whose completion the outage lost.
            await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.stream().allMatch(executions::containsKey));
            // counts().available is read from the lanes' sequences: positions reserved by enqueues that never
            // committed (in flight at the stop) stay counted until a later claim on the lane passes them. They are
            // at most the failed enqueues, and nothing is claimable.
            await().atMost(WAIT)
                    .until(() -> Reliability.quiet(queue.counts("restart").block(WAIT), executions.size()));
            assertThat(queue.claim("restart", 100, "probe").collectList().block(WAIT)).isEmpty();
            QueueCounts counts = queue.counts("restart").block(WAIT);
            System.out.printf("restart (immediate=%s): acknowledged %d, enqueue errors %d, executed jobs %d,"
                            + " re-runs %d, completed %d, failed %d, phantom available %d, rate before %.0f/s, after %.0f/s"
                            + " reached %.1f s after restart, prune errors %d, task failures %.0f%n", immediate,
                    acknowledged.size(), enqueueErrors.get(), executions.size(),
                    executions.values().stream().mapToInt(List::size).sum() - executions.size(),
                    counts.completed(), counts.failed(), counts.available(), before, after, recoveredAfter,
                    Reliability.count(events, "error"),
                    registry.find("awa.maintenance.task.failures").counters().stream()
                            .mapToDouble(c -> c.count()).sum());

            // No acknowledged job lost; nothing ran that was never enqueued.
            assertThat(executions.keySet()).containsAll(acknowledged);
            assertThat(counts.failed()).isZero();
            assertThat(counts.available()).isLessThanOrEqualTo(enqueueErrors.get());
            assertThat(counts.completed()).isEqualTo(executions.size());
            // Never twice while a lease was live: each run is its own attempt, and runs of a job never overlap.
            executions.forEach((id, runs) -> {
                assertThat(runs.stream().map(Execution::runLease).distinct().count()).as("job %d", id)
                        .isEqualTo(runs.size());
                List<Execution> sorted = runs.stream()
                        .sorted(java.util.Comparator.comparingLong(Execution::startNanos)).toList();
                for (int i = 1; i < sorted.size(); i++) {
                    assertThat(sorted.get(i).startNanos()).as("job %d run %d", id, i)
                            .isGreaterThan(sorted.get(i - 1).endNanos());
                    assertThat(sorted.get(i).attempt()).isGreaterThan(sorted.get(i - 1).attempt());
                }
            });
            // Workers and maintenance reported the outage rather than hiding it.
            assertThat(enqueueErrors.get()).isGreaterThan(errorsBefore);
            assertThat(registry.find("awa.maintenance.task.failures").counters().stream()
                    .mapToDouble(c -> c.count()).sum() + Reliability.count(events, "error")).isPositive();
        } finally {
            producer.dispose();
            workers.forEach(worker -> worker.stop(Duration.ofSeconds(5)).onErrorResume(e -> Mono.empty())
                    .block(WAIT));
            Reliability.stopQuietly(engine);
            pool.dispose();
        }
    }

    /** Completions per second over the last {@code window}. */
    private static double rate(ConcurrentLinkedQueue<Long> completedAt, Duration window, long now) {
        long from = now - window.toNanos();
        return completedAt.stream().filter(t -> t >= from).count() / (window.toNanos() / 1e9);
    }
}
