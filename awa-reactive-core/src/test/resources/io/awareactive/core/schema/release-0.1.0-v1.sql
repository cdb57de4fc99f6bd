-- FROZEN. Schema version 1 exactly as release 0.1.0 (commit aac36a6) installs it: the statements of
-- SchemaDdl.create for schema "awa_reactive" with slot counts queue 16, lease 8, claim 8, each followed by ';',
-- then the installer's version row. Tests load it for another schema by replacing "awa_reactive",
-- 'awa_reactive' and 'awa_jobs_awa_reactive'. Never edit: upgrade tests start from exactly this.

CREATE SCHEMA IF NOT EXISTS "awa_reactive";

CREATE TABLE "awa_reactive".awa_reactive_schema_version (version int PRIMARY KEY, installed_at timestamptz NOT NULL DEFAULT now());

CREATE TABLE "awa_reactive".queue_ring_state (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), slot_count int NOT NULL);

INSERT INTO "awa_reactive".queue_ring_state (slot_count) VALUES (16);

CREATE TABLE "awa_reactive".queue_ring_rotations (generation bigint PRIMARY KEY, slot int NOT NULL, rotated_at timestamptz NOT NULL DEFAULT now());

INSERT INTO "awa_reactive".queue_ring_rotations (generation, slot) VALUES (0, 0);

CREATE TABLE "awa_reactive".queue_ring_slots (slot int PRIMARY KEY);

INSERT INTO "awa_reactive".queue_ring_slots (slot) SELECT generate_series(0, 15);

CREATE TABLE "awa_reactive".ready_entries (ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, ready_generation bigint NOT NULL,
job_id bigint NOT NULL, kind text NOT NULL, args jsonb NOT NULL, attempt int NOT NULL,
max_attempts int NOT NULL, timeout_ms bigint, enqueued_at timestamptz NOT NULL DEFAULT now(),
PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, lane_seq)) PARTITION BY LIST (ready_slot);

CREATE INDEX ready_entries_job_id_idx ON "awa_reactive".ready_entries (job_id);

CREATE TABLE "awa_reactive".ready_entries_0 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (0);

CREATE TABLE "awa_reactive".ready_entries_1 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (1);

CREATE TABLE "awa_reactive".ready_entries_2 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (2);

CREATE TABLE "awa_reactive".ready_entries_3 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (3);

CREATE TABLE "awa_reactive".ready_entries_4 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (4);

CREATE TABLE "awa_reactive".ready_entries_5 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (5);

CREATE TABLE "awa_reactive".ready_entries_6 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (6);

CREATE TABLE "awa_reactive".ready_entries_7 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (7);

CREATE TABLE "awa_reactive".ready_entries_8 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (8);

CREATE TABLE "awa_reactive".ready_entries_9 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (9);

CREATE TABLE "awa_reactive".ready_entries_10 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (10);

CREATE TABLE "awa_reactive".ready_entries_11 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (11);

CREATE TABLE "awa_reactive".ready_entries_12 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (12);

CREATE TABLE "awa_reactive".ready_entries_13 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (13);

CREATE TABLE "awa_reactive".ready_entries_14 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (14);

CREATE TABLE "awa_reactive".ready_entries_15 PARTITION OF "awa_reactive".ready_entries FOR VALUES IN (15);

CREATE TABLE "awa_reactive".ready_segments (ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
enqueue_shard int NOT NULL, first_lane_seq bigint NOT NULL, next_lane_seq bigint NOT NULL,
ready_generation bigint NOT NULL,
PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, first_lane_seq)) PARTITION BY LIST (ready_slot);

CREATE TABLE "awa_reactive".ready_segments_0 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (0);

CREATE TABLE "awa_reactive".ready_segments_1 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (1);

CREATE TABLE "awa_reactive".ready_segments_2 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (2);

CREATE TABLE "awa_reactive".ready_segments_3 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (3);

CREATE TABLE "awa_reactive".ready_segments_4 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (4);

CREATE TABLE "awa_reactive".ready_segments_5 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (5);

CREATE TABLE "awa_reactive".ready_segments_6 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (6);

CREATE TABLE "awa_reactive".ready_segments_7 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (7);

CREATE TABLE "awa_reactive".ready_segments_8 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (8);

CREATE TABLE "awa_reactive".ready_segments_9 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (9);

CREATE TABLE "awa_reactive".ready_segments_10 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (10);

CREATE TABLE "awa_reactive".ready_segments_11 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (11);

CREATE TABLE "awa_reactive".ready_segments_12 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (12);

CREATE TABLE "awa_reactive".ready_segments_13 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (13);

CREATE TABLE "awa_reactive".ready_segments_14 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (14);

CREATE TABLE "awa_reactive".ready_segments_15 PARTITION OF "awa_reactive".ready_segments FOR VALUES IN (15);

CREATE TABLE "awa_reactive".ready_claim_ranges (ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
enqueue_shard int NOT NULL, first_lane_seq bigint NOT NULL, next_lane_seq bigint NOT NULL,
claimed_at timestamptz NOT NULL DEFAULT now(),
PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, first_lane_seq)) PARTITION BY LIST (ready_slot);

CREATE TABLE "awa_reactive".ready_claim_ranges_0 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (0);

CREATE TABLE "awa_reactive".ready_claim_ranges_1 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (1);

CREATE TABLE "awa_reactive".ready_claim_ranges_2 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (2);

CREATE TABLE "awa_reactive".ready_claim_ranges_3 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (3);

CREATE TABLE "awa_reactive".ready_claim_ranges_4 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (4);

CREATE TABLE "awa_reactive".ready_claim_ranges_5 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (5);

CREATE TABLE "awa_reactive".ready_claim_ranges_6 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (6);

CREATE TABLE "awa_reactive".ready_claim_ranges_7 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (7);

CREATE TABLE "awa_reactive".ready_claim_ranges_8 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (8);

CREATE TABLE "awa_reactive".ready_claim_ranges_9 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (9);

CREATE TABLE "awa_reactive".ready_claim_ranges_10 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (10);

CREATE TABLE "awa_reactive".ready_claim_ranges_11 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (11);

CREATE TABLE "awa_reactive".ready_claim_ranges_12 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (12);

CREATE TABLE "awa_reactive".ready_claim_ranges_13 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (13);

CREATE TABLE "awa_reactive".ready_claim_ranges_14 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (14);

CREATE TABLE "awa_reactive".ready_claim_ranges_15 PARTITION OF "awa_reactive".ready_claim_ranges FOR VALUES IN (15);

CREATE TABLE "awa_reactive".ready_tombstones (ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, job_id bigint NOT NULL,
PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, lane_seq)) PARTITION BY LIST (ready_slot);

CREATE TABLE "awa_reactive".ready_tombstones_0 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (0);

CREATE TABLE "awa_reactive".ready_tombstones_1 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (1);

CREATE TABLE "awa_reactive".ready_tombstones_2 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (2);

CREATE TABLE "awa_reactive".ready_tombstones_3 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (3);

CREATE TABLE "awa_reactive".ready_tombstones_4 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (4);

CREATE TABLE "awa_reactive".ready_tombstones_5 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (5);

CREATE TABLE "awa_reactive".ready_tombstones_6 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (6);

CREATE TABLE "awa_reactive".ready_tombstones_7 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (7);

CREATE TABLE "awa_reactive".ready_tombstones_8 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (8);

CREATE TABLE "awa_reactive".ready_tombstones_9 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (9);

CREATE TABLE "awa_reactive".ready_tombstones_10 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (10);

CREATE TABLE "awa_reactive".ready_tombstones_11 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (11);

CREATE TABLE "awa_reactive".ready_tombstones_12 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (12);

CREATE TABLE "awa_reactive".ready_tombstones_13 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (13);

CREATE TABLE "awa_reactive".ready_tombstones_14 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (14);

CREATE TABLE "awa_reactive".ready_tombstones_15 PARTITION OF "awa_reactive".ready_tombstones FOR VALUES IN (15);

CREATE TABLE "awa_reactive".done_entries (ready_slot int NOT NULL, job_id bigint NOT NULL, run_lease bigint NOT NULL,
ready_generation bigint NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
kind text NOT NULL, state text NOT NULL, attempt int NOT NULL,
finalized_at timestamptz NOT NULL DEFAULT now(), error text,
PRIMARY KEY (ready_slot, job_id, run_lease)) PARTITION BY LIST (ready_slot);

CREATE INDEX done_entries_job_id_idx ON "awa_reactive".done_entries (job_id);

CREATE TABLE "awa_reactive".done_entries_0 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (0);

CREATE TABLE "awa_reactive".done_entries_1 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (1);

CREATE TABLE "awa_reactive".done_entries_2 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (2);

CREATE TABLE "awa_reactive".done_entries_3 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (3);

CREATE TABLE "awa_reactive".done_entries_4 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (4);

CREATE TABLE "awa_reactive".done_entries_5 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (5);

CREATE TABLE "awa_reactive".done_entries_6 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (6);

CREATE TABLE "awa_reactive".done_entries_7 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (7);

CREATE TABLE "awa_reactive".done_entries_8 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (8);

CREATE TABLE "awa_reactive".done_entries_9 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (9);

CREATE TABLE "awa_reactive".done_entries_10 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (10);

CREATE TABLE "awa_reactive".done_entries_11 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (11);

CREATE TABLE "awa_reactive".done_entries_12 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (12);

CREATE TABLE "awa_reactive".done_entries_13 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (13);

CREATE TABLE "awa_reactive".done_entries_14 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (14);

CREATE TABLE "awa_reactive".done_entries_15 PARTITION OF "awa_reactive".done_entries FOR VALUES IN (15);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas (ready_slot int NOT NULL, ready_generation bigint NOT NULL, queue text NOT NULL,
priority smallint NOT NULL, state text NOT NULL, delta int NOT NULL) PARTITION BY LIST (ready_slot);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_0 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (0);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_1 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (1);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_2 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (2);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_3 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (3);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_4 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (4);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_5 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (5);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_6 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (6);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_7 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (7);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_8 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (8);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_9 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (9);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_10 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (10);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_11 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (11);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_12 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (12);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_13 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (13);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_14 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (14);

CREATE TABLE "awa_reactive".queue_terminal_count_deltas_15 PARTITION OF "awa_reactive".queue_terminal_count_deltas FOR VALUES IN (15);

CREATE TABLE "awa_reactive".lease_ring_state (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), slot_count int NOT NULL);

INSERT INTO "awa_reactive".lease_ring_state (slot_count) VALUES (8);

CREATE TABLE "awa_reactive".lease_ring_rotations (generation bigint PRIMARY KEY, slot int NOT NULL, rotated_at timestamptz NOT NULL DEFAULT now());

INSERT INTO "awa_reactive".lease_ring_rotations (generation, slot) VALUES (0, 0);

CREATE TABLE "awa_reactive".lease_ring_slots (slot int PRIMARY KEY);

INSERT INTO "awa_reactive".lease_ring_slots (slot) SELECT generate_series(0, 7);

CREATE TABLE "awa_reactive".leases (lease_slot int NOT NULL, job_id bigint NOT NULL, run_lease bigint NOT NULL,
lease_generation bigint NOT NULL, ready_slot int NOT NULL, ready_generation bigint NOT NULL,
claim_slot int NOT NULL, receipt_id bigint NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, attempt int NOT NULL,
max_attempts int NOT NULL, worker_id text NOT NULL, heartbeat_at timestamptz NOT NULL,
deadline_at timestamptz,
PRIMARY KEY (lease_slot, job_id, run_lease)) PARTITION BY LIST (lease_slot);

CREATE INDEX leases_ready_slot_idx ON "awa_reactive".leases (ready_slot);

CREATE TABLE "awa_reactive".leases_0 PARTITION OF "awa_reactive".leases FOR VALUES IN (0) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".leases_1 PARTITION OF "awa_reactive".leases FOR VALUES IN (1) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".leases_2 PARTITION OF "awa_reactive".leases FOR VALUES IN (2) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".leases_3 PARTITION OF "awa_reactive".leases FOR VALUES IN (3) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".leases_4 PARTITION OF "awa_reactive".leases FOR VALUES IN (4) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".leases_5 PARTITION OF "awa_reactive".leases FOR VALUES IN (5) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".leases_6 PARTITION OF "awa_reactive".leases FOR VALUES IN (6) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".leases_7 PARTITION OF "awa_reactive".leases FOR VALUES IN (7) WITH (fillfactor = 70);

CREATE TABLE "awa_reactive".claim_ring_state (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), slot_count int NOT NULL);

INSERT INTO "awa_reactive".claim_ring_state (slot_count) VALUES (8);

CREATE TABLE "awa_reactive".claim_ring_rotations (generation bigint PRIMARY KEY, slot int NOT NULL, rotated_at timestamptz NOT NULL DEFAULT now());

INSERT INTO "awa_reactive".claim_ring_rotations (generation, slot) VALUES (0, 0);

CREATE TABLE "awa_reactive".claim_ring_slots (slot int PRIMARY KEY);

INSERT INTO "awa_reactive".claim_ring_slots (slot) SELECT generate_series(0, 7);

CREATE TABLE "awa_reactive".lease_claims (claim_slot int NOT NULL, receipt_id bigint NOT NULL, claim_generation bigint NOT NULL,
job_id bigint NOT NULL, run_lease bigint NOT NULL, ready_slot int NOT NULL,
ready_generation bigint NOT NULL, lease_slot int NOT NULL,
claimed_at timestamptz NOT NULL DEFAULT now(),
PRIMARY KEY (claim_slot, receipt_id)) PARTITION BY LIST (claim_slot);

CREATE INDEX lease_claims_ready_slot_idx ON "awa_reactive".lease_claims (ready_slot);

CREATE TABLE "awa_reactive".lease_claims_0 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (0);

CREATE TABLE "awa_reactive".lease_claims_1 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (1);

CREATE TABLE "awa_reactive".lease_claims_2 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (2);

CREATE TABLE "awa_reactive".lease_claims_3 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (3);

CREATE TABLE "awa_reactive".lease_claims_4 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (4);

CREATE TABLE "awa_reactive".lease_claims_5 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (5);

CREATE TABLE "awa_reactive".lease_claims_6 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (6);

CREATE TABLE "awa_reactive".lease_claims_7 PARTITION OF "awa_reactive".lease_claims FOR VALUES IN (7);

CREATE TABLE "awa_reactive".lease_claim_closures (claim_slot int NOT NULL, receipt_id bigint NOT NULL, job_id bigint NOT NULL,
run_lease bigint NOT NULL, ready_slot int NOT NULL, ready_generation bigint NOT NULL,
outcome text NOT NULL, closed_at timestamptz NOT NULL DEFAULT now(),
PRIMARY KEY (claim_slot, receipt_id)) PARTITION BY LIST (claim_slot);

CREATE INDEX lease_claim_closures_ready_slot_idx ON "awa_reactive".lease_claim_closures (ready_slot);

CREATE TABLE "awa_reactive".lease_claim_closures_0 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (0);

CREATE TABLE "awa_reactive".lease_claim_closures_1 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (1);

CREATE TABLE "awa_reactive".lease_claim_closures_2 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (2);

CREATE TABLE "awa_reactive".lease_claim_closures_3 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (3);

CREATE TABLE "awa_reactive".lease_claim_closures_4 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (4);

CREATE TABLE "awa_reactive".lease_claim_closures_5 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (5);

CREATE TABLE "awa_reactive".lease_claim_closures_6 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (6);

CREATE TABLE "awa_reactive".lease_claim_closures_7 PARTITION OF "awa_reactive".lease_claim_closures FOR VALUES IN (7);

CREATE TABLE "awa_reactive".queue_meta (queue text PRIMARY KEY, enqueue_shards int NOT NULL DEFAULT 1 CHECK (enqueue_shards BETWEEN 1 AND 64));

CREATE TABLE "awa_reactive".queue_lanes (queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL, enqueue_seq regclass NOT NULL, claim_seq regclass NOT NULL, PRIMARY KEY (queue, priority, enqueue_shard));

CREATE TABLE "awa_reactive".queue_claim_heads (queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL, PRIMARY KEY (queue, priority, enqueue_shard));

CREATE SEQUENCE "awa_reactive".job_id_seq;

CREATE SEQUENCE "awa_reactive".receipt_id_seq;

CREATE TABLE "awa_reactive".deferred_jobs (job_id bigint PRIMARY KEY, queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL, kind text NOT NULL, args jsonb NOT NULL, attempt int NOT NULL, max_attempts int NOT NULL, timeout_ms bigint, run_at timestamptz NOT NULL, last_error text, created_at timestamptz NOT NULL DEFAULT now());

CREATE INDEX deferred_jobs_run_at_idx ON "awa_reactive".deferred_jobs (run_at);

CREATE INDEX deferred_jobs_queue_idx ON "awa_reactive".deferred_jobs (queue);

CREATE TABLE "awa_reactive".queue_terminal_live_counts (ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL, PRIMARY KEY (ready_slot, queue, priority, state));

CREATE TABLE "awa_reactive".queue_terminal_rollup_deltas (queue text NOT NULL, priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL);

CREATE TABLE "awa_reactive".queue_terminal_rollups (queue text NOT NULL, priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL, PRIMARY KEY (queue, priority, state));

CREATE TABLE "awa_reactive".dead_letter_jobs (job_id bigint PRIMARY KEY, queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL, kind text NOT NULL, args jsonb NOT NULL, attempts int NOT NULL, max_attempts int NOT NULL, timeout_ms bigint, last_error text, failed_at timestamptz NOT NULL DEFAULT now());

CREATE INDEX dead_letter_jobs_queue_failed_at_idx ON "awa_reactive".dead_letter_jobs (queue, failed_at, job_id);

CREATE INDEX dead_letter_jobs_failed_at_idx ON "awa_reactive".dead_letter_jobs (failed_at);

CREATE FUNCTION "awa_reactive".create_lane(p_queue text, p_priority smallint, p_shard int) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_hash text := md5(p_queue || ':' || p_priority || ':' || p_shard);
    v_enqueue_seq text := format('%I.%I', 'awa_reactive', 'queue_enqueue_seq_' || v_hash);
    v_claim_seq text := format('%I.%I', 'awa_reactive', 'queue_claim_seq_' || v_hash);
    v_won int;
BEGIN
    -- Two creators of one lane serialise here; the loser finds the lane row and returns.
    PERFORM pg_advisory_xact_lock(hashtextextended('awa-reactive.create-lane:' || 'awa_reactive' || ':'
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
$fn$;

CREATE INDEX ready_segments_lane_next_idx ON "awa_reactive".ready_segments (queue, priority, enqueue_shard, next_lane_seq);

CREATE INDEX leases_job_id_idx ON "awa_reactive".leases (job_id);

CREATE INDEX leases_queue_idx ON "awa_reactive".leases (queue);

CREATE INDEX ready_tombstones_job_id_idx ON "awa_reactive".ready_tombstones (job_id);

CREATE FUNCTION "awa_reactive".lane_key(p_queue text, p_priority smallint, p_shard int) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtextextended('awa-reactive.lane:' || 'awa_reactive' || ':' || p_queue || ':' || p_priority || ':'
        || p_shard, 0)
$fn$;

CREATE FUNCTION "awa_reactive".enqueue_lane(p_queue text, p_priority smallint, p_shard int, p_job_ids bigint[],
    p_kinds text[], p_args jsonb[], p_attempts int[], p_max_attempts int[], p_timeouts bigint[])
RETURNS TABLE (o_ord int, o_job_id bigint)
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_seq regclass;
    v_n int := cardinality(p_kinds);
BEGIN
    PERFORM pg_advisory_xact_lock(lane_key(p_queue, p_priority, p_shard));
    SELECT l.enqueue_seq INTO v_seq FROM queue_lanes l
    WHERE l.queue = p_queue AND l.priority = p_priority AND l.enqueue_shard = p_shard;
    IF v_seq IS NULL THEN
        RAISE EXCEPTION 'lane (%, %, %) does not exist', p_queue, p_priority, p_shard
            USING ERRCODE = 'P0002';
    END IF;
    RETURN QUERY
    WITH cur AS (
        SELECT r.generation, r.slot FROM queue_ring_rotations r ORDER BY r.generation DESC LIMIT 1
    ), seqs AS (
        SELECT s.lane_seq, row_number() OVER (ORDER BY s.lane_seq)::int AS ord
        FROM (SELECT nextval(v_seq) AS lane_seq FROM generate_series(1, v_n)) s
    ), jobs AS (
        SELECT s.ord, s.lane_seq, coalesce(p_job_ids[s.ord], nextval('job_id_seq')) AS job_id FROM seqs s
    ), ins AS (
        INSERT INTO ready_entries (ready_slot, queue, priority, enqueue_shard, lane_seq, ready_generation,
            job_id, kind, args, attempt, max_attempts, timeout_ms)
        SELECT cur.slot, p_queue, p_priority, p_shard, j.lane_seq, cur.generation, j.job_id,
            p_kinds[j.ord], p_args[j.ord], p_attempts[j.ord], p_max_attempts[j.ord],
            nullif(p_timeouts[j.ord], 0)
        FROM jobs j CROSS JOIN cur
    ), seg AS (
        INSERT INTO ready_segments (ready_slot, queue, priority, enqueue_shard, first_lane_seq,
            next_lane_seq, ready_generation)
        SELECT cur.slot, p_queue, p_priority, p_shard, min(j.lane_seq), max(j.lane_seq) + 1, cur.generation
        FROM jobs j CROSS JOIN cur GROUP BY cur.slot, cur.generation
    )
    SELECT j.ord, j.job_id FROM jobs j ORDER BY j.ord;
    PERFORM pg_notify('awa_jobs_awa_reactive', p_queue);
END
$fn$;

CREATE FUNCTION "awa_reactive".claim_jobs(p_queue text, p_max int, p_worker text, p_default_timeout_ms bigint)
RETURNS TABLE (o_job_id bigint, o_run_lease bigint, o_kind text, o_args text, o_priority smallint,
    o_attempt int, o_max_attempts int, o_timeout_ms bigint, o_ready_slot int, o_ready_generation bigint,
    o_lease_slot int, o_claim_slot int, o_enqueue_shard int, o_lane_seq bigint,
    o_deadline_at timestamptz, o_range_next bigint)
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_lane record;
    v_seg record;
    v_row record;
    v_c bigint;
    v_next bigint;
    v_first bigint;
    v_end bigint;
    v_took int;
    v_left int := p_max;
    v_found boolean;
    v_receipt bigint;
    v_timeout bigint;
    v_deadline timestamptz;
    v_lease_slot int;
    v_lease_gen bigint;
    v_claim_slot int;
    v_claim_gen bigint;
BEGIN
    SELECT r.slot, r.generation INTO v_lease_slot, v_lease_gen
    FROM lease_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    SELECT r.slot, r.generation INTO v_claim_slot, v_claim_gen
    FROM claim_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    FOR v_lane IN
        SELECT l.priority, l.enqueue_shard, l.claim_seq FROM queue_lanes l
        WHERE l.queue = p_queue AND EXISTS (
            SELECT 1 FROM ready_segments s
            WHERE s.queue = l.queue AND s.priority = l.priority AND s.enqueue_shard = l.enqueue_shard
              AND s.next_lane_seq > pg_sequence_last_value(l.claim_seq) + 1)
        ORDER BY l.priority, random()
    LOOP
        EXIT WHEN v_left <= 0;
        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = p_queue AND h.priority = v_lane.priority AND h.enqueue_shard = v_lane.enqueue_shard
        FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        v_c := pg_sequence_last_value(v_lane.claim_seq) + 1;
        v_found := false;
        LOOP
            SELECT s.ready_slot, s.ready_generation, s.first_lane_seq INTO v_seg FROM ready_segments s
            WHERE s.queue = p_queue AND s.priority = v_lane.priority
              AND s.enqueue_shard = v_lane.enqueue_shard AND s.next_lane_seq > v_c
            ORDER BY s.first_lane_seq LIMIT 1;
            EXIT WHEN NOT FOUND;
            -- Below the segment lie only rolled-back reservations or pruned, fully claimed slots.
            v_c := greatest(v_c, v_seg.first_lane_seq);
            EXECUTE format('SELECT r.next_lane_seq FROM %I.%I r WHERE r.ready_slot = $1 AND r.queue = $2'
                || ' AND r.priority = $3 AND r.enqueue_shard = $4 AND r.first_lane_seq <= $5'
                || ' AND r.next_lane_seq > $5 ORDER BY r.first_lane_seq DESC LIMIT 1',
                'awa_reactive', 'ready_claim_ranges_' || v_seg.ready_slot)
            INTO v_next USING v_seg.ready_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_c;
            IF v_next IS NULL THEN
                v_found := true;
                EXIT;
            END IF;
            -- An earlier claimer committed this range without advancing: repair forward (safe, the
            -- range is committed) and look again.
            PERFORM setval(v_lane.claim_seq, v_next - 1)
            WHERE pg_sequence_last_value(v_lane.claim_seq) < v_next - 1;
            v_c := v_next;
        END LOOP;
        CONTINUE WHEN NOT v_found;
        v_first := v_c;
        v_end := v_c;
        v_took := 0;
        FOR v_row IN EXECUTE format('SELECT e.lane_seq, e.job_id, e.kind, e.args::text AS args, e.attempt,'
                || ' e.max_attempts, e.timeout_ms, EXISTS (SELECT 1 FROM %I.%I t WHERE t.ready_slot ='
                || ' e.ready_slot AND t.queue = e.queue AND t.priority = e.priority AND t.enqueue_shard ='
                || ' e.enqueue_shard AND t.lane_seq = e.lane_seq) AS dead FROM %I.%I e'
                || ' WHERE e.ready_slot = $1 AND e.queue = $2 AND e.priority = $3'
                || ' AND e.enqueue_shard = $4 AND e.lane_seq >= $5 ORDER BY e.lane_seq',
                'awa_reactive', 'ready_tombstones_' || v_seg.ready_slot,
                'awa_reactive', 'ready_entries_' || v_seg.ready_slot)
            USING v_seg.ready_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_c
        LOOP
            EXIT WHEN v_took >= v_left;
            v_end := v_row.lane_seq + 1;
            CONTINUE WHEN v_row.dead;
            v_took := v_took + 1;
            v_receipt := nextval('receipt_id_seq');
            v_timeout := coalesce(v_row.timeout_ms, p_default_timeout_ms);
            v_deadline := CASE WHEN v_timeout IS NULL THEN NULL
                               ELSE clock_timestamp() + v_timeout * interval '1 millisecond' END;
            INSERT INTO leases (lease_slot, job_id, run_lease, lease_generation, ready_slot,
                ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq,
                attempt, max_attempts, worker_id, heartbeat_at, deadline_at)
            VALUES (v_lease_slot, v_row.job_id, v_receipt, v_lease_gen, v_seg.ready_slot,
                v_seg.ready_generation, v_claim_slot, v_receipt, p_queue, v_lane.priority,
                v_lane.enqueue_shard, v_row.lane_seq, v_row.attempt, v_row.max_attempts, p_worker,
                clock_timestamp(), v_deadline);
            INSERT INTO lease_claims (claim_slot, receipt_id, claim_generation, job_id, run_lease,
                ready_slot, ready_generation, lease_slot)
            VALUES (v_claim_slot, v_receipt, v_claim_gen, v_row.job_id, v_receipt, v_seg.ready_slot,
                v_seg.ready_generation, v_lease_slot);
            o_job_id := v_row.job_id; o_run_lease := v_receipt; o_kind := v_row.kind;
            o_args := v_row.args; o_priority := v_lane.priority; o_attempt := v_row.attempt;
            o_max_attempts := v_row.max_attempts; o_timeout_ms := v_row.timeout_ms;
            o_ready_slot := v_seg.ready_slot; o_ready_generation := v_seg.ready_generation;
            o_lease_slot := v_lease_slot; o_claim_slot := v_claim_slot;
            o_enqueue_shard := v_lane.enqueue_shard; o_lane_seq := v_row.lane_seq;
            o_deadline_at := v_deadline; o_range_next := NULL;
            RETURN NEXT;
        END LOOP;
        CONTINUE WHEN v_end <= v_first;
        INSERT INTO ready_claim_ranges (ready_slot, queue, priority, enqueue_shard, first_lane_seq,
            next_lane_seq)
        VALUES (v_seg.ready_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_first, v_end);
        v_left := v_left - v_took;
        o_job_id := NULL; o_run_lease := NULL; o_kind := NULL; o_args := NULL;
        o_priority := v_lane.priority; o_attempt := NULL; o_max_attempts := NULL; o_timeout_ms := NULL;
        o_ready_slot := v_seg.ready_slot; o_ready_generation := NULL; o_lease_slot := NULL;
        o_claim_slot := NULL; o_enqueue_shard := v_lane.enqueue_shard; o_lane_seq := NULL;
        o_deadline_at := NULL; o_range_next := v_end;
        RETURN NEXT;
    END LOOP;
END
$fn$;

CREATE FUNCTION "awa_reactive".advance_claim_cursors(p_queue text, p_priorities smallint[], p_shards int[],
    p_nexts bigint[], p_lock_timeout text)
RETURNS void
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v record;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    FOR v IN
        SELECT u.priority, u.shard, max(u.next) AS next, l.claim_seq
        FROM unnest(p_priorities, p_shards, p_nexts) AS u(priority, shard, next)
        JOIN queue_lanes l ON l.queue = p_queue AND l.priority = u.priority AND l.enqueue_shard = u.shard
        GROUP BY u.priority, u.shard, l.claim_seq ORDER BY u.priority, u.shard
    LOOP
        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = p_queue AND h.priority = v.priority AND h.enqueue_shard = v.shard FOR UPDATE;
        PERFORM setval(v.claim_seq, v.next - 1) WHERE pg_sequence_last_value(v.claim_seq) < v.next - 1;
    END LOOP;
END
$fn$;

CREATE FUNCTION "awa_reactive".end_attempt(p_lease_slot int, p_job_id bigint, p_run_lease bigint, p_outcome text,
    p_error text, p_base_ms double precision, p_factor double precision, p_max_ms double precision,
    p_jitter double precision, p_dead_letter boolean)
RETURNS text
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_lease record;
    v_job record;
    v_n int;
    v_closure text;
    v_delay double precision;
    v_exp double precision;
BEGIN
    EXECUTE format('DELETE FROM %I.%I WHERE lease_slot = $1 AND job_id = $2 AND run_lease = $3'
        || ' RETURNING *', 'awa_reactive', 'leases_' || p_lease_slot)
    INTO v_lease USING p_lease_slot, p_job_id, p_run_lease;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    IF v_n = 0 THEN
        RETURN 'lost';
    END IF;
    -- The ready row outlives the lease: queue prune keeps a slot while a lease points at it.
    EXECUTE format('SELECT kind, args, timeout_ms FROM %I.%I WHERE ready_slot = $1 AND queue = $2'
        || ' AND priority = $3 AND enqueue_shard = $4 AND lane_seq = $5',
        'awa_reactive', 'ready_entries_' || v_lease.ready_slot)
    INTO v_job USING v_lease.ready_slot, v_lease.queue, v_lease.priority, v_lease.enqueue_shard,
        v_lease.lane_seq;
    IF p_outcome = 'completed' THEN
        v_closure := 'completed';
    ELSIF p_outcome = 'released' THEN
        v_closure := 'released';
    ELSIF p_outcome = 'rescued' THEN
        v_closure := 'rescued';
    ELSIF v_lease.attempt < v_lease.max_attempts THEN
        v_closure := 'retried';
    ELSE
        v_closure := 'failed';
    END IF;
    INSERT INTO lease_claim_closures (claim_slot, receipt_id, job_id, run_lease, ready_slot,
        ready_generation, outcome)
    VALUES (v_lease.claim_slot, v_lease.receipt_id, v_lease.job_id, v_lease.run_lease,
        v_lease.ready_slot, v_lease.ready_generation, v_closure);
    IF p_outcome = 'released' THEN
        PERFORM enqueue_lane(v_lease.queue, v_lease.priority, v_lease.enqueue_shard,
            ARRAY[v_lease.job_id], ARRAY[v_job.kind], ARRAY[v_job.args], ARRAY[v_lease.attempt],
            ARRAY[v_lease.max_attempts], ARRAY[coalesce(v_job.timeout_ms, 0)]);
        RETURN 'released';
    END IF;
    IF p_outcome <> 'completed' AND v_lease.attempt < v_lease.max_attempts THEN
        IF p_base_ms <= 0 THEN
            v_delay := 0;
        ELSE
            v_exp := (v_lease.attempt - 1) * ln(p_factor);
            v_delay := CASE WHEN v_exp >= ln(p_max_ms / p_base_ms) THEN p_max_ms
                            ELSE p_base_ms * exp(v_exp) END * p_jitter;
        END IF;
        IF v_delay <= 0 THEN
            PERFORM enqueue_lane(v_lease.queue, v_lease.priority, v_lease.enqueue_shard,
                ARRAY[v_lease.job_id], ARRAY[v_job.kind], ARRAY[v_job.args], ARRAY[v_lease.attempt + 1],
                ARRAY[v_lease.max_attempts], ARRAY[coalesce(v_job.timeout_ms, 0)]);
        ELSE
            INSERT INTO deferred_jobs (job_id, queue, priority, enqueue_shard, kind, args, attempt,
                max_attempts, timeout_ms, run_at, last_error)
            VALUES (v_lease.job_id, v_lease.queue, v_lease.priority, v_lease.enqueue_shard, v_job.kind,
                v_job.args, v_lease.attempt + 1, v_lease.max_attempts, v_job.timeout_ms,
                clock_timestamp() + v_delay * interval '1 millisecond', p_error);
        END IF;
        RETURN 'retried';
    END IF;
    INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind,
        state, attempt, error)
    VALUES (v_lease.ready_slot, v_lease.job_id, v_lease.run_lease, v_lease.ready_generation,
        v_lease.queue, v_lease.priority, v_job.kind,
        CASE WHEN p_outcome = 'completed' THEN 'completed' ELSE 'failed' END, v_lease.attempt,
        CASE WHEN p_outcome = 'completed' THEN NULL ELSE p_error END);
    INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
    VALUES (v_lease.ready_slot, v_lease.ready_generation, v_lease.queue, v_lease.priority,
        CASE WHEN p_outcome = 'completed' THEN 'completed' ELSE 'failed' END, 1);
    IF p_outcome = 'completed' THEN
        RETURN 'completed';
    END IF;
    IF p_dead_letter THEN
        INSERT INTO dead_letter_jobs (job_id, queue, priority, enqueue_shard, kind, args, attempts,
            max_attempts, timeout_ms, last_error)
        VALUES (v_lease.job_id, v_lease.queue, v_lease.priority, v_lease.enqueue_shard, v_job.kind,
            v_job.args, v_lease.attempt, v_lease.max_attempts, v_job.timeout_ms, p_error);
    END IF;
    RETURN 'failed';
END
$fn$;

CREATE FUNCTION "awa_reactive".rescue_jobs(p_max int, p_stale_ms bigint, p_base_ms double precision,
    p_factor double precision, p_max_ms double precision, p_jitter double precision,
    p_dead_letter boolean)
RETURNS int
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v record;
    v_count int := 0;
BEGIN
    FOR v IN
        SELECT l.lease_slot, l.job_id, l.run_lease, (l.deadline_at < clock_timestamp()) AS expired
        FROM leases l
        WHERE l.heartbeat_at < clock_timestamp() - p_stale_ms * interval '1 millisecond'
           OR l.deadline_at < clock_timestamp()
        LIMIT p_max FOR UPDATE SKIP LOCKED
    LOOP
        IF end_attempt(v.lease_slot, v.job_id, v.run_lease, 'rescued',
                CASE WHEN v.expired THEN 'rescued: deadline passed' ELSE 'rescued: heartbeat stale' END,
                p_base_ms, p_factor, p_max_ms, 1 + p_jitter * (2 * random() - 1), p_dead_letter)
                <> 'lost' THEN
            v_count := v_count + 1;
        END IF;
    END LOOP;
    RETURN v_count;
END
$fn$;

CREATE FUNCTION "awa_reactive".promote_jobs(p_max int) RETURNS int
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_ids bigint[];
    v_lane record;
    v_moved record;
    v_count int := 0;
BEGIN
    SELECT array_agg(d.job_id) INTO v_ids FROM (
        SELECT j.job_id FROM deferred_jobs j WHERE j.run_at <= clock_timestamp()
        ORDER BY j.run_at LIMIT p_max FOR UPDATE SKIP LOCKED) d;
    IF v_ids IS NULL THEN
        RETURN 0;
    END IF;
    FOR v_lane IN
        SELECT j.queue, j.priority, j.enqueue_shard FROM deferred_jobs j WHERE j.job_id = ANY (v_ids)
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    LOOP
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(
            lane_key(v_lane.queue, v_lane.priority, v_lane.enqueue_shard));
        WITH moved AS (
            DELETE FROM deferred_jobs j WHERE j.job_id = ANY (v_ids) AND j.queue = v_lane.queue
              AND j.priority = v_lane.priority AND j.enqueue_shard = v_lane.enqueue_shard
            RETURNING j.*)
        SELECT array_agg(m.job_id ORDER BY m.run_at, m.job_id) AS ids,
               array_agg(m.kind ORDER BY m.run_at, m.job_id) AS kinds,
               array_agg(m.args ORDER BY m.run_at, m.job_id) AS args,
               array_agg(m.attempt ORDER BY m.run_at, m.job_id) AS attempts,
               array_agg(m.max_attempts ORDER BY m.run_at, m.job_id) AS max_attempts,
               array_agg(coalesce(m.timeout_ms, 0) ORDER BY m.run_at, m.job_id) AS timeouts
        INTO v_moved FROM moved m;
        CONTINUE WHEN v_moved.ids IS NULL;
        PERFORM enqueue_lane(v_lane.queue, v_lane.priority, v_lane.enqueue_shard, v_moved.ids,
            v_moved.kinds, v_moved.args, v_moved.attempts, v_moved.max_attempts, v_moved.timeouts);
        v_count := v_count + cardinality(v_moved.ids);
    END LOOP;
    RETURN v_count;
END
$fn$;

CREATE TYPE "awa_reactive".job_location AS (slot int, generation bigint, state text, queue text, priority smallint,
    shard int, lane_seq bigint, kind text, args jsonb, attempt int, max_attempts int, timeout_ms bigint,
    error text, claimed boolean);

CREATE FUNCTION "awa_reactive".locate_job(p_job_id bigint) RETURNS SETOF "awa_reactive".job_location
LANGUAGE plpgsql STABLE SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_cur record;
    v_k int;
BEGIN
    SELECT r.slot, s.slot_count INTO v_cur FROM queue_ring_state s
    CROSS JOIN (SELECT slot FROM queue_ring_rotations ORDER BY generation DESC LIMIT 1) r;
    FOR v_i IN 0 .. v_cur.slot_count - 1 LOOP
        v_k := (v_cur.slot - v_i + v_cur.slot_count) % v_cur.slot_count;
        RETURN QUERY EXECUTE format('SELECT d.ready_slot, d.ready_generation, d.state, d.queue,'
            || ' d.priority, NULL::int, NULL::bigint, d.kind, NULL::jsonb, d.attempt,'
            || ' coalesce((SELECT max(e.max_attempts) FROM %1$I.%3$I e WHERE e.job_id = $1), d.attempt),'
            || ' NULL::bigint, d.error, NULL::boolean FROM %1$I.%2$I d WHERE d.job_id = $1'
            || ' ORDER BY d.finalized_at DESC LIMIT 1',
            'awa_reactive', 'done_entries_' || v_k, 'ready_entries_' || v_k) USING p_job_id;
        IF FOUND THEN
            RETURN;
        END IF;
        RETURN QUERY EXECUTE format('SELECT e.ready_slot, e.ready_generation, NULL::text, e.queue,'
            || ' e.priority, e.enqueue_shard, e.lane_seq, e.kind, e.args, e.attempt, e.max_attempts,'
            || ' e.timeout_ms, NULL::text, EXISTS (SELECT 1 FROM %1$I.%3$I r WHERE r.ready_slot ='
            || ' e.ready_slot AND r.queue = e.queue AND r.priority = e.priority AND r.enqueue_shard ='
            || ' e.enqueue_shard AND r.first_lane_seq <= e.lane_seq AND r.next_lane_seq > e.lane_seq)'
            || ' AS claimed FROM %1$I.%2$I e WHERE e.job_id = $1 AND NOT EXISTS (SELECT 1 FROM %1$I.%4$I t'
            || ' WHERE t.ready_slot = e.ready_slot AND t.queue = e.queue AND t.priority = e.priority'
            || ' AND t.enqueue_shard = e.enqueue_shard AND t.lane_seq = e.lane_seq)'
            || ' ORDER BY claimed, e.enqueued_at DESC, e.lane_seq DESC LIMIT 1',
            'awa_reactive', 'ready_entries_' || v_k, 'ready_claim_ranges_' || v_k, 'ready_tombstones_' || v_k)
            USING p_job_id;
        IF FOUND THEN
            RETURN;
        END IF;
    END LOOP;
END
$fn$;

CREATE FUNCTION "awa_reactive".lock_live_job(p_job_id bigint) RETURNS SETOF "awa_reactive".job_location
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v job_location;
    v_again job_location;
BEGIN
    FOR v_try IN 1 .. 10 LOOP
        SELECT * INTO v FROM locate_job(p_job_id);
        IF NOT FOUND THEN
            RETURN;
        END IF;
        IF v.state IS NOT NULL THEN
            RETURN NEXT v;
            RETURN;
        END IF;
        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = v.queue AND h.priority = v.priority AND h.enqueue_shard = v.shard FOR UPDATE;
        -- A new statement, so a new snapshot: it sees what committed while this waited for the head.
        SELECT * INTO v_again FROM locate_job(p_job_id);
        IF FOUND AND v_again.state IS NULL AND v_again.slot = v.slot AND v_again.queue = v.queue
                AND v_again.priority = v.priority AND v_again.shard = v.shard
                AND v_again.lane_seq = v.lane_seq THEN
            RETURN NEXT v_again;
            RETURN;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'job % kept changing while it was being locked', p_job_id USING ERRCODE = '40001';
END
$fn$;

CREATE FUNCTION "awa_reactive".cancel_job(p_job_id bigint) RETURNS text
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_def record;
    v_cur record;
    v job_location;
BEGIN
    DELETE FROM deferred_jobs WHERE job_id = p_job_id RETURNING * INTO v_def;
    IF FOUND THEN
        SELECT r.slot, r.generation INTO v_cur FROM queue_ring_rotations r
        ORDER BY r.generation DESC LIMIT 1;
        INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind,
            state, attempt)
        VALUES (v_cur.slot, v_def.job_id, 0, v_cur.generation, v_def.queue, v_def.priority, v_def.kind,
            'cancelled', v_def.attempt);
        INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state,
            delta)
        VALUES (v_cur.slot, v_cur.generation, v_def.queue, v_def.priority, 'cancelled', 1);
        RETURN 'cancelled';
    END IF;
    SELECT * INTO v FROM lock_live_job(p_job_id);
    IF NOT FOUND THEN
        RETURN 'not_found';
    END IF;
    IF v.state IS NOT NULL OR v.claimed THEN
        RETURN 'not_cancellable';
    END IF;
    INSERT INTO ready_tombstones (ready_slot, queue, priority, enqueue_shard, lane_seq, job_id)
    VALUES (v.slot, v.queue, v.priority, v.shard, v.lane_seq, p_job_id);
    INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind,
        state, attempt)
    VALUES (v.slot, p_job_id, 0, v.generation, v.queue, v.priority, v.kind, 'cancelled', v.attempt);
    INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
    VALUES (v.slot, v.generation, v.queue, v.priority, 'cancelled', 1);
    RETURN 'cancelled';
END
$fn$;

CREATE FUNCTION "awa_reactive".job_status(p_job_id bigint)
RETURNS TABLE (o_state text, o_queue text, o_kind text, o_priority smallint, o_attempt int,
    o_max_attempts int, o_run_at timestamptz, o_error text)
LANGUAGE plpgsql STABLE SET search_path = "awa_reactive", pg_temp AS $fn$
BEGIN
    RETURN QUERY SELECT 'scheduled'::text, d.queue, d.kind, d.priority, d.attempt, d.max_attempts,
        d.run_at, d.last_error FROM deferred_jobs d WHERE d.job_id = p_job_id;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT coalesce(l.state, CASE WHEN l.claimed THEN 'running' ELSE 'available' END),
        l.queue, l.kind, l.priority, l.attempt, l.max_attempts, NULL::timestamptz, l.error
    FROM locate_job(p_job_id) l;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT 'failed'::text, f.queue, f.kind, f.priority, f.attempts, f.max_attempts,
        NULL::timestamptz, f.last_error FROM dead_letter_jobs f WHERE f.job_id = p_job_id;
END
$fn$;

CREATE FUNCTION "awa_reactive".move_job(p_job_id bigint, p_queue text, p_priority smallint, p_shard int)
RETURNS TABLE (o_result text, o_state text, o_queue text, o_kind text, o_priority smallint,
    o_attempt int, o_max_attempts int, o_run_at timestamptz, o_error text, o_source_queue text,
    o_source_priority smallint, o_source_shard int, o_spent_next bigint)
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v job_location;
    v_def record;
    v_has_lane boolean;
    v_claim_seq regclass;
    v_cursor bigint;
    v_spent bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(lane_key(p_queue, p_priority, p_shard));
    v_has_lane := EXISTS (SELECT 1 FROM queue_lanes l WHERE l.queue = p_queue
        AND l.priority = p_priority AND l.enqueue_shard = p_shard);
    IF v_has_lane THEN
        UPDATE deferred_jobs SET queue = p_queue, priority = p_priority, enqueue_shard = p_shard
        WHERE job_id = p_job_id RETURNING * INTO v_def;
        IF FOUND THEN
            RETURN QUERY SELECT 'moved'::text, 'scheduled'::text, v_def.queue, v_def.kind,
                v_def.priority, v_def.attempt, v_def.max_attempts, v_def.run_at, v_def.last_error,
                NULL::text, NULL::smallint, NULL::int, NULL::bigint;
            RETURN;
        END IF;
    ELSIF EXISTS (SELECT 1 FROM deferred_jobs WHERE job_id = p_job_id) THEN
        RETURN QUERY SELECT 'no_lane'::text, NULL::text, NULL::text, NULL::text, NULL::smallint,
            NULL::int, NULL::int, NULL::timestamptz, NULL::text, NULL::text, NULL::smallint, NULL::int,
            NULL::bigint;
        RETURN;
    END IF;
    SELECT * INTO v FROM lock_live_job(p_job_id);
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, NULL::text, NULL::text, NULL::text, NULL::smallint,
            NULL::int, NULL::int, NULL::timestamptz, NULL::text, NULL::text, NULL::smallint, NULL::int,
            NULL::bigint;
        RETURN;
    END IF;
    IF v.state IS NOT NULL OR v.claimed THEN
        RETURN QUERY SELECT CASE WHEN v.state IS NULL THEN 'claimed' ELSE 'finished' END,
            coalesce(v.state, 'running'), v.queue, v.kind, v.priority, v.attempt, v.max_attempts,
            NULL::timestamptz, v.error, NULL::text, NULL::smallint, NULL::int, NULL::bigint;
        RETURN;
    END IF;
    IF v.queue <> p_queue OR v.priority <> p_priority THEN
        IF NOT v_has_lane THEN
            RETURN QUERY SELECT 'no_lane'::text, NULL::text, NULL::text, NULL::text, NULL::smallint,
                NULL::int, NULL::int, NULL::timestamptz, NULL::text, NULL::text, NULL::smallint,
                NULL::int, NULL::bigint;
            RETURN;
        END IF;
        INSERT INTO ready_tombstones (ready_slot, queue, priority, enqueue_shard, lane_seq, job_id)
        VALUES (v.slot, v.queue, v.priority, v.shard, v.lane_seq, p_job_id);
        -- The source lane's effective cursor, as prune's pending-ready gate computes it.
        SELECT l.claim_seq INTO v_claim_seq FROM queue_lanes l
        WHERE l.queue = v.queue AND l.priority = v.priority AND l.enqueue_shard = v.shard;
        EXECUTE format('SELECT greatest(pg_sequence_last_value($1) + 1, (SELECT max(r.next_lane_seq)'
            || ' FROM %I.%I r WHERE r.ready_slot = $2 AND r.queue = $3 AND r.priority = $4'
            || ' AND r.enqueue_shard = $5))', 'awa_reactive', 'ready_claim_ranges_' || v.slot)
        INTO v_cursor USING v_claim_seq, v.slot, v.queue, v.priority, v.shard;
        IF v_cursor = v.lane_seq THEN
            v_spent := v.lane_seq + 1;
            INSERT INTO ready_claim_ranges (ready_slot, queue, priority, enqueue_shard, first_lane_seq,
                next_lane_seq)
            VALUES (v.slot, v.queue, v.priority, v.shard, v.lane_seq, v_spent);
        END IF;
        PERFORM enqueue_lane(p_queue, p_priority, p_shard, ARRAY[p_job_id], ARRAY[v.kind],
            ARRAY[v.args], ARRAY[v.attempt], ARRAY[v.max_attempts], ARRAY[coalesce(v.timeout_ms, 0)]);
    END IF;
    RETURN QUERY SELECT 'moved'::text, 'available'::text, p_queue, v.kind, p_priority, v.attempt,
        v.max_attempts, NULL::timestamptz, NULL::text, v.queue, v.priority, v.shard, v_spent;
END
$fn$;

CREATE FUNCTION "awa_reactive".retry_failed_jobs(p_job_id bigint, p_queue text, p_cutoff timestamptz, p_limit int)
RETURNS TABLE (o_old_job_id bigint, o_new_job_id bigint)
LANGUAGE plpgsql SET search_path = "awa_reactive", pg_temp AS $fn$
DECLARE
    v_ids bigint[];
    v_lane record;
    v_gone record;
BEGIN
    IF p_job_id IS NOT NULL THEN
        SELECT array_agg(f.job_id) INTO v_ids FROM (
            SELECT f.job_id FROM dead_letter_jobs f WHERE f.job_id = p_job_id FOR UPDATE) f;
    ELSE
        SELECT array_agg(f.job_id) INTO v_ids FROM (
            SELECT f.job_id FROM dead_letter_jobs f WHERE f.queue = p_queue AND f.failed_at <= p_cutoff
            ORDER BY f.failed_at, f.job_id LIMIT p_limit FOR UPDATE SKIP LOCKED) f;
    END IF;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;
    FOR v_lane IN
        SELECT f.queue, f.priority, f.enqueue_shard FROM dead_letter_jobs f WHERE f.job_id = ANY (v_ids)
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    LOOP
        WITH gone AS (
            DELETE FROM dead_letter_jobs f WHERE f.job_id = ANY (v_ids) AND f.queue = v_lane.queue
              AND f.priority = v_lane.priority AND f.enqueue_shard = v_lane.enqueue_shard
            RETURNING f.*)
        SELECT array_agg(g.job_id ORDER BY g.failed_at, g.job_id) AS ids,
               array_agg(g.kind ORDER BY g.failed_at, g.job_id) AS kinds,
               array_agg(g.args ORDER BY g.failed_at, g.job_id) AS args,
               array_agg(g.max_attempts ORDER BY g.failed_at, g.job_id) AS max_attempts,
               array_agg(coalesce(g.timeout_ms, 0) ORDER BY g.failed_at, g.job_id) AS timeouts
        INTO v_gone FROM gone g;
        RETURN QUERY SELECT v_gone.ids[e.o_ord], e.o_job_id
        FROM enqueue_lane(v_lane.queue, v_lane.priority, v_lane.enqueue_shard, NULL,
            v_gone.kinds, v_gone.args, array_fill(1, ARRAY[cardinality(v_gone.ids)]),
            v_gone.max_attempts, v_gone.timeouts) e;
    END LOOP;
END
$fn$;

INSERT INTO "awa_reactive".awa_reactive_schema_version (version) VALUES (1);
