package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.StartupWarning;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 8: {@code statement_timeout} and {@code lock_timeout} set for the maintenance role ({@code ALTER ROLE ...
 * SET}, the test's own role). The prune's transaction-local lock timeout wins over the role's lock timeout either
 * way; a statement timeout shorter than the prune's wait turns blocked prunes into error outcomes (57014), and the
 * startup diagnostics warn.
 */
@AwaPostgresTest
final class RoleTimeoutsIntegrationTests {

    private final TestDatabase db;
    private QueueStorageConfig owner;
    private String role;

    RoleTimeoutsIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void install() {
        owner = Reliability.installed(db, db.connectionFactory());
        role = db.newRole("pg_read_all_stats");
        QueueStorage.create(owner).grantMaintenanceRole(role).block(WAIT);
        // Ledger row (1, 1): queue slot 0 is the prune target.
        db.execute("INSERT INTO " + Reliability.t(owner, "queue_ring_rotations") + " (generation, slot) VALUES (1, 1)");
    }

    private QueueStorageConfig asRole(Duration pruneLockTimeout) {
        return owner.mutate().connectionFactory(db.connectionFactoryAs(role)).pruneLockTimeout(pruneLockTimeout)
                .build();
    }

    private void holdReadySegments(Connection reader) throws Exception {
        reader.setAutoCommit(false);
        try (Statement statement = reader.createStatement()) {
            statement.execute("LOCK TABLE " + Reliability.t(owner, "ready_segments_0") + " IN ACCESS SHARE MODE");
        }
    }

    @Test
    void shouldUseItsOwnLockTimeoutWhateverTheRoleSets() throws Exception {
        db.execute("ALTER ROLE \"" + role + "\" SET lock_timeout = '60s'");
        QueueStorage longRole = QueueStorage.create(asRole(Duration.ofMillis(10)));
        try (Connection reader = db.openJdbc()) {
            holdReadySegments(reader);
            long start = System.nanoTime();
            PruneOutcome blocked = longRole.ringOperations().prune(Ring.QUEUE).block(WAIT);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(blocked).isEqualTo(new PruneOutcome.Blocked(0, BlockedCause.LOCK_TIMEOUT));
            assertThat(took).isLessThan(Duration.ofSeconds(5)); // not the role's 60 s
            reader.rollback();
        }

        db.execute("ALTER ROLE \"" + role + "\" SET lock_timeout = '1ms'");
        QueueStorage shortRole = QueueStorage.create(asRole(Duration.ofSeconds(10)));
        try (Connection reader = db.openJdbc()) {
            holdReadySegments(reader);
            var pending = shortRole.ringOperations().prune(Ring.QUEUE).toFuture();
            // The prune waits well past the role's 1 ms while the reader holds its lock, then prunes.
            String waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND usename = ?"
                    + " AND query LIKE 'LOCK TABLE%ready_segments_0%'";
            await().atMost(WAIT).until(() -> db.queryLong(waiting, role) == 1);
            await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> db.queryLong(waiting, role) == 1);
            assertThat(pending).isNotDone();
            reader.rollback();
            PruneOutcome pruned = pending.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(pruned).isInstanceOf(PruneOutcome.Pruned.class);
            assertThat(((PruneOutcome.Pruned) pruned).durations().lock())
                    .isGreaterThanOrEqualTo(Duration.ofMillis(300));
        }
    }

    @Test
    void shouldReportStatementTimeoutShorterThanThePruneWaitAsErrorsAndWarnAtStart() throws Exception {
        db.execute("ALTER ROLE \"" + role + "\" SET statement_timeout = '50ms'");
        QueueStorageConfig storage = asRole(Duration.ofSeconds(2));
        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Reliability.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofMillis(100))).meterRegistry(registry)
                .build());
        try (Connection reader = db.openJdbc()) {
            List<StartupWarning> warnings = engine.diagnose().block(WAIT);
            assertThat(warnings).extracting(StartupWarning::kind)
                    .contains(StartupWarning.Kind.LOCK_TIMEOUT_NOT_BELOW_STATEMENT_TIMEOUT);
            assertThat(warnings).anySatisfy(w -> assertThat(w.message()).contains("statement_timeout", "50 ms"));

            holdReadySegments(reader);
            engine.outcomes().subscribe(events::add);
            engine.start().block(WAIT);
            await().atMost(WAIT).until(() -> Reliability.count(events, "error") >= 2);
            // Meters go with the engine, so read the counter while it runs.
            assertThat(registry.get("awa.maintenance.prune.attempts").tags("awa.ring", "queue", "awa.ring.outcome",
                    "error", "awa.ring.reason", "none").counter().count()).isGreaterThanOrEqualTo(2);
            reader.rollback();
        } finally {
            Reliability.stopQuietly(engine);
        }
        assertThat(events).filteredOn(e -> e.outcome() instanceof PruneOutcome.Failed).allSatisfy(e -> {
            PruneOutcome.Failed failed = (PruneOutcome.Failed) e.outcome();
            assertThat(failed.slot()).isZero();
            assertThat(failed.sqlState()).isEqualTo("57014");
        });
        assertThat(events).noneMatch(e -> e.outcome() instanceof PruneOutcome.Blocked);
    }
}
