package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
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
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 8: a long {@code REPEATABLE READ} reader on the queue ring's partitions and an idle-in-transaction session
 * on the lease ring's partitions, under load. Prunes of the held slots end {@code blocked} or
 * {@code skipped_active}, never {@code pruned} or {@code error}, while claims keep flowing; once both are released
 * and the load stops, within 32 ticks plus three ring laps the queue and lease rings report {@code already_pruned}
 * and {@code awa.ring.sealed_slots} is 0. The claim ring holds no rows since schema step 7 (claims write no
 * receipt): it never rotates, so there is nothing of it to hold or drain.
 */
@AwaPostgresTest
final class LongReadersIntegrationTests {

    private final TestDatabase db;

    LongReadersIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @Test
    void shouldBlockOrSkipWhileReadersHoldTheRingsKeepClaimingAndDrainOnceTheyLeave() throws Exception {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(10).maxAcquireTime(WAIT).build());
        QueueStorageConfig storage = Reliability.installed(db, pool);
        QueueStorage queue = QueueStorage.create(storage);
        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Duration tick = Duration.ofMillis(100);
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Reliability.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(tick))
                .task(MaintenanceTask.RING_LEASE, t -> t.interval(tick))
                .task(MaintenanceTask.RING_CLAIM, t -> t.interval(tick)).meterRegistry(registry).build());
        Set<Long> done = ConcurrentHashMap.newKeySet();
        List<Long> enqueued = new CopyOnWriteArrayList<>();
        List<Worker> workers = new ArrayList<>();
        Disposable producer = null;
        try (Connection reader = db.openJdbc(); Connection idle = db.openJdbc();
                Statement read = reader.createStatement(); Statement idling = idle.createStatement()) {
            engine.outcomes().subscribe(events::add);
            engine.start().block(WAIT);
            for (int i = 0; i < 2; i++) {
                // Jobs that take a while keep leases alive across ticks, so the lease ring rotates too.
                Worker worker = queue.worker(WorkerConfig.builder("held", job -> Mono.delay(Duration.ofMillis(50))
                        .doOnNext(ignored -> done.add(job.id()))).concurrency(10)
                        .pollInterval(Duration.ofMillis(100)).build());
                workers.add(worker);
                worker.start().block(WAIT);
            }
            producer = Flux.interval(Duration.ofMillis(20)).onBackpressureDrop()
                    .concatMap(i -> queue.enqueue(JobRequest.of("held", "k", "{}")).doOnNext(enqueued::add))
                    .subscribe();
            // Every ring with rows has sealed a slot, so each has a prune target for the sessions to hold.
            await().atMost(WAIT).until(() -> done.size() >= 20
                    && Drain.RINGS_WITH_ROWS.stream().allMatch(ring -> Reliability.rotations(registry, ring) > 0));

            // A report in REPEATABLE READ scanning the queue parents, and a session idle in a transaction that
            // read the lease ring's claimed runs: both hold ACCESS SHARE on every child until they end.
            reader.setAutoCommit(false);
            reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            read.executeQuery("SELECT (SELECT count(*) FROM " + Reliability.t(storage, "ready_entries") + "),"
                    + " (SELECT count(*) FROM " + Reliability.t(storage, "done_entries") + ")").close();
            idle.setAutoCommit(false);
            idling.executeQuery("SELECT count(*) FROM " + Reliability.t(storage, "lease_runs")).close();
            int heldFrom = events.size();
            int doneAtHold = done.size();

            // Claims keep flowing, and the rings' prunes are turned away while the sessions stay.
            await().atMost(WAIT).until(() -> done.size() >= doneAtHold + 100
                    && Reliability.count(startedWhileHeld(events, heldFrom), "blocked") >= 3);
            List<PruneEvent> held = startedWhileHeld(events, heldFrom);
            assertThat(held).noneMatch(e -> e.outcome() instanceof PruneOutcome.Pruned
                    || e.outcome() instanceof PruneOutcome.Failed);
            // The lease prunes wait for the idle session; the queue prunes for the report, or for the lease slots
            // holding their jobs' runs (a queue slot outlives the claimed runs of its jobs).
            assertThat(held).filteredOn(e -> e.outcome() instanceof PruneOutcome.Blocked)
                    .extracting(PruneEvent::ring).contains(Ring.LEASE);

            reader.rollback();
            idle.rollback();
            producer.dispose();
            await().atMost(WAIT).until(() -> done.containsAll(enqueued));
            int loadStopped = events.size();

            Drain.awaitDrained(events, loadStopped, registry, Duration.ofSeconds(60));
            for (Ring ring : Drain.RINGS_WITH_ROWS) {
                int ticks = Drain.ticksUntilAlreadyPruned(events, loadStopped, ring);
                System.out.printf("long readers: %s ring drained in %d ticks (allowed %d)%n", ring.label(), ticks,
                        Drain.allowedTicks(storage, ring));
                assertThat(ticks).as(ring.label()).isLessThanOrEqualTo(Drain.allowedTicks(storage, ring));
            }
            Drain.assertClaimRingUnused(db, storage, events, registry);
        } finally {
            if (producer != null) {
                producer.dispose();
            }
            workers.forEach(worker -> worker.stop(Duration.ofSeconds(5)).block(WAIT));
            Reliability.stopQuietly(engine);
            pool.dispose();
        }
    }

    /**
     * The events since {@code from} less each ring's first: that prune may have taken its locks before the sessions
     * took theirs (the sessions' reads then waited for its commit), so it rightly ended {@code pruned}.
     */
    private static List<PruneEvent> startedWhileHeld(List<PruneEvent> events, int from) {
        Set<Ring> seen = EnumSet.noneOf(Ring.class);
        return List.copyOf(events.subList(from, events.size())).stream().filter(e -> !seen.add(e.ring())).toList();
    }
}
