-- awa-reactive schema, step 5: the hot path reads ring children by index probes only, a claim finds the lane's last
-- claim range in one probe, a lease writes two index entries instead of four, and an enqueue reserves its lane
-- positions in one step and notifies only a lane that had no work.
--
-- Measured with pgbench on the SQL of step 4 (no JVM), a claim spent about a fifth of its time in
-- claim_range_end_<k>: it looked for the range covering a position by walking the lane's ranges backwards from the
-- position (first_lane_seq <= p), which for a position past every range (the usual case: the cursor is already
-- repaired) reads every range of the lane in the slot. A lane's claim ranges are disjoint (each starts at the lane's
-- cursor, which only moves forward, under the lane's claim head), so the range covering p, if any, is the one with
-- the smallest end past p: one probe of ready_claim_ranges_lane_next_idx (step 4).
--
-- Every lease written costs a heap row and one entry in each of its indexes. Two of them serve no hot-path read:
-- leases_job_id_idx is read by no statement (every lease lookup names its lease slot, so it probes the primary key),
-- and leases_queue_idx served only counts(), whose running count now reads the lease children, which hold only
-- the leases written since each slot was last truncated.
--
-- A ring child's planner statistics describe whatever it held when it was last analyzed, and a TRUNCATE makes them
-- meaningless. Planned (once per session, generic) while a lease child looked empty, the completion's lease lookup
-- became a scan of the whole child (sequential, or of the primary key on lease_slot alone), so a completion read
-- every lease written to the slot since its last truncation: O(rows), twice the buffer reads per completion after
-- 6,000 claims into one slot. complete_in_lease_slot_<k> now probes the primary key once per attempt from a lateral
-- subquery that no plan can flatten, and deletes the locked rows by ctid; the per-slot functions of the claim and
-- completion paths also plan with enable_seqscan off, since each of their statements has an index that answers it.
--
-- enqueue_lane was planned on every call (custom plans), took one nextval per job for its lane positions and sent a
-- NOTIFY with every batch; it now keeps one generic plan per session, reserves the batch's positions in one step,
-- and notifies only when the lane goes from no work to work.
-- Placeholders as in step 1.

DROP INDEX {{schema}}.leases_job_id_idx;
DROP INDEX {{schema}}.leases_queue_idx;

DO $per_slot$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot LOOP
        EXECUTE replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.claim_range_end_@k@(p_queue text, p_priority smallint, p_shard int,
    p_position bigint)
RETURNS bigint
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off AS $fn$
DECLARE
    v_first bigint;
    v_next bigint;
BEGIN
    SELECT r.first_lane_seq, r.next_lane_seq INTO v_first, v_next FROM ready_claim_ranges_@k@ r
    WHERE r.queue = p_queue AND r.priority = p_priority AND r.enqueue_shard = p_shard
      AND r.next_lane_seq > p_position
    ORDER BY r.next_lane_seq LIMIT 1;
    RETURN CASE WHEN v_first <= p_position THEN v_next END;
END
$fn$
$template$, '@k@', v_slot::text);
        EXECUTE format('ALTER FUNCTION %I.%I(text, smallint, int, bigint, int) SET enable_seqscan = off',
            {{schema_name}}, 'claim_rows_' || v_slot);
        EXECUTE replace($template$
CREATE FUNCTION {{schema}}.lane_segment_end_@k@(p_queue text, p_priority smallint, p_shard int)
RETURNS bigint
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off AS $fn$
BEGIN
    RETURN (SELECT s.next_lane_seq FROM ready_segments_@k@ s
            WHERE s.queue = p_queue AND s.priority = p_priority AND s.enqueue_shard = p_shard
            ORDER BY s.next_lane_seq DESC LIMIT 1);
END
$fn$
$template$, '@k@', v_slot::text);
        EXECUTE replace($template$
CREATE FUNCTION {{schema}}.lane_range_end_@k@(p_queue text, p_priority smallint, p_shard int)
RETURNS bigint
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off AS $fn$
BEGIN
    RETURN (SELECT r.next_lane_seq FROM ready_claim_ranges_@k@ r
            WHERE r.queue = p_queue AND r.priority = p_priority AND r.enqueue_shard = p_shard
            ORDER BY r.next_lane_seq DESC LIMIT 1);
END
$fn$
$template$, '@k@', v_slot::text);
    END LOOP;
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
            FOR UPDATE) l
    ), gone AS (
        -- The locked rows by their ctid (stable while this transaction holds their row locks).
        DELETE FROM leases_@k@ l WHERE l.ctid = ANY (ARRAY(SELECT k.row_id FROM locked k))
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

-- The queue ring's slots, newest generation first: the order in which a lane's positions grow. A lane's rows are
-- written in lane_seq order into the slot current at the time (the lane's enqueue lock orders its enqueues, and each
-- reads the current slot after taking it), and a claim range lives in the slot of the rows it covers, so a newer slot
-- holds only larger positions of a lane than an older one.
CREATE FUNCTION {{schema}}.queue_slots_newest_first() RETURNS int[]
LANGUAGE sql STABLE SET search_path = {{schema}}, pg_temp AS $fn$
    SELECT array_agg(r.slot ORDER BY r.generation DESC)
    FROM (SELECT r.generation, r.slot FROM queue_ring_rotations r ORDER BY r.generation DESC
          LIMIT (SELECT s.slot_count FROM queue_ring_state s)) r
$fn$;

-- The lane's largest segment end (p_family 'segment') or committed claim range end ('range'), or NULL: found in the
-- newest slot holding one (positions grow with the slots' generations), by probing the named children newest first
-- (p_slots: queue_slots_newest_first), never the parent, whose every child a queue prune may be locking NOWAIT.
CREATE FUNCTION {{schema}}.lane_newest_end(p_family text, p_queue text, p_priority smallint, p_shard int,
    p_slots int[])
RETURNS bigint
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_k int;
    v_end bigint;
BEGIN
    FOREACH v_k IN ARRAY p_slots LOOP
        EXECUTE format('SELECT %I.%I($1, $2, $3)', {{schema_name}}, 'lane_' || p_family || '_end_' || v_k)
            INTO v_end USING p_queue, p_priority, p_shard;
        IF v_end IS NOT NULL THEN
            RETURN v_end;
        END IF;
    END LOOP;
    RETURN NULL;
END
$fn$;

-- Immediate enqueue of a batch into one lane (step 1's signature and results). Under the lane lock (held to commit,
-- so commit order equals lane_seq order, and no other enqueuer moves the lane's sequence meanwhile) the batch's
-- lane_seqs are reserved in one step, and workers are notified only when the lane had no committed unclaimed work:
-- no segment of the lane ends past its cursor (the larger of the claim sequence + 1 and the end of the lane's last
-- committed claim range, as the claim reads it). A lane that has work already has a claimer coming back for it (one
-- whose batch came back full, or whose running jobs free capacity), so one NOTIFY per busy lane and batch would
-- only serialise producers on the notification queue's lock. Job ids come from job_id_seq unless given (promotion,
-- retry, release). A timeout of 0 means none.
CREATE OR REPLACE FUNCTION {{schema}}.enqueue_lane(p_queue text, p_priority smallint, p_shard int,
    p_job_ids bigint[], p_kinds text[], p_args jsonb[], p_attempts int[], p_max_attempts int[], p_timeouts bigint[])
RETURNS TABLE (o_ord int, o_job_id bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_lane record;
    v_n int := cardinality(p_kinds);
    v_cursor bigint;
    v_last bigint;
    v_slots int[];
    v_had_work boolean;
BEGIN
    IF coalesce(v_n, 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(lane_key(p_queue, p_priority, p_shard));
    SELECT l.enqueue_seq, l.claim_seq INTO v_lane FROM queue_lanes l
    WHERE l.queue = p_queue AND l.priority = p_priority AND l.enqueue_shard = p_shard;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'lane (%, %, %) does not exist', p_queue, p_priority, p_shard
            USING ERRCODE = 'P0002';
    END IF;
    v_slots := queue_slots_newest_first();
    v_cursor := greatest(pg_sequence_last_value(v_lane.claim_seq) + 1,
        lane_newest_end('range', p_queue, p_priority, p_shard, v_slots));
    v_had_work := coalesce(lane_newest_end('segment', p_queue, p_priority, p_shard, v_slots) > v_cursor, false);
    v_last := setval(v_lane.enqueue_seq, pg_sequence_last_value(v_lane.enqueue_seq) + v_n);
    RETURN QUERY
    WITH cur AS (
        SELECT r.generation, r.slot FROM queue_ring_rotations r ORDER BY r.generation DESC LIMIT 1
    ), jobs AS (
        SELECT s.ord::int AS ord, v_last - v_n + s.ord AS lane_seq,
            coalesce(p_job_ids[s.ord], nextval('job_id_seq')) AS job_id
        FROM generate_series(1, v_n) AS s (ord)
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
        SELECT cur.slot, p_queue, p_priority, p_shard, v_last - v_n + 1, v_last + 1, cur.generation
        FROM cur
    )
    SELECT j.ord, j.job_id FROM jobs j ORDER BY j.ord;
    IF NOT v_had_work THEN
        PERFORM pg_notify({{notify_channel}}, p_queue);
    END IF;
END
$fn$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (5, 'lean claim', {{checksum:5}});
