-- awa-reactive schema, step 13: a claim takes a lane's run, spends it and writes its leases in one statement; the
-- enqueue's lane lock key is computed inline.
--
-- Up to step 12, claim_jobs_v2 read a lane's run through claim_run_<k>, a function that returned the rows as eight
-- arrays (each array_agg sorting the run once more), then inserted the claim range through the ready_claim_ranges
-- parent and, in a third statement, unnested the arrays to write the leases and return the jobs. From this step one
-- statement per queue slot, generated per installation and called by name from a CASE in claim_jobs_v2 (as in
-- step 7), does all three:
-- - the run: claim_run_<k>'s query unchanged (positions from the cursor on without a hole, as many rows past the batch
--   size as the slot holds tombstones of the lane, the run ended at the batch's last live row);
-- - its range, written straight into ready_claim_ranges_<k> (no tuple routing), with the same end: the run's end,
--   or the segment's when the run is empty;
-- - a lease per live row of the run, returned in lane order.
-- Rows, results, locks and their order are unchanged. claim_jobs_v2 now plans with enable_seqscan = off, as
-- claim_run_<k> did, so a child whose statistics say it is empty is still read through its primary key. The
-- claim_run_<k> functions, which only claim_jobs_v2 called, are dropped.
--
-- lane_key (same keys): step 1's body appended a smallint and an int to text, an operator that is only stable, so
-- PostgreSQL never inlined the function, declared IMMUTABLE, and planned its body again on every call. Explicit
-- ::text casts (the same text) make the body immutable and inlinable.
-- Placeholders as in step 1.

CREATE OR REPLACE FUNCTION {{schema}}.lane_key(p_queue text, p_priority smallint, p_shard int) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtextextended('awa-reactive.lane:' || {{schema_name}} || ':' || p_queue || ':' || p_priority::text
        || ':' || p_shard::text, 0)
$fn$;

-- slot_cases(slots, call, terminator, indent), as in step 9. Used only while this step runs.
CREATE FUNCTION {{schema}}.slot_cases(p_slots int[], p_call text, p_terminator text, p_indent int) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT string_agg(format('WHEN %s THEN ', k) || replace(p_call, '%s', k::text) || p_terminator,
        E'\n' || repeat(' ', p_indent) ORDER BY k)
    FROM unnest(p_slots) AS k
$fn$;

DO $static_dispatch$
DECLARE
    v_queue_slots int[] := ARRAY(SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot);
BEGIN
    EXECUTE replace(replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.claim_jobs_v2(p_queue text, p_max int, p_worker text, p_default_timeout_ms bigint)
RETURNS TABLE (o_job_id bigint, o_run_lease bigint, o_kind text, o_args text, o_priority smallint,
    o_attempt int, o_max_attempts int, o_timeout_ms bigint, o_ready_slot int, o_ready_generation bigint,
    o_lease_slot int, o_claim_slot int, o_enqueue_shard int, o_lane_seq bigint, o_deadline_at timestamptz)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off AS $fn$
DECLARE
    v_lane record;
    v_c bigint;
    v_next bigint;
    v_left int := p_max;
    v_has_segment boolean;
    v_queue_generation bigint;
    v_slot int;
    v_generation bigint;
    v_segment_next bigint;
    v_taken int;
    v_lease_slot int;
    v_lease_gen bigint;
    v_claim_slot int;
BEGIN
    SELECT r.slot, r.generation INTO v_lease_slot, v_lease_gen
    FROM lease_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    SELECT r.slot INTO v_claim_slot FROM claim_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    FOR v_lane IN
        SELECT l.priority, l.enqueue_shard, l.enqueue_seq, l.claim_seq FROM queue_lanes l
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
                -- No segment holds a position past the lane's last reserved one.
                v_has_segment := v_c <= pg_sequence_last_value(v_lane.enqueue_seq);
                EXIT WHEN NOT v_has_segment;
                IF v_queue_generation IS NULL THEN
                    SELECT r.generation INTO v_queue_generation
                    FROM queue_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
                END IF;
                SELECT s.o_slot, s.o_generation, greatest(v_c, s.o_first), s.o_next
                INTO v_slot, v_generation, v_c, v_segment_next
                FROM lane_segment_past(p_queue, v_lane.priority, v_lane.enqueue_shard, v_c, v_queue_generation) s;
                -- Nothing committed past the cursor: the lane's newest lane_seqs are uncommitted or rolled back.
                v_has_segment := v_segment_next IS NOT NULL;
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
        -- The run from v_c, its range and its leases, in slot v_slot's statement; it returns the live rows.
        CASE v_slot
            @claim_run@
        END CASE;
        GET DIAGNOSTICS v_taken = ROW_COUNT;
        v_left := v_left - v_taken;
    END LOOP;
END
$fn$;
$template$,
        '@claim_range_end@', {{schema}}.slot_cases(v_queue_slots,
            'claim_range_end_%s(p_queue, v_lane.priority, v_lane.enqueue_shard, v_c)', '', 16)),
        '@claim_run@', {{schema}}.slot_cases(v_queue_slots, $stmt$RETURN QUERY
                WITH run AS MATERIALIZED (
                    SELECT e.lane_seq, e.job_id, e.kind, e.args, e.attempt, e.max_attempts, e.timeout_ms,
                        e.tombstoned
                    FROM (SELECT e.*, row_number() OVER w AS n,
                              count(*) FILTER (WHERE NOT e.tombstoned) OVER w AS live
                          FROM (SELECT e.lane_seq, e.job_id, e.kind, e.args, e.attempt, e.max_attempts,
                                    e.timeout_ms,
                                    EXISTS (SELECT 1 FROM ready_tombstones_%s t
                                            WHERE t.ready_slot = %s AND t.queue = p_queue
                                              AND t.priority = v_lane.priority
                                              AND t.enqueue_shard = v_lane.enqueue_shard
                                              AND t.lane_seq = e.lane_seq) AS tombstoned
                                FROM ready_entries_%s e
                                WHERE e.ready_slot = %s AND e.queue = p_queue AND e.priority = v_lane.priority
                                  AND e.enqueue_shard = v_lane.enqueue_shard AND e.lane_seq >= v_c
                                ORDER BY e.lane_seq
                                -- Tombstoned rows take positions in the run but give no job.
                                LIMIT v_left + (SELECT count(*) FROM ready_tombstones_%s t
                                                WHERE t.ready_slot = %s AND t.queue = p_queue
                                                  AND t.priority = v_lane.priority
                                                  AND t.enqueue_shard = v_lane.enqueue_shard
                                                  AND t.lane_seq >= v_c)) e
                          WINDOW w AS (ORDER BY e.lane_seq)) e
                    -- Positions only grow along the rows, so the first condition keeps exactly the run up to the
                    -- first hole; the second ends it at the v_left-th live row.
                    WHERE e.lane_seq = v_c + e.n - 1 AND e.live - (NOT e.tombstoned)::int < v_left
                ), spent AS (
                    -- The range spends the run, tombstoned rows included; an empty run spends the segment.
                    INSERT INTO ready_claim_ranges_%s (ready_slot, queue, priority, enqueue_shard, first_lane_seq,
                        next_lane_seq)
                    SELECT %s, p_queue, v_lane.priority, v_lane.enqueue_shard, v_c,
                        coalesce(max(r.lane_seq) + 1, v_segment_next)
                    FROM run r
                ), taken AS MATERIALIZED (
                    SELECT r.lane_seq, r.job_id, r.kind, r.args, r.attempt, r.max_attempts, r.timeout_ms,
                        nextval('receipt_id_seq') AS run_lease,
                        clock_timestamp() + coalesce(r.timeout_ms, p_default_timeout_ms) * interval '1 millisecond'
                            AS deadline_at
                    FROM run r WHERE NOT r.tombstoned
                ), lease AS (
                    INSERT INTO leases (lease_slot, job_id, run_lease, lease_generation, ready_slot,
                        ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq, attempt,
                        max_attempts, worker_id, heartbeat_at, deadline_at, kind)
                    SELECT v_lease_slot, t.job_id, t.run_lease, v_lease_gen, %s, v_generation, v_claim_slot, NULL,
                        p_queue, v_lane.priority, v_lane.enqueue_shard, t.lane_seq, t.attempt, t.max_attempts,
                        p_worker, clock_timestamp(), t.deadline_at, t.kind
                    FROM taken t
                )
                SELECT t.job_id, t.run_lease, t.kind, t.args::text, v_lane.priority, t.attempt, t.max_attempts,
                    t.timeout_ms, %s, v_generation, v_lease_slot, v_claim_slot, v_lane.enqueue_shard, t.lane_seq,
                    t.deadline_at
                FROM taken t ORDER BY t.lane_seq$stmt$, ';', 12));
END
$static_dispatch$;

DROP FUNCTION {{schema}}.slot_cases(int[], text, text, int);

DO $per_slot$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot LOOP
        EXECUTE format('DROP FUNCTION %I.%I(text, smallint, int, bigint, int)', {{schema_name}},
            'claim_run_' || v_slot);
    END LOOP;
END
$per_slot$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (13, 'claims in one statement per lane', {{checksum:13}});
