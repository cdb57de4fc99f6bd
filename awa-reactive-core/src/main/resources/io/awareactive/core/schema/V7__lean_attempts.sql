-- awa-reactive schema, step 7: lean attempts. The lease is the only record of an attempt (a claim writes no receipt,
-- an ending no closure), and the hot path calls its per-slot functions by name.
--
-- Until this step every claimed job wrote a lease (lease ring) and a receipt (claim ring), and every ending deleted
-- the lease and wrote a closure next to the receipt. The pair carried no information the lease does not: the lease
-- is inserted in the claim's transaction and deleted, as the race guard, in the ending's, so at every commit the
-- receipts minus closures pointing at a ready slot equal the leases pointing at it, which gate G1 already reads. The
-- receipt and closure were two more heap rows, two more index entries and two more tally upserts per job: about a
-- quarter of the WAL a job wrote, on a path bound by WAL flushes. From this step:
-- - claim_jobs_v2 writes the leases only; a lease's receipt_id is NULL (run_lease still comes from receipt_id_seq,
--   so attempt ids never repeat) and its claim_slot names the claim slot current at the claim, as before.
-- - complete_in_lease_slot_<k> deletes the leases and writes done rows and count deltas; a lease claimed before this
--   step (receipt_id set) is left to end_attempt, as leases without a kind already were.
-- - end_attempt writes a closure only for a lease that has a receipt, so every receipt written before this step is
--   still closed when its attempt ends, and the claim ring's gates (claim.open, G3) still hold for them. Once the
--   claim ring has turned past them it holds nothing, and its prune truncates empty slots.
--
-- Step 4 generated one function per ring slot for each statement that names a slot's children (claim_rows_<k>,
-- claim_range_end_<k>, complete_in_lease_slot_<k>; step 5 added lane_segment_end_<k> and lane_range_end_<k>), so
-- that each is planned once per session. The functions that call them chose the slot at run time with
-- EXECUTE format('SELECT ...<k>(...)'): a statement parsed, analysed and planned on every call, three or more times
-- per claim. Measured with pgbench (one client, no JVM, pg_stat_statements), a claim of 10 jobs spent about a sixth
-- of its time there. Here the callers are generated per installation, like the functions they call: a CASE over the
-- ring's slots whose branches call each slot's function by name, so PL/pgSQL plans every call once per session.
-- Bodies and signatures are otherwise those of step 4 (claim_jobs_v2, less the receipts; complete_attempts, which
-- now tells an unknown lease slot by the CASE having no branch for it instead of a query per slot) and step 5
-- (lane_newest_end).
-- Placeholders as in step 1.

ALTER TABLE {{schema}}.leases ALTER COLUMN receipt_id DROP NOT NULL;

-- Ends an attempt, as in step 1, except that only a lease with a receipt (claimed before step 7) gets a closure.
CREATE OR REPLACE FUNCTION {{schema}}.end_attempt(p_lease_slot int, p_job_id bigint, p_run_lease bigint, p_outcome text,
    p_error text, p_base_ms double precision, p_factor double precision, p_max_ms double precision,
    p_jitter double precision, p_dead_letter boolean)
RETURNS text
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_lease record;
    v_job record;
    v_n int;
    v_closure text;
    v_delay double precision;
    v_exp double precision;
BEGIN
    EXECUTE format('DELETE FROM %I.%I WHERE lease_slot = $1 AND job_id = $2 AND run_lease = $3'
        || ' RETURNING *', {{schema_name}}, 'leases_' || p_lease_slot)
    INTO v_lease USING p_lease_slot, p_job_id, p_run_lease;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    IF v_n = 0 THEN
        RETURN 'lost';
    END IF;
    -- The ready row outlives the lease: queue prune keeps a slot while a lease points at it.
    EXECUTE format('SELECT kind, args, timeout_ms FROM %I.%I WHERE ready_slot = $1 AND queue = $2'
        || ' AND priority = $3 AND enqueue_shard = $4 AND lane_seq = $5',
        {{schema_name}}, 'ready_entries_' || v_lease.ready_slot)
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
    -- Only an attempt claimed before step 7 has a receipt to close.
    IF v_lease.receipt_id IS NOT NULL THEN
        INSERT INTO lease_claim_closures (claim_slot, receipt_id, job_id, run_lease, ready_slot,
            ready_generation, outcome)
        VALUES (v_lease.claim_slot, v_lease.receipt_id, v_lease.job_id, v_lease.run_lease,
            v_lease.ready_slot, v_lease.ready_generation, v_closure);
    END IF;
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

-- Completions in one lease slot, as in step 5, without closures; leases with a receipt (claimed before step 7) are
-- not taken here, so complete_attempts ends them through end_attempt, which closes their receipts.
DO $per_slot$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot LOOP
        EXECUTE replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.complete_in_lease_slot_@k@(p_lease_slots int[], p_job_ids bigint[],
    p_run_leases bigint[])
RETURNS int[]
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off AS $fn$
DECLARE
    v_completed int[];
BEGIN
    WITH a AS (
        SELECT x.ord::int AS ord, x.job_id, x.run_lease
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS x (lease_slot, job_id, run_lease, ord)
        WHERE x.lease_slot = @k@
    ), locked AS MATERIALIZED (
        -- One primary-key probe per attempt, in (job_id, run_lease) order: the lateral subquery with FOR UPDATE
        -- is not flattened, so no plan can read the whole child instead.
        SELECT l.ctid AS row_id
        FROM (SELECT DISTINCT a.job_id, a.run_lease FROM a ORDER BY a.job_id, a.run_lease) a
        CROSS JOIN LATERAL (
            SELECT l.ctid FROM leases_@k@ l
            WHERE l.lease_slot = @k@ AND l.job_id = a.job_id AND l.run_lease = a.run_lease AND l.kind IS NOT NULL
              AND l.receipt_id IS NULL
            FOR UPDATE) l
    ), gone AS (
        -- The locked rows by their ctid (stable while this transaction holds their row locks).
        DELETE FROM leases_@k@ l WHERE l.ctid = ANY (ARRAY(SELECT k.row_id FROM locked k))
        RETURNING l.*
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

-- slot_cases(slots, call, terminator, indent): "WHEN <k> THEN <call with %s = k><terminator>" for every slot, one
-- per line, each line after the first indented by indent spaces: the branches of a CASE that calls a per-slot function
-- by name. Used only while this step runs.
CREATE FUNCTION {{schema}}.slot_cases(p_slots int[], p_call text, p_terminator text, p_indent int) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT string_agg(format('WHEN %s THEN ', k) || replace(p_call, '%s', k::text) || p_terminator,
        E'\n' || repeat(' ', p_indent) ORDER BY k)
    FROM unnest(p_slots) AS k
$fn$;

DO $static_dispatch$
DECLARE
    v_queue_slots int[] := ARRAY(SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot);
    v_lease_slots int[] := ARRAY(SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot);
BEGIN
    -- Each @name@ becomes one "WHEN <k> THEN <call of name_<k>>" per slot (a CASE expression or statement). The
    -- claim writes per job a lease (current lease slot) and no receipt.
    EXECUTE replace(replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.claim_jobs_v2(p_queue text, p_max int, p_worker text, p_default_timeout_ms bigint)
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
BEGIN
    SELECT r.slot, r.generation INTO v_lease_slot, v_lease_gen
    FROM lease_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    SELECT r.slot INTO v_claim_slot FROM claim_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
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
            v_next := CASE v_slot
                @claim_range_end@
            END;
            EXIT WHEN v_next IS NULL;
            -- A committed claim spent this range: move past it (forward only, and never past committed work).
            PERFORM setval(v_lane.claim_seq, v_next - 1)
            WHERE pg_sequence_last_value(v_lane.claim_seq) < v_next - 1;
            v_c := v_next;
        END LOOP;
        CONTINUE WHEN NOT v_has_segment;
        CASE v_slot
            @claim_rows@
        END CASE;
        v_end := coalesce(v_seqs[cardinality(v_seqs)] + 1, v_segment_next);
        INSERT INTO ready_claim_ranges (ready_slot, queue, priority, enqueue_shard, first_lane_seq, next_lane_seq)
        VALUES (v_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_c, v_end);
        CONTINUE WHEN v_seqs IS NULL;
        v_left := v_left - cardinality(v_seqs);
        RETURN QUERY
        WITH taken AS MATERIALIZED (
            SELECT u.lane_seq, u.job_id, u.kind, u.args, u.attempt, u.max_attempts, u.timeout_ms,
                nextval('receipt_id_seq') AS run_lease,
                clock_timestamp() + coalesce(u.timeout_ms, p_default_timeout_ms) * interval '1 millisecond'
                    AS deadline_at
            FROM unnest(v_seqs, v_ids, v_kinds, v_args, v_attempts, v_max_attempts, v_timeouts)
                AS u (lane_seq, job_id, kind, args, attempt, max_attempts, timeout_ms)
        ), lease AS (
            INSERT INTO leases (lease_slot, job_id, run_lease, lease_generation, ready_slot, ready_generation,
                claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq, attempt, max_attempts, worker_id,
                heartbeat_at, deadline_at, kind)
            SELECT v_lease_slot, t.job_id, t.run_lease, v_lease_gen, v_slot, v_generation, v_claim_slot,
                NULL, p_queue, v_lane.priority, v_lane.enqueue_shard, t.lane_seq, t.attempt,
                t.max_attempts, p_worker, clock_timestamp(), t.deadline_at, t.kind
            FROM taken t
        )
        SELECT t.job_id, t.run_lease, t.kind, t.args::text, v_lane.priority, t.attempt, t.max_attempts,
            t.timeout_ms, v_slot, v_generation, v_lease_slot, v_claim_slot, v_lane.enqueue_shard, t.lane_seq,
            t.deadline_at
        FROM taken t ORDER BY t.lane_seq;
    END LOOP;
END
$fn$;
$template$,
        '@claim_range_end@', {{schema}}.slot_cases(v_queue_slots,
            'claim_range_end_%s(p_queue, v_lane.priority, v_lane.enqueue_shard, v_c)', '', 16)),
        '@claim_rows@', {{schema}}.slot_cases(v_queue_slots,
            'SELECT * INTO v_seqs, v_ids, v_kinds, v_args, v_attempts, v_max_attempts, v_timeouts'
            || ' FROM claim_rows_%s(p_queue, v_lane.priority, v_lane.enqueue_shard, v_c, v_left)', ';', 12));
    EXECUTE replace($template$
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
        -- The CASE has a branch for every lease slot (its functions never return NULL): no branch, no slot.
        v_completed := CASE v_slot
            @complete_in_lease_slot@
        END;
        IF v_completed IS NULL THEN
            RAISE EXCEPTION 'lease slot % does not exist', v_slot USING ERRCODE = '22023';
        END IF;
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
$template$,
        '@complete_in_lease_slot@', {{schema}}.slot_cases(v_lease_slots,
            'complete_in_lease_slot_%s(p_lease_slots, p_job_ids, p_run_leases)', '', 12));
    EXECUTE replace(replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.lane_newest_end(p_family text, p_queue text, p_priority smallint, p_shard int,
    p_slots int[])
RETURNS bigint
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_k int;
    v_end bigint;
BEGIN
    FOREACH v_k IN ARRAY p_slots LOOP
        v_end := CASE p_family
            WHEN 'segment' THEN CASE v_k
                @lane_segment_end@
            END
            WHEN 'range' THEN CASE v_k
                @lane_range_end@
            END
        END;
        IF v_end IS NOT NULL THEN
            RETURN v_end;
        END IF;
    END LOOP;
    RETURN NULL;
END
$fn$;
$template$,
        '@lane_segment_end@', {{schema}}.slot_cases(v_queue_slots,
            'lane_segment_end_%s(p_queue, p_priority, p_shard)', '', 16)),
        '@lane_range_end@', {{schema}}.slot_cases(v_queue_slots,
            'lane_range_end_%s(p_queue, p_priority, p_shard)', '', 16));
END
$static_dispatch$;

DROP FUNCTION {{schema}}.slot_cases(int[], text, text, int);

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (7, 'lean attempts', {{checksum:7}});
