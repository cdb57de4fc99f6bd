-- awa-reactive schema, step 22: a job's lookup (status, cancel, move) runs statements planned once per session
-- instead of building and planning each probe anew.
--
-- locate_job finds a job through locate_ring_row, which probes the queue ring's named children newest slot first (a
-- done row, then a live ready row), and, for a claimed ready row, claimed_attempt_state, which probes each lease slot
-- for the run holding it. Up to step 21 both built every probe with format() and ran it with EXECUTE, so PostgreSQL
-- parsed and planned each probe on every call: about 2.7 plans and 0.7-0.9 ms of server time per status read of a
-- claimed or completed job (docs/benchmarks.md, sections 1ak and 1al). claimed_attempt_state also probed the lease
-- slots in slot order, so a job claimed into the newest lease slot cost up to one probe per slot.
--
-- From this step every probe is a static statement per slot, generated from the slot counts (as a claim's and a
-- completion's are), chosen by a CASE on the slot and planned once per session, with generic plans and no sequential
-- read whatever a child's statistics say. The probes read what they read before, queue slots in the same order and
-- under the same snapshots. claimed_attempt_state now probes the lease slots newest first, where a recently claimed
-- job's run is, and reads a slot's run and legacy lease in one statement (the lease only when the slot holds no run of
-- the position). At most one slot answers: a lane position is never reused and is claimed by one run, and a legacy
-- lease (an attempt claimed before step 18) lives only while that job's one open attempt does; so the order changes how
-- many slots are probed, never the answer.
--
-- Signatures and results are unchanged; running workers and readers take the new definitions at their next call, so
-- this step needs no stop. Placeholders as in step 1.

-- slot_cases(slots, call, terminator, indent), as in step 9. Used only while this step runs.
CREATE FUNCTION {{schema}}.slot_cases(p_slots int[], p_call text, p_terminator text, p_indent int) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT string_agg(format('WHEN %s THEN ', k) || replace(p_call, '%s', k::text) || p_terminator,
        E'\n' || repeat(' ', p_indent) ORDER BY k)
    FROM unnest(p_slots) AS k
$fn$;

DO $static_lookups$
DECLARE
    v_queue_slots int[] := ARRAY(SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot);
    v_lease_slots int[] := ARRAY(SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot);
BEGIN
    -- Step 10's locate_ring_row: the same two probes per queue slot, newest slot first.
    EXECUTE replace(replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.locate_ring_row(p_job_id bigint) RETURNS SETOF {{schema}}.job_location
LANGUAGE plpgsql STABLE SET search_path = {{schema}}, pg_temp SET enable_seqscan = off
    SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_newest int;
    v_k int;
BEGIN
    SELECT r.slot INTO v_newest FROM queue_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    FOR v_age IN 0 .. {{queue_slot_count}} - 1 LOOP
        v_k := (v_newest - v_age + {{queue_slot_count}}) % {{queue_slot_count}};
        -- A done row wins: the job is finished.
        CASE v_k
            @done_row@
        END CASE;
        IF FOUND THEN
            RETURN;
        END IF;
        -- Else the job's newest ready row that no tombstone marks, an unclaimed one first.
        CASE v_k
            @ready_row@
        END CASE;
        IF FOUND THEN
            RETURN;
        END IF;
    END LOOP;
END
$fn$;
$template$,
        '@done_row@', {{schema}}.slot_cases(v_queue_slots,
            'RETURN QUERY SELECT d.ready_slot, d.ready_generation, d.state, d.queue, d.priority, NULL::int,'
            || ' NULL::bigint, d.kind, NULL::jsonb, d.attempt, coalesce((SELECT max(e.max_attempts)'
            || ' FROM ready_entries_%s e WHERE e.job_id = p_job_id), d.attempt), NULL::bigint, d.error,'
            || ' NULL::boolean FROM done_entries_%s d WHERE d.ready_slot = %s AND d.job_id = p_job_id'
            || ' ORDER BY d.finalized_at DESC LIMIT 1',
            ';', 12)),
        '@ready_row@', {{schema}}.slot_cases(v_queue_slots,
            'RETURN QUERY SELECT e.ready_slot, e.ready_generation, NULL::text, e.queue, e.priority,'
            || ' e.enqueue_shard, e.lane_seq, e.kind, e.args, e.attempt, e.max_attempts, e.timeout_ms, NULL::text,'
            || ' EXISTS (SELECT FROM ready_claim_ranges_%s r WHERE r.ready_slot = e.ready_slot'
            || ' AND r.queue = e.queue AND r.priority = e.priority AND r.enqueue_shard = e.enqueue_shard'
            || ' AND r.first_lane_seq <= e.lane_seq AND r.next_lane_seq > e.lane_seq) AS claimed'
            || ' FROM ready_entries_%s e WHERE e.job_id = p_job_id AND NOT EXISTS (SELECT FROM ready_tombstones_%s t'
            || ' WHERE t.ready_slot = e.ready_slot AND t.queue = e.queue AND t.priority = e.priority'
            || ' AND t.enqueue_shard = e.enqueue_shard AND t.lane_seq = e.lane_seq)'
            || ' ORDER BY claimed, e.enqueued_at DESC, e.lane_seq DESC LIMIT 1',
            ';', 12));

    -- Step 19's claimed_attempt_state: one statement per lease slot, newest slot first.
    EXECUTE replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.claimed_attempt_state(p_job_id bigint, p_queue text, p_priority smallint,
    p_shard int, p_lane_seq bigint)
RETURNS text
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off
    SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_newest int;
    v_k int;
    v_state text;
BEGIN
    SELECT r.slot INTO v_newest FROM lease_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    FOR v_age IN 0 .. {{lease_slot_count}} - 1 LOOP
        v_k := (v_newest - v_age + {{lease_slot_count}}) % {{lease_slot_count}};
        -- The state from the lane's run at or below the position, if it holds the job there; else 'running' when an
        -- attempt claimed before step 18 holds a lease of the job in this slot; else NULL.
        CASE v_k
            @attempt_in_slot@
        END CASE;
        IF v_state IS NOT NULL THEN
            RETURN v_state;
        END IF;
    END LOOP;
    RETURN 'gone';
END
$fn$;
$template$,
        '@attempt_in_slot@', {{schema}}.slot_cases(v_lease_slots,
            'SELECT CASE WHEN a.closed THEN ''completed'' WHEN a.not_ended THEN ''running'''
            || ' WHEN a.run_id IS NOT NULL THEN ''ended'' WHEN EXISTS (SELECT FROM leases_%s l'
            || ' WHERE l.lease_slot = %s AND l.job_id = p_job_id) THEN ''running'' END INTO v_state'
            || ' FROM (SELECT) AS one LEFT JOIN LATERAL (SELECT r.run_id, x.i <> ALL (r.ended) AS not_ended,'
            || ' EXISTS (SELECT FROM lease_run_closures_%s c WHERE c.lease_slot = r.lease_slot'
            || ' AND c.run_id = r.run_id AND x.i = ANY (c.places)) AS closed'
            || ' FROM (SELECT * FROM lease_runs_%s r WHERE r.queue = p_queue AND r.priority = p_priority'
            || ' AND r.enqueue_shard = p_shard AND r.lane_seqs[1] <= p_lane_seq ORDER BY r.lane_seqs[1] DESC'
            || ' LIMIT 1) r CROSS JOIN LATERAL (SELECT (array_position(r.lane_seqs, p_lane_seq) - 1)::int AS i) x'
            || ' WHERE x.i IS NOT NULL AND r.job_ids[x.i + 1] = p_job_id) AS a ON true',
            ';', 12));
END
$static_lookups$;

DROP FUNCTION {{schema}}.slot_cases(int[], text, text, int);

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (22, 'job lookups planned once per session', {{checksum:22}});
