package io.awareactive.maintenance;

import static io.awareactive.maintenance.Fixtures.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.maintenance.StartupWarning.Kind;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Design §9 and §12 scenario 23: startup diagnostics, each case in its own database or role, T = 10 ms. */
@AwaPostgresTest
final class DiagnosticsIntegrationTests {

    private final TestDatabase db;

    DiagnosticsIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    private static List<StartupWarning> diagnose(QueueStorageConfig storage) {
        return RingMaintenance.create(QueueStorage.create(storage), Fixtures.engine().build())
                .diagnose().block(WAIT);
    }

    private static List<Kind> kinds(List<StartupWarning> warnings) {
        return warnings.stream().map(StartupWarning::kind).toList();
    }

    @Test
    void shouldWarnWhenDeadlockTimeoutIsNotAboveTheLockTimeoutAndLogIt() {
        TestDatabase own = db.newDatabase();
        own.execute("ALTER DATABASE \"" + own.database() + "\" SET deadlock_timeout = '5ms'");

        try (Fixtures.LogCapture log = new Fixtures.LogCapture(Fixtures.ENGINE_LOGGER, Level.DEBUG)) {
            List<StartupWarning> warnings = diagnose(Fixtures.storage(own.connectionFactory(), own.schema()));

            assertThat(kinds(warnings)).containsExactly(Kind.LOCK_TIMEOUT_NOT_BELOW_DEADLOCK_TIMEOUT);
            assertThat(warnings.get(0).message()).contains("(10 ms)", "5 ms as the maintenance connection sees it",
                    "5 ms for new connections, set by ALTER DATABASE");
            assertThat(log.lines(Level.WARN)).anySatisfy(line -> assertThat(line).contains("deadlock_timeout"));
        }
    }

    @Test
    void shouldWarnWhenStatementTimeoutIsNotAboveTheLockTimeout() {
        TestDatabase own = db.newDatabase();
        own.execute("ALTER DATABASE \"" + own.database() + "\" SET statement_timeout = '10ms'");

        List<StartupWarning> warnings = diagnose(Fixtures.storage(own.connectionFactory(), own.schema()));

        assertThat(kinds(warnings)).containsExactly(Kind.LOCK_TIMEOUT_NOT_BELOW_STATEMENT_TIMEOUT);
        assertThat(warnings.get(0).message()).contains("statement_timeout (10 ms as the maintenance connection sees"
                + " it; 10 ms for new connections, set by ALTER DATABASE)");
    }

    @Test
    void shouldNotWarnForADisabledStatementTimeoutOrDefaults() {
        TestDatabase own = db.newDatabase();
        own.execute("ALTER DATABASE \"" + own.database() + "\" SET statement_timeout = 0");

        assertThat(diagnose(Fixtures.storage(own.connectionFactory(), own.schema()))).isEmpty();
        assertThat(diagnose(Fixtures.storage(db.connectionFactory(), db.schema()))).isEmpty();
    }

    @Test
    void shouldLetTheRoleBeatTheDatabaseAndRoleInDatabaseBeatBoth() {
        TestDatabase own = db.newDatabase();
        String role = own.newRole("pg_read_all_stats");
        own.execute("ALTER DATABASE \"" + own.database() + "\" SET statement_timeout = '10ms'",
                "ALTER ROLE \"" + role + "\" SET statement_timeout = 0");
        QueueStorageConfig storage = Fixtures.storage(own.connectionFactoryAs(role), own.schema());

        assertThat(diagnose(storage)).isEmpty();

        own.execute("ALTER ROLE \"" + role + "\" IN DATABASE \"" + own.database() + "\" SET statement_timeout = '5ms'");
        List<StartupWarning> warnings = diagnose(storage);
        assertThat(kinds(warnings)).containsExactly(Kind.LOCK_TIMEOUT_NOT_BELOW_STATEMENT_TIMEOUT);
        assertThat(warnings.get(0).message()).contains("5 ms for new connections, set by ALTER ROLE ... IN DATABASE");
    }

    @Test
    void shouldWarnWhenTheRoleCannotReadOtherSessionsActivity() {
        String role = db.newRole();

        List<StartupWarning> warnings = diagnose(Fixtures.storage(db.connectionFactoryAs(role), db.schema()));

        assertThat(kinds(warnings)).containsExactly(Kind.MISSING_READ_ALL_STATS);
        String monitor = db.newRole("pg_monitor");
        assertThat(diagnose(Fixtures.storage(db.connectionFactoryAs(monitor), db.schema()))).isEmpty();
    }

    @Test
    void shouldLogAFailedReadAtDebugOnlyAndWarnNothing() {
        QueueStorageConfig unreachable = Fixtures.storage(db.connectionFactory(b -> b.database("no_such_database")),
                db.schema());

        try (Fixtures.LogCapture log = new Fixtures.LogCapture("io.awareactive.maintenance", Level.DEBUG)) {
            assertThat(diagnose(unreachable)).isEmpty();

            assertThat(log.lines(Level.WARN)).isEmpty();
            assertThat(log.lines(Level.DEBUG)).anySatisfy(line -> assertThat(line).contains("startup diagnostics"));
        }
    }

    @Test
    void shouldRunTheDiagnosticsAtStart() {
        TestDatabase own = db.newDatabase();
        QueueStorageConfig storage = Fixtures.installed(own, own.connectionFactory());
        own.execute("ALTER DATABASE \"" + own.database() + "\" SET statement_timeout = '10ms'");
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Fixtures.engine().build());

        try (Fixtures.LogCapture log = new Fixtures.LogCapture(Fixtures.ENGINE_LOGGER, Level.INFO)) {
            engine.start().block(WAIT);
            assertThat(log.lines(Level.WARN)).anySatisfy(line -> assertThat(line)
                    .startsWith("startup check: the prune lock timeout (10 ms) is not below statement_timeout"));
        } finally {
            engine.stop(Duration.ofSeconds(5)).block(WAIT);
        }
    }
}
