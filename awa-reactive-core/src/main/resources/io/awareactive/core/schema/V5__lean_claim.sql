-- awa-reactive schema, step 5: the hot path reads ring children by index probes only, a claim finds the lane's last
-- claim range in one probe, and a lease writes two index entries instead of four.
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
-- became a sequential scan, so a completion read every lease row written to the slot since its last truncation:
-- O(rows), measured as twice the buffer reads per completion after 6,000 claims into one slot. The per-slot functions
-- of the claim and completion paths now plan with enable_seqscan off: every statement in them has an index that
-- answers it, so each stays a probe whatever the statistics say. enqueue_lane was planned on every call (custom
-- plans); it now keeps one generic plan per session, as claim_jobs_v2 and complete_attempts do.
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
    END LOOP;
    FOR v_slot IN SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot LOOP
        EXECUTE format('ALTER FUNCTION %I.%I(int[], bigint[], bigint[]) SET enable_seqscan = off',
            {{schema_name}}, 'complete_in_lease_slot_' || v_slot);
    END LOOP;
END
$per_slot$;

ALTER FUNCTION {{schema}}.enqueue_lane(text, smallint, int, bigint[], text[], jsonb[], int[], int[], bigint[])
    SET plan_cache_mode = force_generic_plan;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (5, 'lean claim', {{checksum:5}});
