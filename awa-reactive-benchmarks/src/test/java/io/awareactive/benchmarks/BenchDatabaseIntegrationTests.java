package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's own DDL costs no measured WAL: after {@link BenchDatabase#settleCatalogs(Duration)}, reading the
 * catalogs that an install and a dropped schema change prunes nothing. And {@link BenchDatabase#preallocateWal(long)}
 * leaves WAL segments for reuse.
 */
@AwaPostgresTest
final class BenchDatabaseIntegrationTests {

    /** The catalogs a schema of tables, indexes and functions adds rows to; a drop leaves them dead. */
    private static final List<String> CATALOGS = List.of("pg_class", "pg_attribute", "pg_depend", "pg_type",
            "pg_index", "pg_proc", "pg_statistic");
    private static final Pattern WAL_RECORDS = Pattern.compile("\"WAL Records\": (\\d+)");
    private static final String INSERT_POSITION = "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint";

    @Test
    void shouldLeaveNoDeadCatalogRowsForAMeasuredStatementToPrune(TestDatabase db) throws SQLException {
        try (BenchDatabase database = new BenchDatabase(db.server(), db.database(), false, "the test server")) {
            // Without the settle, the first reads of the catalogs after a drop prune them and write WAL: the check
            // below can fail.
            database.dropSchema(createSchemaOfTables(database, db.newSchemaName()));
            assertThat(walRecordsOfCatalogReads(database)).isPositive();

            database.dropSchema(createSchemaOfTables(database, db.newSchemaName()));
            database.settleCatalogs(Duration.ZERO);
            assertThat(walRecordsOfCatalogReads(database)).isZero();
        }
    }

    @Test
    void shouldPassThroughNewWalSegmentsThenCheckpointSoThatTheyAreReused(TestDatabase db) {
        try (BenchDatabase database = new BenchDatabase(db.server(), db.database(), false, "the test server")) {
            long segmentBytes = database.queryLong("SELECT setting::bigint FROM pg_settings"
                    + " WHERE name = 'wal_segment_size'");
            long before = database.queryLong(INSERT_POSITION);

            database.preallocateWal(4);

            assertThat(database.queryLong(INSERT_POSITION) - before).as("WAL written through four segments")
                    .isGreaterThanOrEqualTo(3 * segmentBytes);
            long redo = database.queryLong("SELECT pg_wal_lsn_diff((pg_control_checkpoint()).redo_lsn, '0/0')::bigint");
            assertThat(redo - before).as("a checkpoint after them, which recycles them")
                    .isGreaterThanOrEqualTo(3 * segmentBytes);
            assertThat(database.queryLong("SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'"
                    + " AND name > pg_walfile_name(pg_current_wal_insert_lsn())"))
                    .as("segments renamed for reuse ahead of the insert position").isPositive();
        }
    }

    private static String createSchemaOfTables(BenchDatabase database, String schema) {
        database.execute("CREATE SCHEMA \"" + schema + "\"");
        for (int i = 0; i < 40; i++) {
            database.execute("CREATE TABLE \"" + schema + "\".t" + i + " (id bigint PRIMARY KEY, a text, b jsonb,"
                    + " c timestamptz, d int)", "CREATE FUNCTION \"" + schema + "\".f" + i
                    + "() RETURNS int LANGUAGE sql AS 'SELECT " + i + "'");
        }
        return schema;
    }

    /** WAL records written by one sequential read of each catalog, from {@code EXPLAIN (ANALYZE, WAL)}. */
    private static long walRecordsOfCatalogReads(BenchDatabase database) throws SQLException {
        long records = 0;
        try (Connection connection = database.jdbc(); Statement statement = connection.createStatement()) {
            // Reads of the heap, as a measured statement's catalog lookups are; an index-only scan would prune nothing.
            statement.execute("SET enable_indexscan = off");
            statement.execute("SET enable_indexonlyscan = off");
            statement.execute("SET enable_bitmapscan = off");
            for (String catalog : CATALOGS) {
                try (ResultSet rs = statement.executeQuery("EXPLAIN (ANALYZE, WAL, FORMAT JSON) SELECT count(*) FROM"
                        + " pg_catalog." + catalog)) {
                    rs.next();
                    Matcher top = WAL_RECORDS.matcher(rs.getString(1));
                    assertThat(top.find()).as("EXPLAIN reports WAL records").isTrue();
                    records += Long.parseLong(top.group(1));
                }
            }
        }
        return records;
    }
}
