package io.awareactive.core;

import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Writes ring rows over JDBC exactly as the job lifecycle writes them (same columns, slots and sequences), for prune
 * and rollup fixtures: one lane {@code ('q', 2, 0)}, jobs enqueued, claimed and completed row by row.
 */
final class RingRows {

    static final String QUEUE = "q";

    private final TestDatabase db;
    private final String schema;

    RingRows(TestDatabase db, String schema) {
        this.db = db;
        this.schema = schema;
        db.execute("SELECT \"" + schema + "\".create_lane('" + QUEUE + "', 2::smallint, 0)");
    }

    /** A job's coordinates, as the lifecycle's claim returns them. */
    record Job(long jobId, long laneSeq, int readySlot, long readyGeneration, int leaseSlot, int claimSlot,
            long receiptId) {
    }

    String t(String table) {
        return "\"" + schema + "\"." + table;
    }

    /** Appends a ledger row directly, as a rotation would: {@code (1, 1)} makes slot 0 the prune target. */
    void ledger(Ring ring, long generation, int slot) {
        db.execute("INSERT INTO " + t(ring.label() + "_ring_rotations") + " (generation, slot) VALUES (" + generation
                + ", " + slot + ")");
    }

    private String lane() {
        return " FROM " + t("queue_lanes") + " WHERE queue = '" + QUEUE + "' AND priority = 2 AND enqueue_shard = 0";
    }

    /** The SQL of an immediate enqueue: reserves the next lane_seq, writes the ready row and its segment. */
    String enqueueSql(int slot, long generation, long jobId) {
        return "WITH seq AS (SELECT nextval(enqueue_seq) AS s" + lane() + "), e AS (INSERT INTO " + t("ready_entries")
                + " (ready_slot, queue, priority, enqueue_shard, lane_seq, ready_generation, job_id, kind, args,"
                + " attempt, max_attempts) SELECT " + slot + ", '" + QUEUE + "', 2, 0, s, " + generation + ", " + jobId
                + ", 'k', '{}', 1, 3 FROM seq) INSERT INTO " + t("ready_segments") + " (ready_slot, queue, priority,"
                + " enqueue_shard, first_lane_seq, next_lane_seq, ready_generation) SELECT " + slot + ", '" + QUEUE
                + "', 2, 0, s, s + 1, " + generation + " FROM seq";
    }

    /** Enqueues one job into a queue slot; returns its lane_seq. */
    long enqueue(int slot, long generation, long jobId) {
        db.execute(enqueueSql(slot, generation, jobId));
        return db.queryLong("SELECT pg_sequence_last_value(enqueue_seq)" + lane());
    }

    /**
     * Claims an enqueued job: a range row in its ready slot, a lease in {@code leaseSlot}, a receipt in
     * {@code claimSlot}, then the after-commit cursor advance.
     */
    Job claim(int readySlot, long readyGeneration, long jobId, long laneSeq, int leaseSlot, int claimSlot) {
        long receiptId = db.queryLong("SELECT nextval('" + t("receipt_id_seq") + "')");
        db.execute("INSERT INTO " + t("ready_claim_ranges") + " (ready_slot, queue, priority, enqueue_shard,"
                        + " first_lane_seq, next_lane_seq) VALUES (" + readySlot + ", '" + QUEUE + "', 2, 0, " + laneSeq
                        + ", " + (laneSeq + 1) + ")",
                "INSERT INTO " + t("leases") + " (lease_slot, job_id, run_lease, lease_generation, ready_slot,"
                        + " ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq, attempt,"
                        + " max_attempts, worker_id, heartbeat_at) VALUES (" + leaseSlot + ", " + jobId + ", "
                        + receiptId + ", 0, " + readySlot + ", " + readyGeneration + ", " + claimSlot + ", " + receiptId
                        + ", '" + QUEUE + "', 2, 0, " + laneSeq + ", 1, 3, 'w', now())",
                receiptSql(claimSlot, receiptId, jobId, readySlot, readyGeneration, leaseSlot),
                "SELECT setval(claim_seq, " + laneSeq + ")" + lane());
        return new Job(jobId, laneSeq, readySlot, readyGeneration, leaseSlot, claimSlot, receiptId);
    }

    /** Enqueues and claims a job: it is running. */
    Job running(int readySlot, long readyGeneration, long jobId, int leaseSlot, int claimSlot) {
        long laneSeq = enqueue(readySlot, readyGeneration, jobId);
        return claim(readySlot, readyGeneration, jobId, laneSeq, leaseSlot, claimSlot);
    }

    String receiptSql(int claimSlot, long receiptId, long jobId, int readySlot, long readyGeneration, int leaseSlot) {
        return "INSERT INTO " + t("lease_claims") + " (claim_slot, receipt_id, claim_generation, job_id, run_lease,"
                + " ready_slot, ready_generation, lease_slot) VALUES (" + claimSlot + ", " + receiptId + ", 0, " + jobId
                + ", " + receiptId + ", " + readySlot + ", " + readyGeneration + ", " + leaseSlot + ")";
    }

    /** Completes a running job: deletes the lease, closes the receipt, writes the done row and its count delta. */
    void complete(Job job) {
        db.execute("DELETE FROM " + t("leases_" + job.leaseSlot()) + " WHERE job_id = " + job.jobId()
                        + " AND run_lease = " + job.receiptId(),
                closureSql(job.claimSlot(), job.receiptId(), job.jobId(), job.readySlot(), "completed"),
                "INSERT INTO " + t("done_entries") + " (ready_slot, job_id, run_lease, ready_generation, queue,"
                        + " priority, kind, state, attempt) VALUES (" + job.readySlot() + ", " + job.jobId() + ", "
                        + job.receiptId() + ", " + job.readyGeneration() + ", '" + QUEUE + "', 2, 'k', 'completed', 1)",
                deltaSql(job.readySlot(), job.readyGeneration(), "completed"));
    }

    String closureSql(int claimSlot, long receiptId, long jobId, int readySlot, String outcome) {
        return "INSERT INTO " + t("lease_claim_closures") + " (claim_slot, receipt_id, job_id, run_lease, ready_slot,"
                + " ready_generation, outcome) VALUES (" + claimSlot + ", " + receiptId + ", " + jobId + ", "
                + receiptId + ", " + readySlot + ", 0, '" + outcome + "')";
    }

    String deltaSql(int readySlot, long readyGeneration, String state) {
        return "INSERT INTO " + t("queue_terminal_count_deltas") + " (ready_slot, ready_generation, queue, priority,"
                + " state, delta) VALUES (" + readySlot + ", " + readyGeneration + ", '" + QUEUE + "', 2, '" + state
                + "', 1)";
    }

    /** A terminal job in a queue slot without ring history elsewhere: a done row and its delta. */
    void done(int readySlot, long readyGeneration, long jobId, String state) {
        db.execute("INSERT INTO " + t("done_entries") + " (ready_slot, job_id, run_lease, ready_generation, queue,"
                        + " priority, kind, state, attempt) VALUES (" + readySlot + ", " + jobId + ", 0, "
                        + readyGeneration + ", '" + QUEUE + "', 2, 'k', '" + state + "', 1)",
                deltaSql(readySlot, readyGeneration, state));
    }

    /** Cancels an unclaimed job: a tombstone, a cancelled done row and its delta in the ready row's slot. */
    void cancelUnclaimed(int readySlot, long readyGeneration, long jobId, long laneSeq) {
        db.execute("INSERT INTO " + t("ready_tombstones") + " (ready_slot, queue, priority, enqueue_shard, lane_seq,"
                + " job_id) VALUES (" + readySlot + ", '" + QUEUE + "', 2, 0, " + laneSeq + ", " + jobId + ")");
        done(readySlot, readyGeneration, jobId, "cancelled");
    }

    /**
     * Terminal counts as the lifecycle reports them: rollups + rollup deltas + live counts + count deltas, per state.
     */
    long terminalCount(String state) {
        return db.queryLong("SELECT COALESCE((SELECT sum(count) FROM " + t("queue_terminal_rollups")
                + " WHERE state = ?), 0) + COALESCE((SELECT sum(count) FROM " + t("queue_terminal_rollup_deltas")
                + " WHERE state = ?), 0) + COALESCE((SELECT sum(count) FROM " + t("queue_terminal_live_counts")
                + " WHERE state = ?), 0) + COALESCE((SELECT sum(delta) FROM " + t("queue_terminal_count_deltas")
                + " WHERE state = ?), 0)", state, state, state, state);
    }

    long rows(String table) {
        return db.queryLong("SELECT count(*) FROM " + t(table));
    }

    long filenode(String table) {
        return db.queryLong("SELECT pg_relation_filenode('" + t(table) + "')");
    }

    /** Opens a JDBC session inside a transaction that holds {@code ACCESS SHARE} on the given tables. */
    Connection reader(String... tables) throws SQLException {
        Connection reader = db.openJdbc();
        reader.setAutoCommit(false);
        try (Statement statement = reader.createStatement()) {
            for (String table : tables) {
                statement.execute("LOCK TABLE " + t(table) + " IN ACCESS SHARE MODE");
            }
        }
        return reader;
    }

    /** How many lock requests on {@code table} are waiting (not granted). */
    long waiters(String table) {
        return db.queryLong("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = '" + t(table)
                + "'::regclass");
    }
}
