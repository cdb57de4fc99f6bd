-- awa-reactive schema, step 4: a claim is one statement and one commit; a completion batch is set-based.
--
-- Step 1's claim was BEGIN, claim_jobs, COMMIT and a second transaction that advanced each claimed lane's cursor
-- (advance_claim_cursors); it found lanes by probing every ready_segments child and wrote each lease and receipt with
-- its own INSERT. Here:
-- - claim_jobs_v2 runs alone, in autocommit: one round trip, one commit. It never sets a lane's cursor to its own
--   range (that would skip the range's jobs if the claim then rolled back). It moves the cursor only past ranges it
--   reads as committed, which it does while it holds the lane's claim head, so the cursor lags by at most one claim
--   per lane until that lane's next claim. Every reader of the cursor takes the larger of the sequence and the
--   lane's highest committed range end (the prune gate and move_job already did; counts() does from this step on).
-- - Lanes with work are found from their two sequences, not from the segment children.
-- - Leases and receipts are written set-based, two statements per lane, and a lease now carries the job's kind, so
--   a completion needs no ready-row lookup.
-- - complete_attempts ends a batch with one statement per lease slot: delete the leases (the race guard, as before),
--   then closures, done rows and one count delta per (slot, generation, queue, priority) instead of one per job.
-- - Statements aimed at one slot are no longer dynamic SQL (planned on every call): functions generated here for
--   each slot name its children in static statements, which PL/pgSQL plans once per session; claim_jobs_v2 and
--   complete_attempts use generic plans (force_generic_plan), so no statement of theirs is planned per call.
-- A library of an earlier version still running fails loudly: claim_jobs is dropped.
-- Placeholders as in step 1.

-- Leases written by claim_jobs_v2 carry the job's kind; leases claimed before this step have none, and their
-- completion takes the per-attempt path of end_attempt.
ALTER TABLE {{schema}}.leases ADD COLUMN kind text;

-- counts() reads each lane's highest committed range end (the sequence may lag by one claim): one index probe per
-- lane and slot.
CREATE INDEX ready_claim_ranges_lane_next_idx
    ON {{schema}}.ready_claim_ranges (queue, priority, enqueue_shard, next_lane_seq);

DROP FUNCTION {{schema}}.claim_jobs(text, int, text, bigint);

-- Per-slot functions, one per slot of the ring, generated from the templates below ("@k@" is the slot):
-- claim_range_end_<k>(queue, priority, shard, position): the end of slot k's committed claim range of the lane that
--   covers the position, or NULL;
-- claim_rows_<k>(queue, priority, shard, from, max): up to max live rows (not tombstoned) of the lane in slot k at or
--   past from, as aligned arrays in lane_seq order;
-- complete_in_lease_slot_<k>(lease slots, job ids, run leases): completes the batch's attempts whose lease is in
--   lease slot k and was written by claim_jobs_v2 (it has a kind): the leases are locked in (job_id, run_lease)
--   order, so overlapping batches cannot deadlock, and deleted (the race guard); each deleted lease gives a
--   'completed' closure in its receipt's claim slot and a done row in its job's ready slot, and each (ready slot,
--   generation, queue, priority) one count delta. Returns the input positions completed (an attempt given twice
--   counts at its first position).
DO $per_slot$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot LOOP
        EXECUTE replace($template$
CREATE FUNCTION {{schema}}.claim_range_end_@k@(p_queue text, p_priority smallint, p_shard int, p_position bigint)
RETURNS bigint
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    RETURN (SELECT r.next_lane_seq FROM ready_claim_ranges_@k@ r
            WHERE r.ready_slot = @k@ AND r.queue = p_queue AND r.priority = p_priority AND r.enqueue_shard = p_shard
              AND r.first_lane_seq <= p_position AND r.next_lane_seq > p_position
            ORDER BY r.first_lane_seq DESC LIMIT 1);
END
$fn$
$template$, '@k@', v_slot::text);
        EXECUTE replace($template$
CREATE FUNCTION {{schema}}.claim_rows_@k@(p_queue text, p_priority smallint, p_shard int, p_from bigint, p_max int,
    OUT o_lane_seqs bigint[], OUT o_job_ids bigint[], OUT o_kinds text[], OUT o_args jsonb[], OUT o_attempts int[],
    OUT o_max_attempts int[], OUT o_timeouts bigint[])
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    SELECT array_agg(e.lane_seq ORDER BY e.lane_seq), array_agg(e.job_id ORDER BY e.lane_seq),
        array_agg(e.kind ORDER BY e.lane_seq), array_agg(e.args ORDER BY e.lane_seq),
        array_agg(e.attempt ORDER BY e.lane_seq), array_agg(e.max_attempts ORDER BY e.lane_seq),
        array_agg(e.timeout_ms ORDER BY e.lane_seq)
    INTO o_lane_seqs, o_job_ids, o_kinds, o_args, o_attempts, o_max_attempts, o_timeouts
    FROM (SELECT e.lane_seq, e.job_id, e.kind, e.args, e.attempt, e.max_attempts, e.timeout_ms
          FROM ready_entries_@k@ e
          WHERE e.ready_slot = @k@ AND e.queue = p_queue AND e.priority = p_priority AND e.enqueue_shard = p_shard
            AND e.lane_seq >= p_from
            AND NOT EXISTS (SELECT 1 FROM ready_tombstones_@k@ t
                            WHERE t.ready_slot = @k@ AND t.queue = p_queue AND t.priority = p_priority
                              AND t.enqueue_shard = p_shard AND t.lane_seq = e.lane_seq)
          ORDER BY e.lane_seq LIMIT p_max) e;
END
$fn$
$template$, '@k@', v_slot::text);
    END LOOP;
    FOR v_slot IN SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot LOOP
        EXECUTE replace($template$
CREATE FUNCTION {{schema}}.complete_in_lease_slot_@k@(p_lease_slots int[], p_job_ids bigint[], p_run_leases bigint[])
RETURNS int[]
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_completed int[];
BEGIN
    WITH a AS (
        SELECT x.ord::int AS ord, x.job_id, x.run_lease
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS x (lease_slot, job_id, run_lease, ord)
        WHERE x.lease_slot = @k@
    ), locked AS MATERIALIZED (
        SELECT l.job_id, l.run_lease FROM leases_@k@ l
        WHERE l.lease_slot = @k@ AND l.kind IS NOT NULL
          AND (l.job_id, l.run_lease) IN (SELECT a.job_id, a.run_lease FROM a)
        ORDER BY l.job_id, l.run_lease FOR UPDATE
    ), gone AS (
        DELETE FROM leases_@k@ l USING locked k
        WHERE l.lease_slot = @k@ AND l.job_id = k.job_id AND l.run_lease = k.run_lease
        RETURNING l.*
    ), closures AS (
        INSERT INTO lease_claim_closures (claim_slot, receipt_id, job_id, run_lease, ready_slot, ready_generation,
            outcome)
        SELECT g.claim_slot, g.receipt_id, g.job_id, g.run_lease, g.ready_slot, g.ready_generation, 'completed'
        FROM gone g
    ), done AS (
        INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind, state,
            attempt)
        SELECT g.ready_slot, g.job_id, g.run_lease, g.ready_generation, g.queue, g.priority, g.kind, 'completed',
            g.attempt
        FROM gone g
    ), deltas AS (
        INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
        SELECT g.ready_slot, g.ready_generation, g.queue, g.priority, 'completed', count(*) FROM gone g
        GROUP BY g.ready_slot, g.ready_generation, g.queue, g.priority
    )
    SELECT array_agg(f.ord) INTO v_completed
    FROM (SELECT min(a.ord) AS ord FROM a JOIN gone g ON g.job_id = a.job_id AND g.run_lease = a.run_lease
          GROUP BY a.job_id, a.run_lease) f;
    RETURN coalesce(v_completed, '{}');
END
$fn$
$template$, '@k@', v_slot::text);
    END LOOP;
END
$per_slot$;

-- One claim batch, in the caller's statement (autocommit: one round trip, one commit). Lanes whose enqueue sequence
-- is past their claim sequence, in priority order; a lane's claim head is locked FOR UPDATE SKIP LOCKED, so
-- concurrent claimers take other lanes, and every earlier claimer of the lane has committed or rolled back.
-- The cursor starts at the claim sequence's last value + 1; a committed range covering it (the previous claim of the
-- lane) moves it, and the sequence, past that range. Up to the batch's remaining size, the live rows (not
-- tombstoned) of the cursor's slot at or past the cursor are taken in lane_seq order; the range [cursor, last
-- taken + 1) spends them and the tombstoned rows between (a slot with only tombstoned rows past the cursor spends
-- them up to the segment's end). One range row per lane, then a lease (current lease slot) and a receipt (current
-- claim slot) per job, set-based; run_lease = receipt_id.
CREATE FUNCTION {{schema}}.claim_jobs_v2(p_queue text, p_max int, p_worker text, p_default_timeout_ms bigint)
RETURNS TABLE (o_job_id bigint, o_run_lease bigint, o_kind text, o_args text, o_priority smallint,
    o_attempt int, o_max_attempts int, o_timeout_ms bigint, o_ready_slot int, o_ready_generation bigint,
    o_lease_slot int, o_claim_slot int, o_enqueue_shard int, o_lane_seq bigint, o_deadline_at timestamptz)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_lane record;
    v_c bigint;
    v_next bigint;
    v_left int := p_max;
    v_has_segment boolean;
    v_slot int;
    v_generation bigint;
    v_segment_next bigint;
    v_seqs bigint[];
    v_ids bigint[];
    v_kinds text[];
    v_args jsonb[];
    v_attempts int[];
    v_max_attempts int[];
    v_timeouts bigint[];
    v_end bigint;
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
        WHERE l.queue = p_queue AND pg_sequence_last_value(l.enqueue_seq) > pg_sequence_last_value(l.claim_seq)
        ORDER BY l.priority, random()
    LOOP
        EXIT WHEN v_left <= 0;
        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = p_queue AND h.priority = v_lane.priority AND h.enqueue_shard = v_lane.enqueue_shard
        FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        v_c := pg_sequence_last_value(v_lane.claim_seq) + 1;
        v_has_segment := false;
        LOOP
            IF NOT v_has_segment OR v_segment_next <= v_c THEN
                SELECT s.ready_slot, s.ready_generation, greatest(v_c, s.first_lane_seq), s.next_lane_seq
                INTO v_slot, v_generation, v_c, v_segment_next
                FROM ready_segments s
                WHERE s.queue = p_queue AND s.priority = v_lane.priority
                  AND s.enqueue_shard = v_lane.enqueue_shard AND s.next_lane_seq > v_c
                ORDER BY s.next_lane_seq LIMIT 1;
                -- Nothing committed past the cursor: the lane's newest lane_seqs are uncommitted or rolled back.
                v_has_segment := FOUND;
                EXIT WHEN NOT v_has_segment;
            END IF;
            EXECUTE format('SELECT %I.%I($1, $2, $3, $4)', {{schema_name}}, 'claim_range_end_' || v_slot)
            INTO v_next USING p_queue, v_lane.priority, v_lane.enqueue_shard, v_c;
            EXIT WHEN v_next IS NULL;
            -- A committed claim spent this range: move past it (forward only, and never past committed work).
            PERFORM setval(v_lane.claim_seq, v_next - 1)
            WHERE pg_sequence_last_value(v_lane.claim_seq) < v_next - 1;
            v_c := v_next;
        END LOOP;
        CONTINUE WHEN NOT v_has_segment;
        EXECUTE format('SELECT * FROM %I.%I($1, $2, $3, $4, $5)', {{schema_name}}, 'claim_rows_' || v_slot)
            INTO v_seqs, v_ids, v_kinds, v_args, v_attempts, v_max_attempts, v_timeouts
            USING p_queue, v_lane.priority, v_lane.enqueue_shard, v_c, v_left;
        v_end := coalesce(v_seqs[cardinality(v_seqs)] + 1, v_segment_next);
        INSERT INTO ready_claim_ranges (ready_slot, queue, priority, enqueue_shard, first_lane_seq, next_lane_seq)
        VALUES (v_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_c, v_end);
        CONTINUE WHEN v_seqs IS NULL;
        v_left := v_left - cardinality(v_seqs);
        RETURN QUERY
        WITH taken AS MATERIALIZED (
            SELECT u.lane_seq, u.job_id, u.kind, u.args, u.attempt, u.max_attempts, u.timeout_ms,
                nextval('receipt_id_seq') AS receipt_id,
                clock_timestamp() + coalesce(u.timeout_ms, p_default_timeout_ms) * interval '1 millisecond'
                    AS deadline_at
            FROM unnest(v_seqs, v_ids, v_kinds, v_args, v_attempts, v_max_attempts, v_timeouts)
                AS u (lane_seq, job_id, kind, args, attempt, max_attempts, timeout_ms)
        ), lease AS (
            INSERT INTO leases (lease_slot, job_id, run_lease, lease_generation, ready_slot, ready_generation,
                claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq, attempt, max_attempts, worker_id,
                heartbeat_at, deadline_at, kind)
            SELECT v_lease_slot, t.job_id, t.receipt_id, v_lease_gen, v_slot, v_generation, v_claim_slot,
                t.receipt_id, p_queue, v_lane.priority, v_lane.enqueue_shard, t.lane_seq, t.attempt,
                t.max_attempts, p_worker, clock_timestamp(), t.deadline_at, t.kind
            FROM taken t
        ), receipt AS (
            INSERT INTO lease_claims (claim_slot, receipt_id, claim_generation, job_id, run_lease, ready_slot,
                ready_generation, lease_slot)
            SELECT v_claim_slot, t.receipt_id, v_claim_gen, t.job_id, t.receipt_id, v_slot, v_generation,
                v_lease_slot
            FROM taken t
        )
        SELECT t.job_id, t.receipt_id, t.kind, t.args::text, v_lane.priority, t.attempt, t.max_attempts,
            t.timeout_ms, v_slot, v_generation, v_lease_slot, v_claim_slot, v_lane.enqueue_shard, t.lane_seq,
            t.deadline_at
        FROM taken t ORDER BY t.lane_seq;
    END LOOP;
END
$fn$;

-- complete_attempts (step 3's signature and results): per lease slot of the batch (slots in order), one call of
-- complete_in_lease_slot_<k>. Leases without a kind (claimed before step 4) and attempts not completed that way go
-- through end_attempt, which completes the former and finds the latter lost.
CREATE OR REPLACE FUNCTION {{schema}}.complete_attempts(p_lease_slots int[], p_job_ids bigint[],
    p_run_leases bigint[])
RETURNS TABLE (o_ord int, o_result text)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_slot int;
    v_completed int[];
    v_ord int;
    v_is_completed boolean[] := array_fill(false, ARRAY[cardinality(p_job_ids)]);
    v record;
BEGIN
    IF cardinality(p_lease_slots) <> cardinality(p_job_ids)
            OR cardinality(p_job_ids) <> cardinality(p_run_leases) THEN
        RAISE EXCEPTION 'complete_attempts needs arrays of one length' USING ERRCODE = '22023';
    END IF;
    FOR v_slot IN SELECT DISTINCT s FROM unnest(p_lease_slots) AS s ORDER BY s LOOP
        IF NOT EXISTS (SELECT 1 FROM lease_ring_slots k WHERE k.slot = v_slot) THEN
            RAISE EXCEPTION 'lease slot % does not exist', v_slot USING ERRCODE = '22023';
        END IF;
        EXECUTE format('SELECT %I.%I($1, $2, $3)', {{schema_name}}, 'complete_in_lease_slot_' || v_slot)
            INTO v_completed USING p_lease_slots, p_job_ids, p_run_leases;
        FOREACH v_ord IN ARRAY v_completed LOOP
            v_is_completed[v_ord] := true;
        END LOOP;
    END LOOP;
    FOR v IN
        SELECT a.ord::int AS ord, a.lease_slot, a.job_id, a.run_lease
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS a (lease_slot, job_id, run_lease, ord)
        ORDER BY a.lease_slot, a.job_id, a.run_lease, a.ord
    LOOP
        o_ord := v.ord;
        o_result := CASE WHEN v_is_completed[v.ord] THEN 'completed'
                         ELSE end_attempt(v.lease_slot, v.job_id, v.run_lease, 'completed', NULL, 0, 1, 0, 1, false)
                    END;
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (4, 'claim in one statement', {{checksum:4}});
