package io.awareactive.examples.samples;

import static io.awareactive.examples.samples.MigratedSchemas.WAIT;
import static io.awareactive.examples.samples.MigratedSchemas.assertAtLatestVersionAndInstallChangesNothing;
import static io.awareactive.examples.samples.MigratedSchemas.assertJobRunsToCompletion;
import static io.awareactive.examples.samples.MigratedSchemas.assertVerifyRefusesVersion;
import static io.awareactive.examples.samples.MigratedSchemas.storage;
import static io.awareactive.examples.samples.MigratedSchemas.versionRows;
import static io.awareactive.examples.samples.MigratedSchemas.versions;
import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.MigrationScript;
import io.awareactive.core.QueueStorage;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@AwaPostgresTest
final class LiquibaseMigrationsIntegrationTests {

    private final TestDatabase db;

    LiquibaseMigrationsIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    /** The application's schema, where DATABASECHANGELOG lives: one per test, so no test sees another's runs. */
    private String appSchema() {
        String schema = db.newSchemaName();
        db.execute("CREATE SCHEMA \"" + schema + "\"");
        return schema;
    }

    private void update(String appSchema, Path root, String changelog) {
        try (Connection jdbc = db.openJdbc()) {
            LiquibaseMigrations.update(jdbc, appSchema, root, changelog);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The changeSets Liquibase recorded, in execution order, as {@code id:exectype}. */
    private List<String> changelogRows(String appSchema) {
        return db.query("SELECT id || ':' || exectype FROM \"" + appSchema + "\".databasechangelog"
                + " ORDER BY orderexecuted, dateexecuted, id", rs -> rs.getString(1));
    }

    private static List<String> awaChangeSets(List<MigrationScript> scripts, String exectype) {
        return scripts.stream().map(script -> "awa-reactive-" + script.version() + ":" + exectype).toList();
    }

    @Test
    void shouldApplyEveryScriptToAFreshSchemaSoThatTheLibraryAgrees(@TempDir Path folder) {
        String appSchema = appSchema();
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);

        LiquibaseMigrations.writeChangelog(storage.migrationScripts(), folder);
        update(appSchema, folder, LiquibaseMigrations.CHANGELOG);

        assertThat(changelogRows(appSchema)).containsExactlyElementsOf(
                awaChangeSets(storage.migrationScripts(), "EXECUTED"));
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
        update(appSchema, folder, LiquibaseMigrations.CHANGELOG);
        assertThat(changelogRows(appSchema)).as("after a second update").containsExactlyElementsOf(
                awaChangeSets(storage.migrationScripts(), "EXECUTED"));
        assertJobRunsToCompletion(storage);
    }

    @Test
    void shouldUpgradeASchemaAtVersionOneToTheLatestVersion(@TempDir Path folder) {
        String appSchema = appSchema();
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);
        List<MigrationScript> scripts = storage.migrationScripts();
        // The previous release shipped script 1 only: its changelog had one changeSet.
        LiquibaseMigrations.writeChangelog(scripts.subList(0, 1), folder);
        update(appSchema, folder, LiquibaseMigrations.CHANGELOG);
        assertThat(versions(db, schema)).containsExactly(1);
        assertVerifyRefusesVersion(storage, 1);

        LiquibaseMigrations.writeChangelog(scripts, folder);
        update(appSchema, folder, LiquibaseMigrations.CHANGELOG);

        assertThat(changelogRows(appSchema)).containsExactlyElementsOf(awaChangeSets(scripts, "EXECUTED"));
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
        assertJobRunsToCompletion(storage);
    }

    @Test
    void shouldRunFromTheApplicationsMasterChangelog(@TempDir Path root) throws IOException {
        String appSchema = appSchema();
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);
        try (InputStream master = Objects.requireNonNull(
                getClass().getResourceAsStream("db.changelog-master.xml"), "db.changelog-master.xml")) {
            Files.copy(master, root.resolve("db.changelog-master.xml"));
        }

        LiquibaseMigrations.writeChangelog(storage.migrationScripts(), root.resolve("awa-reactive"));
        update(appSchema, root, "db.changelog-master.xml");

        List<String> expected = new ArrayList<>(awaChangeSets(storage.migrationScripts(), "EXECUTED"));
        expected.add("orders-1:EXECUTED");
        assertThat(changelogRows(appSchema)).containsExactlyElementsOf(expected);
        // logicalFilePath: the awa changeSets are recorded under one name, wherever the changelog lies.
        assertThat(db.query("SELECT DISTINCT filename FROM \"" + appSchema + "\".databasechangelog"
                + " WHERE author = 'awa-reactive'", rs -> rs.getString(1))).containsExactly("awa-reactive");
        assertThat(db.queryLong("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?"
                + " AND table_name = 'orders'", appSchema)).isEqualTo(1);
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
    }

    @Test
    void shouldTakeOverASchemaThatInstallCreated(@TempDir Path folder) {
        String appSchema = appSchema();
        String schema = db.newSchemaName();
        QueueStorage storage = storage(db.connectionFactory(), schema);
        storage.install().block(WAIT);
        List<MigratedSchemas.VersionRow> installed = versionRows(db, schema);

        try (Connection jdbc = db.openJdbc()) {
            LiquibaseMigrations.takeOver(storage, jdbc, appSchema, folder);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        update(appSchema, folder, LiquibaseMigrations.CHANGELOG);

        // changelog-sync recorded every changeSet without running it; the update after it ran nothing.
        assertThat(changelogRows(appSchema)).containsExactlyElementsOf(
                awaChangeSets(storage.migrationScripts(), "EXECUTED"));
        assertThat(versionRows(db, schema)).isEqualTo(installed);
        assertAtLatestVersionAndInstallChangesNothing(db, storage);
    }
}
