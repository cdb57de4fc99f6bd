package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static io.awareactive.reliability.Reliability.count;
import static io.awareactive.reliability.Reliability.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.Job;
import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, first fault: the prune's connection is terminated ({@code pg_terminate_backend}) inside its transaction,
 * after every lock is granted. A {@code BEFORE TRUNCATE} trigger the test puts on {@code ready_entries_0} holds the
 * prune at its TRUNCATE (every child lock granted) until the test lets it go.
 */
@AwaPostgresTest
final class PruneTerminatedIntegrationTests {

    private static final long GATE_KEY = 8_001;
    private static final List<String> CHILDREN = List.of("ready_entries_0", "ready_segments_0",
            "ready_claim_ranges_0", "queue_terminal_count_deltas_0");

    private final TestDatabase db;

    PruneTerminatedIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @Test
    void shouldReportAnErrorKeepEverySlotRowAndPruneOnALaterTickWhenThePruneBackendIsTerminated() throws Exception {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(4).maxAcquireTime(WAIT).build());
        QueueStorageConfig storage = Reliability.installed(db, pool);
        QueueStorage queue = QueueStorage.create(storage);
        // Three completed jobs in queue slot 0, then a ledger row (1, 1): slot 0 is sealed and prunable.
        for (int i = 0; i < 3; i++) {
            queue.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        }
        List<Job> jobs = queue.claim("q", 3, "w").collectList().block(WAIT);
        jobs.forEach(job -> queue.complete(job).block(WAIT));
        // The lease slot holding their claimed run goes first: a queue slot outlives the claimed runs of its jobs.
        assertThat(queue.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(queue.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        db.execute("INSERT INTO " + t(storage, "queue_ring_rotations") + " (generation, slot) VALUES (1, 1)");
        Map<String, Long> rowsBefore = rows(storage);
        Map<String, Long> filenodesBefore = filenodes(storage);
        assertThat(rowsBefore.get("ready_entries_0")).isEqualTo(3);
        db.execute("CREATE FUNCTION " + t(storage, "hold_truncate") + "() RETURNS trigger LANGUAGE plpgsql AS $$"
                        + " BEGIN WHILE NOT pg_try_advisory_xact_lock(" + GATE_KEY + ") LOOP"
                        + " PERFORM pg_sleep(0.02); END LOOP; RETURN NULL; END $$",
                "CREATE TRIGGER hold_truncate BEFORE TRUNCATE ON " + t(storage, "ready_entries_0")
                        + " FOR EACH STATEMENT EXECUTE FUNCTION " + t(storage, "hold_truncate") + "()");

        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Reliability.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofMillis(300))).meterRegistry(registry)
                .build());
        try (Connection gate = db.openJdbc(); Statement statement = gate.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(" + GATE_KEY + ")");
            engine.outcomes().subscribe(events::add);
            engine.start().block(WAIT);

            // The prune waits inside its TRUNCATE, holding ACCESS EXCLUSIVE on every child of slot 0.
            await().atMost(WAIT).until(() -> truncatePid(storage) != 0);
            int pid = truncatePid(storage);
            assertThat(db.queryLong("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE l.pid = ? AND l.granted"
                    + " AND l.mode = 'AccessExclusiveLock' AND n.nspname = ? AND c.relname IN ('ready_entries_0',"
                    + " 'ready_segments_0', 'ready_claim_ranges_0', 'ready_tombstones_0', 'done_entries_0',"
                    + " 'queue_terminal_count_deltas_0')", pid, storage.schema())).isEqualTo(6);

            db.queryLong("SELECT count(*) FROM (SELECT pg_terminate_backend(?)) t", pid);

            await().atMost(WAIT).until(() -> count(events, "error") >= 1);
            PruneEvent failed = events.stream().filter(e -> e.outcome() instanceof PruneOutcome.Failed)
                    .findFirst().orElseThrow();
            assertThat(failed.ring()).isEqualTo(Ring.QUEUE);
            PruneOutcome.Failed outcome = (PruneOutcome.Failed) failed.outcome();
            assertThat(outcome.slot()).isZero();
            // 57P01 admin_shutdown when the termination message arrives, class 08 when the socket closes first.
            assertThat(outcome.sqlState() == null || outcome.sqlState().equals("57P01")
                    || outcome.sqlState().startsWith("08")).as("sqlState %s", outcome.sqlState()).isTrue();
            assertThat(registry.get("awa.maintenance.prune.attempts").tags("awa.ring", "queue",
                    "awa.ring.outcome", "error", "awa.ring.reason", "none").counter().count()).isPositive();

            // Later ticks go on. To look at slot 0 the test must keep them out of it: it takes ACCESS SHARE on
            // ready_segments_0 (a later prune that got there first is terminated too), so they end Blocked.
            try (Connection holder = db.openJdbc(); Statement hold = holder.createStatement()) {
                hold.execute("SET lock_timeout = '2s'");
                holder.setAutoCommit(false);
                await().atMost(WAIT).until(() -> {
                    int waiting = truncatePid(storage);
                    if (waiting != 0) {
                        db.queryLong("SELECT count(*) FROM (SELECT pg_terminate_backend(?)) t", waiting);
                    }
                    try {
                        hold.execute("LOCK TABLE " + t(storage, "ready_segments_0") + " IN ACCESS SHARE MODE");
                        return true;
                    } catch (java.sql.SQLException timedOut) {
                        holder.rollback();
                        return false;
                    }
                });
                // Nothing of slot 0 was truncated, not even the children the TRUNCATE named before the trigger.
                assertThat(rows(storage)).isEqualTo(rowsBefore);
                assertThat(filenodes(storage)).isEqualTo(filenodesBefore);
                // Ticks are serial: once a Blocked follows, every terminated prune has reported; then only
                // Blocked outcomes follow while the test holds the lock.
                int seen = events.size();
                await().atMost(WAIT).until(() -> events.subList(seen, events.size()).stream()
                        .anyMatch(e -> e.outcome() instanceof PruneOutcome.Blocked));
                long failures = count(events, "error");
                int blockedSeen = events.size();
                await().atMost(WAIT).until(() -> events.subList(blockedSeen, events.size()).stream()
                        .anyMatch(e -> e.outcome() instanceof PruneOutcome.Blocked));
                assertThat(count(events, "error")).isEqualTo(failures);
                holder.rollback();
            }
            statement.execute("SELECT pg_advisory_unlock(" + GATE_KEY + ")");

            await().atMost(WAIT).until(() -> count(events, "pruned") == 1);
            // The hand-off kept the terminal counts: three completed jobs.
            assertThat(queue.counts("q").block(WAIT).completed()).isEqualTo(3);
        } finally {
            Reliability.stopQuietly(engine);
            pool.dispose();
        }
        PruneOutcome.Pruned pruned = (PruneOutcome.Pruned) events.stream()
                .filter(e -> e.outcome() instanceof PruneOutcome.Pruned).findFirst().orElseThrow().outcome();
        assertThat(pruned.slot()).isZero();
        assertThat(pruned.generation()).isZero();
        for (String child : CHILDREN) {
            assertThat(Reliability.rows(db, storage, child)).as(child).isZero();
        }
        assertThat(Reliability.filenode(db, storage, "ready_entries_0"))
                .isNotEqualTo(filenodesBefore.get("ready_entries_0"));
    }

    private int truncatePid(QueueStorageConfig storage) {
        List<Long> pids = db.query("SELECT pid FROM pg_stat_activity WHERE state = 'active' AND wait_event = 'PgSleep'"
                + " AND query LIKE 'TRUNCATE%ready_entries_0%'", rs -> rs.getLong(1));
        return pids.isEmpty() ? 0 : pids.get(0).intValue();
    }

    private Map<String, Long> rows(QueueStorageConfig storage) {
        Map<String, Long> rows = new java.util.TreeMap<>();
        CHILDREN.forEach(child -> rows.put(child, Reliability.rows(db, storage, child)));
        return rows;
    }

    private Map<String, Long> filenodes(QueueStorageConfig storage) {
        Map<String, Long> nodes = new java.util.TreeMap<>();
        CHILDREN.forEach(child -> nodes.put(child, Reliability.filenode(db, storage, child)));
        return nodes;
    }
}
