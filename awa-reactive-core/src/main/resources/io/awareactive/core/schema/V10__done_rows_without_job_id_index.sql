-- awa-reactive schema, step 10: done rows without a job_id index.
--
-- A job wrote five index entries: two for its ready row, one for its lease, two for its done row. Read from
-- pg_walinspect, the done row's job_id index entry was about 63 of the 1,300 or so bytes of WAL a job wrote, and one
-- B-tree insert on the completion's path. Its one reader is locate_job (status, cancel, move), which probes the queue
-- ring's children one by one, newest slot first: it now names the child's slot and finds the job's done rows by the
-- prefix (ready_slot, job_id) of the primary key (ready_slot, job_id, run_lease), one probe as before.
-- Nothing else changes: the rows written, the race guards and what the prune gates read are those of step 9.
-- Dropping the index locks done_entries and its children for a moment (ACCESS EXCLUSIVE), as any step's DDL does.
-- Placeholders as in step 1.

DROP INDEX {{schema}}.done_entries_job_id_idx;

-- Step 1's locate_job, with the done rows probed by primary-key prefix in the named child.
CREATE OR REPLACE FUNCTION {{schema}}.locate_job(p_job_id bigint) RETURNS SETOF {{schema}}.job_location
LANGUAGE plpgsql STABLE SET search_path = {{schema}}, pg_temp AS $fn$
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
            || ' NULL::bigint, d.error, NULL::boolean FROM %1$I.%2$I d WHERE d.ready_slot = %4$s AND d.job_id = $1'
            || ' ORDER BY d.finalized_at DESC LIMIT 1',
            {{schema_name}}, 'done_entries_' || v_k, 'ready_entries_' || v_k, v_k) USING p_job_id;
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
            {{schema_name}}, 'ready_entries_' || v_k, 'ready_claim_ranges_' || v_k, 'ready_tombstones_' || v_k)
            USING p_job_id;
        IF FOUND THEN
            RETURN;
        END IF;
    END LOOP;
END
$fn$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (10, 'done rows without job id index', {{checksum:10}});
