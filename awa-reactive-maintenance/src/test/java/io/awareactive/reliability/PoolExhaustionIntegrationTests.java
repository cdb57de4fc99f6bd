package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 8: pool exhaustion. A small r2dbc-pool shared by many workers, producers and the engine: maintenance keeps
 * getting connections or reports errors, never deadlocks; with every connection taken, an enqueue fails within the
 * pool's bounded acquire time with a clear error; once connections return, everything goes on.
 */
@AwaPostgresTest
final class PoolExhaustionIntegrationTests {

    private static final int POOL_SIZE = 4;
    private static final Duration ACQUIRE = Duration.ofMillis(500);

    private final TestDatabase db;

    PoolExhaustionIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @Test
    void shouldKeepMaintenanceAliveAndFailEnqueueWithinTheAcquireTimeWhenThePoolIsExhausted() {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(POOL_SIZE).maxAcquireTime(ACQUIRE).build());
        // Installed outside the small pool: the installation is not under test, and a loaded machine may take
        // longer than the pool's acquire time to open its first connections.
        QueueStorageConfig storage = Reliability.installed(db, db.connectionFactory()).mutate()
                .connectionFactory(pool).build();
        QueueStorage queue = QueueStorage.create(storage);
        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Duration tick = Duration.ofMillis(100);
        RingMaintenance engine = RingMaintenance.create(queue, Reliability.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(tick))
                .task(MaintenanceTask.RING_LEASE, t -> t.interval(tick))
                .task(MaintenanceTask.RING_CLAIM, t -> t.interval(tick))
                .task(MaintenanceTask.PROMOTE, p -> p.interval(tick))
                .task(MaintenanceTask.RESCUE, p -> p.interval(Duration.ofMillis(500)))
                .taskTimeout(Duration.ofSeconds(5))
                .meterRegistry(registry).build());
        Set<Long> done = ConcurrentHashMap.newKeySet();
        List<Worker> workers = new ArrayList<>();
        List<Connection> taken = new ArrayList<>();
        try {
            engine.outcomes().subscribe(events::add);
            engine.start().block(WAIT);
            for (int i = 0; i < 8; i++) {
                Worker worker = queue.worker(WorkerConfig.builder("pool", job -> Mono.fromRunnable(
                        () -> done.add(job.id()))).concurrency(10).pollInterval(Duration.ofMillis(50)).build());
                workers.add(worker);
                worker.start().block(WAIT);
            }
            // Under contention for four connections, jobs flow and every ring keeps reporting outcomes.
            List<Long> ids = queue.enqueueAll(Flux.range(0, 300).map(i -> JobRequest.of("pool", "k", "{}")))
                    .collectList().block(WAIT);
            await().atMost(WAIT).until(() -> done.containsAll(ids));
            int seen = events.size();
            await().atMost(WAIT).until(() -> events.size() > seen + 10);

            // Take every connection: the enqueue fails within about the acquire time, with the pool's message.
            for (int i = 0; i < POOL_SIZE; i++) {
                taken.add(pool.create().block(WAIT));
            }
            long start = System.nanoTime();
            Throwable error = queue.enqueue(JobRequest.of("pool", "k", "{}")).then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just).block(WAIT);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(error).isNotNull();
            assertThat(error.toString()).contains("500ms");
            assertThat(took).isGreaterThanOrEqualTo(ACQUIRE).isLessThan(ACQUIRE.plusSeconds(3));

            // Maintenance reports errors meanwhile instead of hanging.
            double failuresBefore = taskFailures(registry);
            long errorsBefore = Reliability.count(events, "error");
            await().atMost(WAIT).until(() -> taskFailures(registry) > failuresBefore + 2
                    || Reliability.count(events, "error") > errorsBefore + 2);
            assertThat(events).filteredOn(e -> e.outcome() instanceof PruneOutcome.Failed).allSatisfy(e ->
                    assertThat(((PruneOutcome.Failed) e.outcome()).sqlState()).isNull());

            // Give the connections back: enqueues, claims and maintenance go on.
            taken.forEach(c -> Mono.from(c.close()).block(WAIT));
            taken.clear();
            long id = queue.enqueue(JobRequest.of("pool", "k", "{}")).block(WAIT);
            await().atMost(WAIT).until(() -> done.contains(id));
            int after = events.size();
            await().atMost(WAIT).until(() -> events.subList(after, events.size()).stream()
                    .anyMatch(e -> !(e.outcome() instanceof PruneOutcome.Failed)));
            assertThat(engine.isLeader()).isTrue();
        } finally {
            taken.forEach(c -> Mono.from(c.close()).block(WAIT));
            workers.forEach(worker -> worker.stop(Duration.ofSeconds(5)).block(WAIT));
            Reliability.stopQuietly(engine);
            pool.dispose();
        }
    }

    private static double taskFailures(SimpleMeterRegistry registry) {
        return registry.find("awa.maintenance.task.failures").counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
