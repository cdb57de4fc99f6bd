-- awa-reactive schema, step 11: an enqueue in a REPEATABLE READ or SERIALIZABLE transaction always notifies.
--
-- enqueue_lane notifies the queue's channel only when its lane had no work: under the lane's enqueue lock it compares
-- the lane's newest committed segment end with its cursor, the larger of the claim sequence (which lags by the lane's
-- last claim) and the lane's newest committed claim range end. Read in a caller's REPEATABLE READ or SERIALIZABLE
-- transaction, the ranges are those of the transaction's snapshot: when a claim emptied the lane after that snapshot
-- was taken, the enqueue saw the lane's work but not its claim, skipped the notification, and its job waited for a
-- worker's poll (LifecycleIntegrationTests.shouldNotifyAnEnqueueFromAnOlderSnapshotIntoALaneEmptiedSince). In such
-- a transaction the enqueue now notifies without looking; at worst a worker wakes once for nothing. In READ COMMITTED
-- every statement of the function takes a new snapshot, after the lane lock, and nothing changes.
-- Placeholders as in step 1.

-- Step 9's enqueue_lane, with the lane's work (and the slot order its probes walk) read only under READ COMMITTED.
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
    v_generation bigint;
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
    -- The current generation as this snapshot sees it, unless the snapshot is older than the one before the ring's
    -- newest (a caller's REPEATABLE READ transaction): queue_ring_generation_seq, set by every rotation outside
    -- MVCC, is the newest generation committed or, after a rotation that rolled back, the one past it.
    SELECT greatest(max(r.generation), pg_sequence_last_value('queue_ring_generation_seq') - 1) INTO v_generation
    FROM (SELECT r.generation FROM queue_ring_rotations r ORDER BY r.generation DESC LIMIT 1) r;
    IF current_setting('transaction_isolation') = 'read committed' THEN
        -- Its slots newest first, the order in which lane_newest_end walks them.
        v_slots := ARRAY(SELECT ((v_generation + {{queue_slot_count}} - a) % {{queue_slot_count}})::int
                         FROM generate_series(0, {{queue_slot_count}} - 1) AS a);
        v_cursor := greatest(pg_sequence_last_value(v_lane.claim_seq) + 1,
            lane_newest_end('range', p_queue, p_priority, p_shard, v_slots));
        v_had_work := coalesce(lane_newest_end('segment', p_queue, p_priority, p_shard, v_slots) > v_cursor, false);
    ELSE
        -- A transaction snapshot can predate the claim that emptied the lane: the ranges it sees prove nothing.
        v_had_work := false;
    END IF;
    v_last := setval(v_lane.enqueue_seq, pg_sequence_last_value(v_lane.enqueue_seq) + v_n);
    RETURN QUERY
    WITH cur AS (
        SELECT v_generation AS generation, (v_generation % {{queue_slot_count}})::int AS slot
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
VALUES (11, 'notify enqueues from transaction snapshots', {{checksum:11}});
