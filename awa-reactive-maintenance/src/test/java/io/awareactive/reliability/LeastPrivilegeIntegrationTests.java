package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.AttemptResult;
import io.awareactive.core.Job;
import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RollupOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.StartupWarning;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.R2dbcException;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Design §12 scenario 27 with real roles: an application role with DML, sequence USAGE/UPDATE and EXECUTE only
 * enqueues to new queues, claims and completes; a maintenance role with TRUNCATE and {@code pg_read_all_stats}
 * rotates, prunes and rolls up; neither is superuser nor owns the schema. Grants come from
 * {@link QueueStorage#grantApplicationRole(String)} and {@link QueueStorage#grantMaintenanceRole(String)}.
 */
@AwaPostgresTest
final class LeastPrivilegeIntegrationTests {

    private final TestDatabase db;
    private QueueStorageConfig owner;

    LeastPrivilegeIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void install() {
        owner = Reliability.installed(db, db.connectionFactory());
    }

    private QueueStorage as(ConnectionFactory factory) {
        return QueueStorage.create(owner.mutate().connectionFactory(factory).build());
    }

    private static String sqlState(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof R2dbcException r2dbc) {
                return r2dbc.getSqlState();
            }
        }
        return null;
    }

    @Test
    void shouldRunTheLifecycleAndTheEngineWithLeastPrivilegeRoles() {
        String app = db.newRole();
        String maintenance = db.newRole("pg_read_all_stats");
        QueueStorage ownerStorage = QueueStorage.create(owner);
        ownerStorage.grantApplicationRole(app).block(WAIT);
        ownerStorage.grantMaintenanceRole(maintenance).block(WAIT);
        ownerStorage.grantApplicationRole(app).block(WAIT); // idempotent
        for (String role : List.of(app, maintenance)) {
            assertThat(db.queryLong("SELECT count(*) FROM pg_roles WHERE rolname = ? AND (rolsuper OR rolcreaterole"
                    + " OR rolbypassrls)", role)).isZero();
            assertThat(db.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = ?"
                    + " AND pg_has_role(?, nspowner, 'MEMBER')", owner.schema(), role)).isZero();
        }
        assertThat(db.queryLong("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND c.relkind IN ('r', 'p') AND has_table_privilege(?, c.oid, 'TRUNCATE')",
                owner.schema(), app)).isZero();

        // The application role: a NEW queue (create_lane creates its lane and sequences), claim, complete.
        QueueStorage application = as(db.connectionFactoryAs(app));
        long id = application.enqueue(JobRequest.of("fresh-queue", "k", "{}")).block(WAIT);
        application.enqueue(JobRequest.of("fresh-queue", "k", "{}")).block(WAIT);
        List<Job> jobs = application.claim("fresh-queue", 2, "app-worker").collectList().block(WAIT);
        assertThat(jobs).extracting(Job::id).contains(id);
        for (Job job : jobs) {
            assertThat(application.heartbeat(job).block(WAIT)).isTrue();
            assertThat(application.complete(job).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        }
        assertThat(application.counts("fresh-queue").block(WAIT).completed()).isEqualTo(2);
        // ... and no TRUNCATE, no DDL.
        assertThat(sqlStateOf(app, "TRUNCATE " + Reliability.t(owner, "done_entries_0"))).isEqualTo("42501");
        assertThat(sqlStateOf(app, "CREATE TABLE " + Reliability.t(owner, "intruder") + " (i int)"))
                .isEqualTo("42501");

        // The maintenance role: rotate, roll up and prune slot 0 for real; the engine starts without warnings.
        QueueStorage maintain = as(db.connectionFactoryAs(maintenance));
        assertThat(maintain.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        // The lease slot holding the claimed runs goes first: a queue slot outlives the claimed runs of its jobs.
        assertThat(maintain.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(maintain.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        // The application role cannot prune the now sealed slot: its TRUNCATE is refused and rolled back.
        PruneOutcome refused = application.ringOperations().prune(Ring.QUEUE).block(WAIT);
        assertThat(refused).isInstanceOf(PruneOutcome.Failed.class);
        assertThat(((PruneOutcome.Failed) refused).sqlState()).isEqualTo("42501");
        assertThat(Reliability.rows(db, owner, "ready_entries_0")).isEqualTo(2);
        List<RollupOutcome> rollups = maintain.ringOperations().rollup(4, Duration.ofSeconds(5), 10_000).collectList().block(WAIT);
        assertThat(rollups).hasSize(1).first().isInstanceOf(RollupOutcome.Rolled.class);
        PruneOutcome pruned = maintain.ringOperations().prune(Ring.QUEUE).block(WAIT);
        assertThat(pruned).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(((PruneOutcome.Pruned) pruned).slot()).isZero();
        assertThat(maintain.ringOperations().foldTerminalCounts().block(WAIT)).isPositive();
        assertThat(application.counts("fresh-queue").block(WAIT).completed()).isEqualTo(2);

        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(maintain.config()), Reliability.engine().build());
        try {
            assertThat(engine.diagnose().block(WAIT)).isEmpty();
            engine.start().block(WAIT);
            await().atMost(WAIT).until(engine::isLeader);
        } finally {
            Reliability.stopQuietly(engine);
        }
        // The application role can still use the queue the maintenance role rotated.
        assertThat(application.enqueue(JobRequest.of("other-queue", "k", "{}")).block(WAIT)).isPositive();
    }

    @Test
    void shouldWarnAndFallBackToXidAgesWithoutReadAllStats() throws Exception {
        String app = db.newRole();
        String maintenance = db.newRole();
        QueueStorage ownerStorage = QueueStorage.create(owner);
        ownerStorage.grantApplicationRole(app).block(WAIT);
        ownerStorage.grantMaintenanceRole(maintenance).block(WAIT);
        QueueStorage application = as(db.connectionFactoryAs(app));
        QueueStorage maintain = as(db.connectionFactoryAs(maintenance));

        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(maintain.config()), Reliability.engine().build());
        List<StartupWarning> warnings = engine.diagnose().block(WAIT);
        assertThat(warnings).extracting(StartupWarning::kind)
                .containsExactly(StartupWarning.Kind.MISSING_READ_ALL_STATS);
        assertThat(warnings.get(0).message()).contains("pg_read_all_stats");

        // Another role's session idles in a transaction holding an xid; later transactions age it.
        try (Connection pin = db.openJdbc(); Statement statement = pin.createStatement()) {
            pin.setAutoCommit(false);
            statement.execute("SELECT txid_current()");
            for (int i = 0; i < 3; i++) {
                application.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            }
            for (Job job : application.claim("q", 3, "w").collectList().block(WAIT)) {
                application.complete(job).block(WAIT);
            }
            assertThat(maintain.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);

            // Its state and xact_start are hidden from the maintenance role; age(backend_xid) counts instead.
            assertThat(maintain.ringOperations().rollup(4, Duration.ofSeconds(5), 3).collectList().block(WAIT))
                    .containsExactly(new RollupOutcome.SkippedMvccPinned(0));
            pin.rollback();
        }
        assertThat(maintain.ringOperations().rollup(4, Duration.ofSeconds(5), 3).collectList().block(WAIT)).hasSize(1).first()
                .isInstanceOf(RollupOutcome.Rolled.class);
        assertThat(maintain.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(maintain.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(maintain.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
    }

    @Test
    void shouldRejectBadRoleNamesBeforeAnySql() {
        QueueStorage storage = QueueStorage.create(owner);
        long acl = db.queryLong("SELECT count(*) FROM pg_default_acl");
        for (String bad : new String[] {null, "", "pg_monitor", "public", "PUBLIC", "a\"; DROP SCHEMA x; --",
                "r'); DROP TABLE t; --", "a b", "rôle", "a".repeat(64), "x".repeat(10 * 1024)}) {
            assertThatIllegalArgumentException().isThrownBy(() -> storage.grantApplicationRole(bad))
                    .withMessageStartingWith("role must be an identifier");
            assertThatIllegalArgumentException().isThrownBy(() -> storage.grantMaintenanceRole(bad))
                    .withMessageStartingWith("role must be an identifier");
        }
        // A well-formed but unknown role is a database error; the transaction grants nothing.
        assertThat(sqlState(catchError(storage.grantApplicationRole("no_such_role_x")))).isEqualTo("42704");
        assertThat(db.queryLong("SELECT count(*) FROM pg_default_acl")).isEqualTo(acl);
    }

    private static Throwable catchError(Mono<Void> mono) {
        return mono.then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(WAIT);
    }

    private String sqlStateOf(String role, String sql) {
        return sqlState(catchError(Mono.usingWhen(db.connectionFactoryAs(role).create(),
                c -> Mono.from(c.createStatement(sql).execute()).flatMap(r -> Mono.from(r.getRowsUpdated())).then(),
                c -> c.close())));
    }
}
