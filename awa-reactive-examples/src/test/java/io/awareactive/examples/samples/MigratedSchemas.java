package io.awareactive.examples.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.core.AttemptResult;
import io.awareactive.core.AwaReactiveException;
import io.awareactive.core.Job;
import io.awareactive.core.JobRequest;
import io.awareactive.core.JobState;
import io.awareactive.core.MigrationScript;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * What the migration-tool tests share: a storage on small rings, and what the library must find in a schema a tool
 * applied the scripts to. Everything blocks on the test thread, never on a Reactor thread.
 */
final class MigratedSchemas {

    static final Duration WAIT = Duration.ofSeconds(60);

    private MigratedSchemas() {
    }

    /** One row of awa_reactive_schema_version. */
    record VersionRow(int version, String description, String checksum, OffsetDateTime appliedAt) {
    }

    /**
     * A storage on rings 4/2/2 (not the defaults, so a script rendered for other slot counts would be noticed).
     *
     * @param factory the connections
     * @param schema the awa schema
     * @return the storage
     */
    static QueueStorage storage(ConnectionFactory factory, String schema) {
        return QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(factory)
                .schema(schema)
                .queueSlotCount(4)
                .leaseSlotCount(2)
                .claimSlotCount(2)
                .build());
    }

    /**
     * The test database's JDBC URL without credentials, which the tools get separately.
     *
     * @param db the test database
     * @return {@code jdbc:postgresql://host:port/database}
     */
    static String jdbcUrl(TestDatabase db) {
        return "jdbc:postgresql://" + db.server().host() + ":" + db.server().port() + "/" + db.database();
    }

    static List<VersionRow> versionRows(TestDatabase db, String schema) {
        return db.query("SELECT version, description, checksum, applied_at FROM \"" + schema
                + "\".awa_reactive_schema_version ORDER BY version", rs -> new VersionRow(rs.getInt(1),
                rs.getString(2), rs.getString(3), rs.getObject(4, OffsetDateTime.class)));
    }

    static List<Integer> versions(TestDatabase db, String schema) {
        return db.query("SELECT version FROM \"" + schema + "\".awa_reactive_schema_version ORDER BY version",
                rs -> rs.getInt(1));
    }

    static long relationCount(TestDatabase db, String schema) {
        return db.queryLong("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ?", schema);
    }

    /**
     * Asserts that the schema is where the library expects it: {@code verifyInstalled()} passes, the version table
     * holds every version from 1 to the latest with this library's descriptions and checksums, and
     * {@code install()} then changes nothing (same version rows, applied_at included, and same relations).
     *
     * @param db the test database
     * @param storage the storage of the schema
     */
    static void assertAtLatestVersionAndInstallChangesNothing(TestDatabase db, QueueStorage storage) {
        String schema = storage.config().schema();
        storage.verifyInstalled().block(WAIT);

        List<VersionRow> rows = versionRows(db, schema);
        List<MigrationScript> scripts = storage.migrationScripts();
        assertThat(rows).extracting(VersionRow::version)
                .containsExactlyElementsOf(scripts.stream().map(MigrationScript::version).toList())
                .startsWith(1);
        assertThat(rows).extracting(VersionRow::description)
                .containsExactlyElementsOf(scripts.stream().map(MigrationScript::description).toList());
        assertThat(rows).extracting(VersionRow::checksum)
                .containsExactlyElementsOf(scripts.stream().map(MigrationScript::checksum).toList());
        long relations = relationCount(db, schema);

        storage.install().block(WAIT);

        assertThat(versionRows(db, schema)).isEqualTo(rows);
        assertThat(relationCount(db, schema)).isEqualTo(relations);
    }

    /**
     * Asserts that {@code verifyInstalled()} refuses the schema as older than this library.
     *
     * @param storage the storage of the schema
     * @param version the version the schema is at
     */
    static void assertVerifyRefusesVersion(QueueStorage storage, int version) {
        assertThatThrownBy(() -> storage.verifyInstalled().block(WAIT))
                .isInstanceOf(AwaReactiveException.class)
                .hasMessageContaining("is at version " + version + ", this library needs version "
                        + storage.migrationScripts().size());
    }

    /**
     * Asserts that a job goes through the schema: enqueued, claimed, completed.
     *
     * @param storage the storage
     */
    static void assertJobRunsToCompletion(QueueStorage storage) {
        long id = storage.enqueue(JobRequest.builder("migrations", "check").args("{\"n\":1}").build()).block(WAIT);

        List<Job> claimed = storage.claim("migrations", 10, "migration-test").collectList().block(WAIT);

        assertThat(claimed).extracting(Job::id).containsExactly(id);
        assertThat(storage.complete(claimed.get(0)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.status(id).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
    }
}
