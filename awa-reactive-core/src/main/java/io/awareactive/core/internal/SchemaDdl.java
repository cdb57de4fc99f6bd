package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The DDL of schema version {@value Schema#VERSION}: rings as list-partitioned families with one child per slot,
 * their ledgers and slot tables, lanes, sequences, warm tables and functions. Run once, in the installer's
 * transaction.
 */
public final class SchemaDdl {

    /** Column definitions and keys of every ring family (the partition key comes first in every primary key). */
    private static final Map<String, String> FAMILY_COLUMNS = Map.of(
            "ready_entries", """
                ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
                enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, ready_generation bigint NOT NULL,
                job_id bigint NOT NULL, kind text NOT NULL, args jsonb NOT NULL, attempt int NOT NULL,
                max_attempts int NOT NULL, timeout_ms bigint, enqueued_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, lane_seq)""",
            "ready_segments", """
                ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
                enqueue_shard int NOT NULL, first_lane_seq bigint NOT NULL, next_lane_seq bigint NOT NULL,
                ready_generation bigint NOT NULL,
                PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, first_lane_seq)""",
            "ready_claim_ranges", """
                ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
                enqueue_shard int NOT NULL, first_lane_seq bigint NOT NULL, next_lane_seq bigint NOT NULL,
                claimed_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, first_lane_seq)""",
            "ready_tombstones", """
                ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
                enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, job_id bigint NOT NULL,
                PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, lane_seq)""",
            "done_entries", """
                ready_slot int NOT NULL, job_id bigint NOT NULL, run_lease bigint NOT NULL,
                ready_generation bigint NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
                kind text NOT NULL, state text NOT NULL, attempt int NOT NULL,
                finalized_at timestamptz NOT NULL DEFAULT now(), error text,
                PRIMARY KEY (ready_slot, job_id, run_lease)""",
            "queue_terminal_count_deltas", """
                ready_slot int NOT NULL, ready_generation bigint NOT NULL, queue text NOT NULL,
                priority smallint NOT NULL, state text NOT NULL, delta int NOT NULL""",
            "leases", """
                lease_slot int NOT NULL, job_id bigint NOT NULL, run_lease bigint NOT NULL,
                lease_generation bigint NOT NULL, ready_slot int NOT NULL, ready_generation bigint NOT NULL,
                claim_slot int NOT NULL, receipt_id bigint NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
                enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, attempt int NOT NULL,
                max_attempts int NOT NULL, worker_id text NOT NULL, heartbeat_at timestamptz NOT NULL,
                deadline_at timestamptz,
                PRIMARY KEY (lease_slot, job_id, run_lease)""",
            "lease_claims", """
                claim_slot int NOT NULL, receipt_id bigint NOT NULL, claim_generation bigint NOT NULL,
                job_id bigint NOT NULL, run_lease bigint NOT NULL, ready_slot int NOT NULL,
                ready_generation bigint NOT NULL, lease_slot int NOT NULL,
                claimed_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (claim_slot, receipt_id)""",
            "lease_claim_closures", """
                claim_slot int NOT NULL, receipt_id bigint NOT NULL, job_id bigint NOT NULL,
                run_lease bigint NOT NULL, ready_slot int NOT NULL, ready_generation bigint NOT NULL,
                outcome text NOT NULL, closed_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (claim_slot, receipt_id)""");

    /** Secondary indexes on ring parents (they propagate to every child). */
    private static final Map<String, String> FAMILY_INDEXES = Map.of(
            "ready_entries", "(job_id)",
            "done_entries", "(job_id)",
            "leases", "(ready_slot)",
            "lease_claims", "(ready_slot)",
            "lease_claim_closures", "(ready_slot)");

    private SchemaDdl() {
    }

    /**
     * The statements creating a fresh installation, in order.
     *
     * @param schema the schema
     * @param slotCounts the slot count per ring
     * @return the statements
     */
    public static List<String> create(Schema schema, Map<Ring, Integer> slotCounts) {
        List<String> ddl = new ArrayList<>();
        String s = schema.quoted();
        ddl.add("CREATE SCHEMA IF NOT EXISTS " + s);
        ddl.add("CREATE TABLE " + schema.table("awa_reactive_schema_version")
                + " (version int PRIMARY KEY, installed_at timestamptz NOT NULL DEFAULT now())");
        for (Ring ring : Ring.values()) {
            int slots = slotCounts.get(ring);
            ddl.add("CREATE TABLE " + schema.ringState(ring) + " (singleton boolean PRIMARY KEY DEFAULT true"
                    + " CHECK (singleton), slot_count int NOT NULL)");
            ddl.add("INSERT INTO " + schema.ringState(ring) + " (slot_count) VALUES (" + slots + ")");
            ddl.add("CREATE TABLE " + schema.ledger(ring) + " (generation bigint PRIMARY KEY, slot int NOT NULL,"
                    + " rotated_at timestamptz NOT NULL DEFAULT now())");
            ddl.add("INSERT INTO " + schema.ledger(ring) + " (generation, slot) VALUES (0, 0)");
            ddl.add("CREATE TABLE " + schema.ringSlots(ring) + " (slot int PRIMARY KEY)");
            ddl.add("INSERT INTO " + schema.ringSlots(ring) + " (slot) SELECT generate_series(0, " + (slots - 1)
                    + ")");
            for (String family : Schema.families(ring)) {
                ddl.add("CREATE TABLE " + schema.table(family) + " (" + FAMILY_COLUMNS.get(family)
                        + ") PARTITION BY LIST (" + ring.partitionKey() + ")");
                String index = FAMILY_INDEXES.get(family);
                if (index != null) {
                    ddl.add("CREATE INDEX " + family + "_" + index.replaceAll("[^a-z_]", "") + "_idx ON "
                            + schema.table(family) + " " + index);
                }
                // The lease is the one row updated in place: room for HOT heartbeat updates.
                String storage = family.equals("leases") ? " WITH (fillfactor = 70)" : "";
                for (int slot = 0; slot < slots; slot++) {
                    ddl.add("CREATE TABLE " + schema.child(family, slot) + " PARTITION OF " + schema.table(family)
                            + " FOR VALUES IN (" + slot + ")" + storage);
                }
            }
        }
        ddl.add("CREATE TABLE " + schema.table("queue_meta") + " (queue text PRIMARY KEY,"
                + " enqueue_shards int NOT NULL DEFAULT 1 CHECK (enqueue_shards BETWEEN 1 AND 64))");
        ddl.add("CREATE TABLE " + schema.table("queue_lanes") + " (queue text NOT NULL, priority smallint NOT NULL,"
                + " enqueue_shard int NOT NULL, enqueue_seq regclass NOT NULL, claim_seq regclass NOT NULL,"
                + " PRIMARY KEY (queue, priority, enqueue_shard))");
        ddl.add("CREATE TABLE " + schema.table("queue_claim_heads") + " (queue text NOT NULL,"
                + " priority smallint NOT NULL, enqueue_shard int NOT NULL,"
                + " PRIMARY KEY (queue, priority, enqueue_shard))");
        ddl.add("CREATE SEQUENCE " + schema.table("job_id_seq"));
        ddl.add("CREATE SEQUENCE " + schema.table("receipt_id_seq"));
        ddl.add("CREATE TABLE " + schema.table("deferred_jobs") + " (job_id bigint PRIMARY KEY, queue text NOT NULL,"
                + " priority smallint NOT NULL, enqueue_shard int NOT NULL, kind text NOT NULL, args jsonb NOT NULL,"
                + " attempt int NOT NULL, max_attempts int NOT NULL, timeout_ms bigint,"
                + " run_at timestamptz NOT NULL, last_error text, created_at timestamptz NOT NULL DEFAULT now())");
        ddl.add("CREATE INDEX deferred_jobs_run_at_idx ON " + schema.table("deferred_jobs") + " (run_at)");
        ddl.add("CREATE INDEX deferred_jobs_queue_idx ON " + schema.table("deferred_jobs") + " (queue)");
        ddl.add("CREATE TABLE " + schema.table("queue_terminal_live_counts") + " (ready_slot int NOT NULL,"
                + " queue text NOT NULL, priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL,"
                + " PRIMARY KEY (ready_slot, queue, priority, state))");
        ddl.add("CREATE TABLE " + schema.table("queue_terminal_rollup_deltas") + " (queue text NOT NULL,"
                + " priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL)");
        ddl.add("CREATE TABLE " + schema.table("queue_terminal_rollups") + " (queue text NOT NULL,"
                + " priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL,"
                + " PRIMARY KEY (queue, priority, state))");
        // Terminal failures outlive the ring window here. The lane's shard, max attempts and timeout let a retry
        // re-enqueue the job faithfully into a lane that still exists (lanes are never dropped).
        ddl.add("CREATE TABLE " + schema.table("dead_letter_jobs") + " (job_id bigint PRIMARY KEY,"
                + " queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL, kind text NOT NULL,"
                + " args jsonb NOT NULL, attempts int NOT NULL, max_attempts int NOT NULL, timeout_ms bigint,"
                + " last_error text, failed_at timestamptz NOT NULL DEFAULT now())");
        // Keyset pages per queue, newest first: (failed_at, job_id) is the page key.
        ddl.add("CREATE INDEX dead_letter_jobs_queue_failed_at_idx ON " + schema.table("dead_letter_jobs")
                + " (queue, failed_at, job_id)");
        // The retention purge takes the oldest rows of every queue.
        ddl.add("CREATE INDEX dead_letter_jobs_failed_at_idx ON " + schema.table("dead_letter_jobs")
                + " (failed_at)");
        ddl.add(createLaneFunction(schema));
        ddl.addAll(LifecycleDdl.create(schema));
        ddl.addAll(JobAdminDdl.create(schema));
        return ddl;
    }

    /**
     * {@code create_lane(queue, priority, shard)}: creates a lane's row, claim head and two sequences
     * ({@code MINVALUE 0 START WITH 0 CACHE 1}, then {@code setval(seq, 0, true)} so {@code pg_sequence_last_value}
     * is 0, never NULL). {@code SECURITY DEFINER}, so an application role needs no DDL right. A lane is never reset:
     * only the caller whose lane-row insert wins initialises the sequences.
     */
    private static String createLaneFunction(Schema schema) {
        return """
            CREATE FUNCTION {s}.create_lane(p_queue text, p_priority smallint, p_shard int) RETURNS void
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $fn$
            DECLARE
                v_hash text := md5(p_queue || ':' || p_priority || ':' || p_shard);
                v_enqueue_seq text := format('%I.%I', {name}, 'queue_enqueue_seq_' || v_hash);
                v_claim_seq text := format('%I.%I', {name}, 'queue_claim_seq_' || v_hash);
                v_won int;
            BEGIN
                -- Two creators of one lane serialise here; the loser finds the lane row and returns.
                PERFORM pg_advisory_xact_lock(hashtextextended('awa-reactive.create-lane:' || {name} || ':'
                    || v_hash, 0));
                IF EXISTS (SELECT 1 FROM queue_lanes
                           WHERE queue = p_queue AND priority = p_priority AND enqueue_shard = p_shard) THEN
                    RETURN;
                END IF;
                EXECUTE 'CREATE SEQUENCE IF NOT EXISTS ' || v_enqueue_seq || ' MINVALUE 0 START WITH 0 CACHE 1';
                EXECUTE 'CREATE SEQUENCE IF NOT EXISTS ' || v_claim_seq || ' MINVALUE 0 START WITH 0 CACHE 1';
                INSERT INTO queue_meta (queue) VALUES (p_queue) ON CONFLICT DO NOTHING;
                INSERT INTO queue_lanes (queue, priority, enqueue_shard, enqueue_seq, claim_seq)
                VALUES (p_queue, p_priority, p_shard, v_enqueue_seq::regclass, v_claim_seq::regclass)
                ON CONFLICT DO NOTHING;
                GET DIAGNOSTICS v_won = ROW_COUNT;
                IF v_won = 1 THEN
                    PERFORM setval(v_enqueue_seq::regclass, 0, true);
                    PERFORM setval(v_claim_seq::regclass, 0, true);
                    INSERT INTO queue_claim_heads (queue, priority, enqueue_shard)
                    VALUES (p_queue, p_priority, p_shard) ON CONFLICT DO NOTHING;
                END IF;
            END
            $fn$""".replace("{s}", schema.quoted()).replace("{name}", "'" + schema.name() + "'");
    }
}
