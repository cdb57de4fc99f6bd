package io.awareactive.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes, with {@code INSERT ... SELECT}, the rows the lifecycle leaves behind for {@code n} jobs enqueued in batches
 * of {@code enqueueBatch}, claimed in batches of {@code claimBatch} and each batch completed together
 * ({@code completeAll}), all while queue slot 0, lease slot 0 and claim slot 0 were current (generation 0), in lane
 * ({@value QueueSystem#QUEUE}, 2, 0): per job a ready row; per enqueue batch a segment; per claim batch a claim range,
 * a claimed run's row (schema step 18), the run's closure (step 19) and a count delta; the lane's sequences at
 * {@code n}. The same columns as the lifecycle's server functions write since schema step 19 (no receipt, no lease, no
 * done row for a completed job); the
 * lease tallies hold what the claims' and completions' upserts leave, one row counting nothing.
 * {@code SlotFixtureIntegrationTests} checks that the families hold the same row counts, and the tallies the same
 * sums, as a slot the real lifecycle filled.
 */
final class SlotFixture {

    private SlotFixture() {
    }

    static void fill(BenchDatabase database, String schemaName, int n, int enqueueBatch, int claimBatch,
            String payload) {
        String s = "\"" + schemaName + "\"";
        String args = "'" + payload.replace("'", "''") + "'::jsonb";
        List<String> sql = new ArrayList<>();
        sql.add("SELECT " + s + ".create_lane('" + QueueSystem.QUEUE + "', 2::smallint, 0)");
        sql.add("INSERT INTO " + s + ".ready_entries (ready_slot, queue, priority, enqueue_shard, lane_seq,"
                + " ready_generation, job_id, kind, args, attempt, max_attempts, timeout_ms)"
                + " SELECT 0, 'bench', 2, 0, g, 0, g, 'bench.noop', " + args + ", 1, 25, NULL"
                + " FROM generate_series(1, " + n + ") g");
        sql.add("INSERT INTO " + s + ".ready_segments (ready_slot, queue, priority, enqueue_shard, first_lane_seq,"
                + " next_lane_seq, ready_generation)"
                + " SELECT 0, 'bench', 2, 0, b * " + enqueueBatch + " + 1, least((b + 1) * " + enqueueBatch + ", "
                + n + ") + 1, 0 FROM generate_series(0, " + ((n - 1) / enqueueBatch) + ") b");
        // Claim batch b (from 0) is run b + 1; its job g sits at place (g - 1) % claimBatch.
        String batch = "(g - 1) / " + claimBatch;
        sql.add("INSERT INTO " + s + ".lease_runs (lease_slot, run_id, ready_slot, ready_generation, queue, priority,"
                + " enqueue_shard, worker_id, heartbeat_at, job_ids, lane_seqs, attempts, max_attempts, kinds,"
                + " deadlines)"
                + " SELECT 0, " + batch + " + 1, 0, 0, 'bench', 2, 0, 'bench-worker-0', now(), array_agg(g ORDER BY g),"
                + " array_agg(g ORDER BY g), array_agg(1), array_agg(25), array_agg('bench.noop'::text),"
                + " array_agg(NULL::timestamptz) FROM generate_series(1, " + n + ") g GROUP BY " + batch);
        sql.add("INSERT INTO " + s + ".lease_tallies (lease_slot, ready_slot, queue, backend, live)"
                + " VALUES (0, 0, 'bench', 0, 0)");
        sql.add("INSERT INTO " + s + ".ready_claim_ranges (ready_slot, queue, priority, enqueue_shard,"
                + " first_lane_seq, next_lane_seq)"
                + " SELECT 0, 'bench', 2, 0, b * " + claimBatch + " + 1, least((b + 1) * " + claimBatch + ", " + n
                + ") + 1 FROM generate_series(0, " + ((n - 1) / claimBatch) + ") b");
        // Completion (schema step 19): one closure per run, naming the places of its jobs.
        sql.add("INSERT INTO " + s + ".lease_run_closures (lease_slot, run_id, places)"
                + " SELECT 0, " + batch + " + 1, array_agg((g - 1) % " + claimBatch + " ORDER BY g)"
                + " FROM generate_series(1, " + n + ") g GROUP BY " + batch);
        // One delta per completed batch (a claimed batch completed together, as completeAll does).
        sql.add("INSERT INTO " + s + ".queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority,"
                + " state, delta) SELECT 0, 0, 'bench', 2, 'completed', least((b + 1) * " + claimBatch + ", " + n
                + ") - b * " + claimBatch + " FROM generate_series(0, " + ((n - 1) / claimBatch) + ") b");
        sql.add("SELECT setval(enqueue_seq, " + n + "), setval(claim_seq, " + n + ") FROM " + s + ".queue_lanes");
        sql.add("SELECT setval('" + s + ".job_id_seq', " + n + "), setval('" + s + ".receipt_id_seq', "
                + ((n - 1) / claimBatch + 1) + ")");
        database.execute(sql.toArray(String[]::new));
    }

    /** Switches autovacuum off on every table of the schema, so it never runs before or inside a measurement. */
    static void disableAutovacuum(BenchDatabase database, String schemaName) {
        database.execute(tables(database, schemaName).stream()
                .map(table -> "ALTER TABLE \"" + schemaName + "\"." + table + " SET (autovacuum_enabled = false)")
                .toArray(String[]::new));
    }

    /**
     * Vacuums every table of the schema (hint bits, visibility map and statistics as in a steady state) except the
     * lease children, whose dead tuples are part of what the lease prune reclaims.
     */
    static void vacuumExceptLeases(BenchDatabase database, String schemaName) {
        database.execute(tables(database, schemaName).stream()
                .filter(table -> !table.startsWith("leases"))
                .map(table -> "VACUUM (ANALYZE) \"" + schemaName + "\"." + table)
                .toArray(String[]::new));
    }

    /** The tables with storage (ring children and control tables) of a schema. */
    static List<String> tables(BenchDatabase database, String schemaName) {
        List<String> tables = new ArrayList<>();
        try (Connection connection = database.jdbc(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT c.relname FROM pg_class c JOIN pg_namespace n"
                        + " ON n.oid = c.relnamespace WHERE n.nspname = '" + schemaName + "' AND c.relkind = 'r'"
                        + " ORDER BY c.relname")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot list the tables of " + schemaName + ": " + e.getMessage(), e);
        }
        return tables;
    }

    /** Rows per family in queue slot 0 and claim slot 0, then the slot-0 tallies (for the fixture check). */
    static List<Long> slotZeroCounts(BenchDatabase database, String schemaName) {
        String s = "\"" + schemaName + "\"";
        List<Long> counts = new ArrayList<>();
        for (String child : List.of("ready_entries_0", "ready_segments_0", "ready_claim_ranges_0", "done_entries_0",
                "queue_terminal_count_deltas_0", "lease_claims_0", "lease_claim_closures_0", "leases_0",
                "lease_runs_0", "lease_run_closures_0")) {
            counts.add(database.queryLong("SELECT count(*) FROM " + s + "." + child));
        }
        counts.add(database.queryLong("SELECT coalesce(sum(live), 0) FROM " + s + ".lease_tallies_0"));
        counts.add(database.queryLong("SELECT coalesce(sum(opened), 0) FROM " + s + ".claim_tallies_0"));
        counts.add(database.queryLong("SELECT coalesce(sum(closed), 0) FROM " + s + ".claim_tallies_0"));
        return counts;
    }
}
