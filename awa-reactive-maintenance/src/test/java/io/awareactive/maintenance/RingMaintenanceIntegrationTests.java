package io.awareactive.maintenance;

import static io.awareactive.maintenance.Fixtures.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import io.awareactive.core.AwaReactiveException;
import io.awareactive.core.Job;
import io.awareactive.core.JobRequest;
import io.awareactive.core.JobState;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine against a real PostgreSQL (design §12 scenarios 1, 14, 19, 20, 21, 24), with BlockHound watching every
 * Reactor thread.
 */
@AwaPostgresTest
final class RingMaintenanceIntegrationTests {

    private static final String READER = "awa-blocking-reader";

    private final TestDatabase db;
    private final List<RingMaintenance> engines = new ArrayList<>();
    private ConnectionPool pool;

    RingMaintenanceIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void createPool() {
        pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(6).maxAcquireTime(WAIT).build());
    }

    @AfterEach
    void stopEngines() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)).block(WAIT));
        pool.dispose();
    }

    private RingMaintenance started(QueueStorageConfig storage, RingMaintenanceConfig config,
            List<PruneEvent> events) {
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), config);
        engines.add(engine);
        engine.outcomes().subscribe(events::add);
        engine.start().block(WAIT);
        return engine;
    }

    private static long count(List<PruneEvent> events, String label) {
        return events.stream().filter(e -> e.outcome().label().equals(label)).count();
    }

    /** A session holding ACCESS SHARE on a child inside an open transaction, as a long report would. */
    private static int holdAccessShare(Connection reader, QueueStorageConfig storage, String child) throws Exception {
        reader.setAutoCommit(false);
        try (Statement statement = reader.createStatement()) {
            statement.execute("SET application_name = '" + READER + "'");
            statement.execute("LOCK TABLE " + Fixtures.t(storage, child) + " IN ACCESS SHARE MODE");
            try (ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void shouldReportBlockedWithItsBlockerWhileAReaderHoldsTheSlotThenPrunedAfterRelease() throws Exception {
        // One lock timeout, the storage's (10 ms), bounds every lock acquisition of the engine's prunes.
        QueueStorageConfig storage = Fixtures.installed(db, pool).mutate()
                .pruneLockTimeout(Duration.ofMillis(10)).build();
        Fixtures.makeSlotZeroTheTarget(db, storage);
        long filenodeBefore = Fixtures.filenode(db, storage, "done_entries_0");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List<PruneEvent> events = new CopyOnWriteArrayList<>();

        try (Connection reader = db.openJdbc();
                Fixtures.LogCapture log = new Fixtures.LogCapture(Fixtures.ENGINE_LOGGER, Level.INFO)) {
            int readerPid = holdAccessShare(reader, storage, "ready_segments_0");
            started(storage, Fixtures.engine()
                    .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofMillis(100)))
                    .meterRegistry(registry)
                    .blockerDiagnostics(true)
                    .build(), events);

            await().atMost(Duration.ofSeconds(10)).until(() -> count(events, "blocked") >= 3);

            PruneEvent blocked = events.stream().filter(e -> e.outcome() instanceof PruneOutcome.Blocked)
                    .findFirst().orElseThrow();
            assertThat(blocked.ring()).isEqualTo(Ring.QUEUE);
            assertThat(blocked.outcome()).isEqualTo(new PruneOutcome.Blocked(0, BlockedCause.LOCK_TIMEOUT));
            assertThat(blocked.blockers()).anySatisfy(holder -> {
                assertThat(holder.pid()).isEqualTo(readerPid);
                assertThat(holder.applicationName()).isEqualTo(READER);
                assertThat(holder.state()).isEqualTo("idle in transaction");
                assertThat(holder.transactionAge()).isPositive();
                assertThat(holder.query()).isEqualTo("SELECT pg_backend_pid()");
            });
            assertThat(log.lines(Level.WARN)).anySatisfy(line -> assertThat(line)
                    .contains("prune of the queue ring, slot 0, was blocked (lock_timeout)", "pid " + readerPid,
                            READER));

            reader.rollback();
            await().atMost(WAIT).until(() -> count(events, "pruned") == 1);
        }

        PruneEvent pruned = events.stream().filter(e -> e.outcome() instanceof PruneOutcome.Pruned)
                .findFirst().orElseThrow();
        PruneOutcome.Pruned outcome = (PruneOutcome.Pruned) pruned.outcome();
        assertThat(outcome.slot()).isZero();
        assertThat(outcome.generation()).isZero();
        assertThat(pruned.blockers()).isEmpty();
        assertThat(Fixtures.filenode(db, storage, "done_entries_0")).isNotEqualTo(filenodeBefore);

        // After the release nothing is blocked any more, so these counts are final.
        long blockedEvents = count(events, "blocked");
        assertThat(registry.get("awa.maintenance.prune.attempts").tags("awa.ring", "queue", "awa.ring.outcome",
                "blocked", "awa.ring.reason", "none").counter().count()).isEqualTo(blockedEvents);
        assertThat(registry.get("awa.maintenance.prune.blocked").tags("awa.ring", "queue", "awa.ring.cause",
                "lock_timeout").counter().count()).isEqualTo(blockedEvents);
        assertThat(registry.get("awa.maintenance.prune.attempts").tags("awa.ring", "queue", "awa.ring.outcome",
                "pruned", "awa.ring.reason", "none").counter().count()).isEqualTo(1);
        assertThat(registry.get("awa.maintenance.prune.duration").tags("awa.ring", "queue",
                "awa.maintenance.phase", "lock").timer().count()).isEqualTo(1);
        assertThat(registry.scrape()).contains("awa_maintenance_prune_attempts_total{awa_ring=\"queue\","
                + "awa_ring_outcome=\"blocked\",awa_ring_reason=\"none\"} " + blockedEvents + ".0");
    }

    @Test
    void shouldAnswerAlreadyPrunedOnAnIdleRingWithoutTruncatingAgain() {
        QueueStorageConfig storage = Fixtures.installed(db, pool);
        Fixtures.makeSlotZeroTheTarget(db, storage);
        long filenodeBefore = Fixtures.filenode(db, storage, "done_entries_0");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        started(storage, Fixtures.engine().task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofMillis(50)))
                .meterRegistry(registry).build(),
                events);

        await().atMost(WAIT).until(() -> count(events, "pruned") == 1);
        long filenodeAfterPrune = Fixtures.filenode(db, storage, "done_entries_0");
        assertThat(filenodeAfterPrune).isNotEqualTo(filenodeBefore);
        long alreadyPruned = count(events, "already_pruned");
        long since = System.nanoTime();

        await().atMost(WAIT).until(() -> count(events, "already_pruned") >= alreadyPruned + 5
                && System.nanoTime() - since >= TimeUnit.MILLISECONDS.toNanos(350));

        assertThat(Fixtures.filenode(db, storage, "done_entries_0")).isEqualTo(filenodeAfterPrune);
        assertThat(count(events, "pruned")).isEqualTo(1);
        assertThat(events.stream().filter(e -> e.outcome() instanceof PruneOutcome.AlreadyPruned))
                .allSatisfy(e -> assertThat(e.outcome()).isEqualTo(new PruneOutcome.AlreadyPruned(0, 0)));
        assertThat(registry.get("awa.maintenance.rotate.attempts").tags("awa.ring", "queue", "awa.ring.outcome",
                "skipped_idle", "awa.ring.blocker", "none").counter().count()).isPositive();
        assertThat(registry.get("awa.ring.sealed_slots").tag("awa.ring", "queue").gauge().value()).isZero();
        // The first tick rotated once (slot 0 held a row), then pruned slot 0; since then the ring is idle.
        assertThat(registry.get("awa.ring.generation").tag("awa.ring", "queue").gauge().value()).isEqualTo(2);
    }

    @Test
    void shouldKeepTickingWhileASubscriberIsStuck() throws Exception {
        QueueStorageConfig storage = Fixtures.installed(db, pool);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Fixtures.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofMillis(50))).meterRegistry(registry)
                .build());
        engines.add(engine);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger slow = new AtomicInteger();
        AtomicInteger fast = new AtomicInteger();
        engine.outcomes().subscribe(e -> {
            slow.incrementAndGet();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        });
        engine.outcomes().subscribe(e -> fast.incrementAndGet());
        engine.start().block(WAIT);

        await().atMost(WAIT).until(() -> fast.get() >= 60);

        assertThat(slow).hasValue(1);
        double rotations = registry.get("awa.maintenance.rotate.attempts").tags("awa.ring", "queue",
                "awa.ring.outcome", "skipped_idle", "awa.ring.blocker", "none").counter().count();
        assertThat(rotations).isGreaterThanOrEqualTo(60);
        release.countDown();
        await().atMost(WAIT).until(() -> slow.get() > 1);
        assertThat(slow.get()).isLessThan(fast.get());
    }

    @Test
    void shouldTurnASecondLeaderAwayWithSerializerBusyWhileTheFirstPruneWaits() throws Exception {
        QueueStorageConfig storage = Fixtures.installed(db, pool);
        Fixtures.makeSlotZeroTheTarget(db, storage);
        List<PruneEvent> eventsA = new CopyOnWriteArrayList<>();
        List<PruneEvent> eventsB = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registryB = new SimpleMeterRegistry();
        // A long check interval keeps the first leader unaware of its lost connection: both lead for a while.
        QueueStorageConfig patient = storage.mutate().pruneLockTimeout(Duration.ofSeconds(4)).build();
        RingMaintenanceConfig.Builder common = Fixtures.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofMillis(100)))
                .leaderElectionInterval(Duration.ofMillis(200))
                .leaderCheckInterval(Duration.ofSeconds(20));

        try (Connection reader = db.openJdbc()) {
            holdAccessShare(reader, storage, "ready_segments_0");
            RingMaintenance a = started(patient, common.build(), eventsA);
            await().atMost(WAIT).until(a::isLeader);
            await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_stat_activity WHERE"
                    + " wait_event_type = 'Lock' AND query LIKE 'LOCK TABLE%ready_segments_0%'") == 1);
            RingMaintenance b = started(patient, common.meterRegistry(registryB).build(), eventsB);
            db.queryLong("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_locks WHERE"
                    + " locktype = 'advisory' AND granted AND objsubid = 1 AND ((classid::bigint << 32)"
                    + " | objid::bigint) = hashtextextended(?, 0)) t", "awa-reactive.leader:" + storage.schema());

            await().atMost(WAIT).until(() -> eventsB.stream().anyMatch(e -> e.outcome().equals(
                    new PruneOutcome.Blocked(0, BlockedCause.SERIALIZER_BUSY))));

            // Both believe they lead, yet the first prune still waits alone: the ring serializer turned B away.
            assertThat(a.isLeader()).isTrue();
            assertThat(b.isLeader()).isTrue();
            assertThat(db.queryLong("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE 'LOCK TABLE%ready_segments_0%'")).isEqualTo(1);
            assertThat(eventsB).noneMatch(e -> e.outcome() instanceof PruneOutcome.Pruned);
            assertThat(registryB.get("awa.maintenance.rotate.attempts").tags("awa.ring", "queue", "awa.ring.outcome",
                    "skipped_busy", "awa.ring.blocker", "serializer_busy").counter().count()).isPositive();
            reader.rollback();
        }
        await().atMost(WAIT).until(() -> count(eventsA, "pruned") + count(eventsB, "pruned") >= 1);
    }

    @Test
    void shouldRefuseToStartOnAnInstallationWithOtherSlotCounts() {
        QueueStorageConfig installed = Fixtures.installed(db, pool);
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(installed.mutate().queueSlotCount(8)
                .build()), Fixtures.engine()
                .build());
        engines.add(engine);

        assertThatThrownBy(() -> engine.start().block(WAIT)).isInstanceOf(AwaReactiveException.class)
                .hasMessageContaining("queueSlotCount must equal the installed slot_count 4");
        assertThat(engine.isLeader()).isFalse();
        assertThat(db.queryLong("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1"
                + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)",
                "awa-reactive.leader:" + installed.schema())).isZero();
    }

    @Test
    void shouldPromoteDueScheduledJobsAndRescueStaleAttempts() {
        QueueStorageConfig storage = Fixtures.installed(db, pool).mutate()
                .heartbeatInterval(Duration.ofMillis(100))
                .leaseStaleAfter(Duration.ofMillis(300))
                .retryBackoffBase(Duration.ZERO)
                .build();
        QueueStorage queue = QueueStorage.create(storage);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        started(storage, Fixtures.engine().task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofMillis(100)))
                .task(MaintenanceTask.RESCUE, p -> p.interval(Duration.ofMillis(200))).meterRegistry(registry)
                .build(), new CopyOnWriteArrayList<>());

        long id = queue.enqueue(JobRequest.builder("mail", "send").runAt(Instant.now().plusMillis(300)).build())
                .block(WAIT);
        assertThat(queue.status(id).block(WAIT).state()).isEqualTo(JobState.SCHEDULED);
        await().atMost(WAIT).until(() -> queue.status(id).block(WAIT).state() == JobState.AVAILABLE);

        Job claimed = queue.claim("mail", 1, "stuck-worker").blockFirst(WAIT);
        assertThat(claimed.id()).isEqualTo(id);
        assertThat(queue.status(id).block(WAIT).state()).isEqualTo(JobState.RUNNING);
        // The worker never heartbeats: rescue takes the attempt back and retries it at once (zero backoff).
        await().atMost(WAIT).until(() -> queue.status(id).block(WAIT).state() == JobState.AVAILABLE);
        assertThat(queue.status(id).block(WAIT).attempt()).isEqualTo(claimed.attempt() + 1);
        assertThat(registry.get("awa.maintenance.task.failures").tag("awa.maintenance.task", "promote").counter()
                .count()).isZero();
        assertThat(registry.get("awa.maintenance.task.failures").tag("awa.maintenance.task", "rescue").counter()
                .count()).isZero();
    }

    @Test
    void shouldPurgeDeadLetterRowsPastTheirRetentionAndCountAPurgeThatCouldNotLock() throws Exception {
        QueueStorageConfig storage = Fixtures.installed(db, pool).mutate()
                .deadLetterRetention(Duration.ofHours(1))
                .build();
        QueueStorage queue = QueueStorage.create(storage);
        long old = failedTerminally(queue);
        long fresh = failedTerminally(queue);
        String table = Fixtures.t(storage, "dead_letter_jobs");
        db.execute("UPDATE " + table + " SET failed_at = failed_at - interval '2 hours' WHERE job_id = " + old);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        started(storage, Fixtures.engine().task(MaintenanceTask.DLQ_PURGE, p -> p.interval(Duration.ofMillis(200)))
                .meterRegistry(registry).build(),
                new CopyOnWriteArrayList<>());

        await().atMost(WAIT).until(() -> queue.failedJob(old).blockOptional(WAIT).isEmpty());
        assertThat(queue.failedJob(fresh).blockOptional(WAIT)).isPresent();

        // A session holding a conflicting table lock: each purge gives up within its own lock timeout, is counted
        // as a failure of the dlq_purge task, and the loop goes on; once the lock goes, the expired row goes.
        try (Connection holder = db.openJdbc()) {
            holder.setAutoCommit(false);
            try (Statement statement = holder.createStatement()) {
                statement.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
                statement.execute("UPDATE " + table + " SET failed_at = failed_at - interval '2 hours'");
            }
            await().atMost(WAIT).until(() -> registry.get("awa.maintenance.task.failures")
                    .tag("awa.maintenance.task", "dlq_purge").counter().count() >= 2);
            holder.commit();
        }
        await().atMost(WAIT).until(() -> queue.failedJob(fresh).blockOptional(WAIT).isEmpty());
    }

    private static long failedTerminally(QueueStorage queue) {
        long id = queue.enqueue(JobRequest.builder("mail", "send").maxAttempts(1).build()).block(WAIT);
        Job job = queue.claim("mail", 1, "w").blockFirst(WAIT);
        assertThat(job.id()).isEqualTo(id);
        queue.fail(job, "smtp down").block(WAIT);
        return id;
    }
}
