package io.awareactive.examples.samples;

import static io.awareactive.examples.samples.MigratedSchemas.WAIT;
import static io.awareactive.examples.samples.MigratedSchemas.assertAtLatestVersionAndInstallChangesNothing;
import static io.awareactive.examples.samples.MigratedSchemas.assertJobRunsToCompletion;
import static io.awareactive.examples.samples.MigratedSchemas.assertVerifyRefusesVersion;
import static io.awareactive.examples.samples.MigratedSchemas.jdbcUrl;
import static io.awareactive.examples.samples.MigratedSchemas.storage;
import static io.awareactive.examples.samples.MigratedSchemas.versionRows;
import static io.awareactive.examples.samples.MigratedSchemas.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.core.MigrationScript;
import io.awareactive.core.QueueStorage;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@AwaPostgresTest
final class FlywayMigrationsIntegrationTests {

    /** The history table the sample configures. */
    private static final String HISTORY = "awa_reactive_flyway_history";

    private final TestDatabase db;

    FlywayMigrationsIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    private MigrateResult migrate(QueueStorage storage, Path folder) {
        return FlywayMigrations.migrate(storage, folder, jdbcUrl(db), db.server().username(), db.server().password());
    }

    private MigrateResult migrate(String schema, Path folder) {
        return FlywayMigrations.configure(schema, folder, jdbcUrl(db), db.server().username(),
                db.server().password()).load().migrate();
    }

    /** The versions Flyway applied from scripts, in order, and whether each succeeded. */
    private List<String> flywayHistory(String schema, String table) {
        return db.query("SELECT version || ':' || success FROM \"" + schema + "\"." + table
                + " WHERE type = 'SQL' ORDER BY installed_rank", rs -> rs.getString(1));
    }

    private static List<String> allSucceeded(List<MigrationScript> scripts) {
        return scripts.stream().map(script -> script.version() + ":true").toList();
    }

    @Test
    void shouldApplyEveryScriptToAFreshSchemaSoThatTheLibraryAgrees(@TempDir Path folder) {
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);

        MigrateResult result = migrate(storage, folder);

        assertThat(result.success).isTrue();
        assertThat(result.migrationsExecuted).isEqualTo(storage.migrationScripts().size());
        assertThat(flywayHistory(schema, HISTORY))
                .containsExactlyElementsOf(allSucceeded(storage.migrationScripts()));
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
        assertThat(migrate(storage, folder).migrationsExecuted).as("a second Flyway run").isZero();
        assertJobRunsToCompletion(storage);
    }

    @Test
    void shouldUpgradeASchemaAtVersionOneToTheLatestVersion(@TempDir Path folder) {
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);
        List<MigrationScript> scripts = storage.migrationScripts();
        // The previous release shipped script 1 only: its folder held V1__rings.sql.
        MigrationFiles.write(scripts.subList(0, 1), folder);
        assertThat(migrate(schema, folder).migrationsExecuted).isEqualTo(1);
        assertThat(versions(db, schema)).containsExactly(1);
        assertVerifyRefusesVersion(storage, 1);

        MigrateResult upgrade = migrate(storage, folder);

        assertThat(upgrade.migrationsExecuted).isEqualTo(scripts.size() - 1);
        assertThat(flywayHistory(schema, HISTORY))
                .containsExactlyElementsOf(allSucceeded(scripts));
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
        assertJobRunsToCompletion(storage);
    }

    @Test
    void shouldKeepItsHistoryApartFromTheApplicationsOwnMigrations(@TempDir Path root) throws IOException {
        String appSchema = db.newSchemaName();
        Path appFolder = Files.createDirectories(root.resolve("app"));
        Files.writeString(appFolder.resolve("V1__orders.sql"), "CREATE TABLE orders (id bigint PRIMARY KEY);\n");
        Files.writeString(appFolder.resolve("V2__order_notes.sql"), "ALTER TABLE orders ADD COLUMN note text;\n");
        Flyway app = Flyway.configure()
                .dataSource(jdbcUrl(db), db.server().username(), db.server().password())
                .locations("filesystem:" + appFolder)
                .schemas(appSchema)
                .load();
        app.migrate();
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);

        migrate(storage, root.resolve("awa"));
        MigrateResult appAgain = app.migrate();

        // Both have a V1 and a V2, each in its own history: neither run sees the other's.
        assertThat(appAgain.migrationsExecuted).isZero();
        assertThat(flywayHistory(appSchema, "flyway_schema_history")).containsExactly("1:true", "2:true");
        assertThat(flywayHistory(schema, HISTORY))
                .containsExactlyElementsOf(allSucceeded(storage.migrationScripts()));
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
    }

    @Test
    void shouldRefuseASchemaThatInstallCreatedUntilItIsBaselined(@TempDir Path folder) {
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);
        storage.install().block(WAIT);
        List<MigratedSchemas.VersionRow> installed = versionRows(db, schema);

        // Without a baseline Flyway does not guess which steps ran: it refuses the non-empty schema.
        MigrationFiles.write(storage.migrationScripts(), folder);
        assertThatThrownBy(() -> migrate(schema, folder)).isInstanceOf(FlywayException.class)
                .hasMessageContaining("non-empty schema");

        FlywayMigrations.takeOver(storage, folder, jdbcUrl(db), db.server().username(), db.server().password());

        assertThat(migrate(storage, folder).migrationsExecuted).isZero();
        assertThat(flywayHistory(schema, HISTORY)).isEmpty();
        assertThat(db.query("SELECT version FROM \"" + schema + "\"." + HISTORY
                + " WHERE type = 'BASELINE'", rs -> rs.getString(1)))
                .containsExactly(String.valueOf(storage.migrationScripts().size()));
        assertThat(versionRows(db, schema)).isEqualTo(installed);
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
    }

    @Test
    void shouldLetARoleThatMayCreateSchemasApplyThemAndGrantTheOtherRoles(@TempDir Path folder) {
        String owner = db.newRole();
        db.execute("GRANT CREATE ON DATABASE \"" + db.database() + "\" TO \"" + owner + "\"");
        String app = db.newRole();
        String maintenance = db.newRole();
        String schema = db.newSchemaName();
        QueueStorage asOwner = storage(db.connectionFactoryAs(owner), schema);

        FlywayMigrations.migrate(asOwner, folder, jdbcUrl(db), owner, db.rolePassword(owner));
        SchemaGrants.grant(asOwner, app, maintenance);

        assertThat(db.query("SELECT DISTINCT pg_get_userbyid(c.relowner) FROM pg_class c"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?", rs -> rs.getString(1),
                schema)).containsExactly(owner);
        assertThat(db.query("SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = ?",
                rs -> rs.getString(1), schema)).containsExactly(owner);
        String child = "\"" + schema + "\".ready_entries_0";
        assertThat(db.query("SELECT has_table_privilege(?, ?, 'TRUNCATE'), has_table_privilege(?, ?, 'TRUNCATE')",
                rs -> List.of(rs.getBoolean(1), rs.getBoolean(2)), app, child, maintenance, child))
                .containsExactly(List.of(false, true));
        // The application role has no DDL right: a new queue's lane comes from create_lane (SECURITY DEFINER).
        QueueStorage asApp = storage(db.connectionFactoryAs(app), schema);
        asApp.verifyInstalled().block(WAIT);
        assertJobRunsToCompletion(asApp);
        assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".queue_lanes")).isEqualTo(1);
    }

    @Test
    void shouldNeedCreateOnTheDatabaseEvenWhenTheRoleOwnsTheEmptySchema(@TempDir Path folder) {
        String owner = db.newRole();
        String schema = db.newSchemaName();
        db.execute("CREATE SCHEMA \"" + schema + "\" AUTHORIZATION \"" + owner + "\"");
        QueueStorage asOwner = storage(db.connectionFactoryAs(owner), schema);

        // Step 1 opens with CREATE SCHEMA IF NOT EXISTS, and PostgreSQL checks CREATE on the database first.
        assertThatThrownBy(() -> FlywayMigrations.migrate(asOwner, folder, jdbcUrl(db), owner,
                db.rolePassword(owner)))
                .isInstanceOf(FlywayException.class)
                .hasMessageContaining("V1__rings.sql")
                .hasMessageContaining("permission denied for database " + db.database());
        assertThat(db.queryLong("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?"
                + " AND table_name = 'awa_reactive_schema_version'", schema)).isZero();

        // Granted for the migration only: the owner keeps the objects once the grant is revoked.
        db.execute("GRANT CREATE ON DATABASE \"" + db.database() + "\" TO \"" + owner + "\"");
        FlywayMigrations.migrate(asOwner, folder, jdbcUrl(db), owner, db.rolePassword(owner));
        db.execute("REVOKE CREATE ON DATABASE \"" + db.database() + "\" FROM \"" + owner + "\"");

        assertAtLatestVersionAndInstallChangesNothing(db, asOwner);
        assertJobRunsToCompletion(asOwner);
    }
}
