-- awa-reactive schema, step 9: a claim reads only named ring children, and takes a lane's rows from one slot only
-- while their positions run on without a hole; an enqueue from an old snapshot writes into a recent slot.
--
-- A lane's positions are reserved in commit order (enqueue_lane holds the lane's lock until its commit), but the slot
-- a batch lands in is the queue ring's current slot as the enqueuing transaction's snapshot sees it. A caller's
-- REPEATABLE READ (or SERIALIZABLE) transaction keeps the snapshot of its first statement, so its enqueue can write
-- into the previous slot positions past those a newer enqueue already wrote into the current slot. Up to step 8 the
-- claim then read the previous slot's rows from its cursor on with no upper bound, and its claim range covered, and so
-- spent, the positions of the current slot in between: those jobs were never claimed
-- (RingPlacementIntegrationTests.shouldClaimEveryJobOnceInLaneOrderWhenAnOlderSnapshotEnqueuesIntoThePreviousSlot).
-- From this step:
-- - claim_run_<k>(queue, priority, shard, from, max) replaces claim_rows_<k>: it reads slot k's rows of the lane from
--   the position on and keeps only the run whose positions follow each other without a hole.
--   A hole is a rolled-back reservation or a position held by another slot; the claim stops there, and the lane's
--   next claim looks the position up again. Tombstoned (cancelled or moved) rows stay in the run, which ends at the
--   max-th live row: the range spends them, the claim does not return them. o_next is the run's end.
-- - lane_segment_past(queue, priority, shard, position, ring generation) finds the lane's segment holding the
--   position, or else the first one past it, by probing the queue ring's named children (one generated, statically
--   planned statement per slot), newest slot first, and stops at the segment holding the position (segments are
--   disjoint, so it is the only answer). Finding only segments past the position (a rolled-back reservation, or a
--   position not yet committed), it probes every slot once more and takes the smallest: each probe is its own
--   statement, and a segment that committed between two probes of the first pass committed before the segment that
--   was found (commit order is position order), so every probe of the second pass sees it.
--   Up to step 8 the claim looked the segment up through the ready_segments parent: a plan over every child, so
--   every claim locked every child of the ring, including the sealed slot a prune was truncating, and queued behind
--   the prune's ACCESS EXCLUSIVE locks. A busy lane's cursor is in the newest slot or the one before: one or two
--   probes, and no lock on an older slot.
-- - claim_jobs_v2 (same signature) skips the lookup when the cursor is past the lane's last reserved position (no
--   segment can hold it), and otherwise uses both functions; the rest is step 7's claim.
-- - enqueue_lane (same signature) writes into the ring's current slot as its snapshot sees it, unless that snapshot
--   is older than the generation before the ring's newest: then into that generation's slot. Up to step 8 a snapshot
--   older than a whole turn of the ring wrote into whatever slot now has that number, under an outdated generation:
--   into the pruned next slot, it stopped the ring, since a rotation needs the next slot empty
--   (RingPlacementIntegrationTests:
--   shouldEnqueueFromASnapshotOlderThanTheWholeRingIntoARecentSlotAndKeepTheRingTurning).
--   The ring's newest generation comes from queue_ring_generation_seq, which every rotation sets (a trigger on the
--   ledger): a sequence is read outside MVCC, so the snapshot's age does not matter. The order in which its walks
--   take the slots is derived from that generation, and queue_slots_newest_first, read only by it, is dropped.
-- Placeholders as in step 1.

-- slot_cases(slots, call, terminator, indent): "WHEN <k> THEN <call with %s = k><terminator>" for every slot, as in
-- step 7. Used only while this step runs.
CREATE FUNCTION {{schema}}.slot_cases(p_slots int[], p_call text, p_terminator text, p_indent int) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT string_agg(format('WHEN %s THEN ', k) || replace(p_call, '%s', k::text) || p_terminator,
        E'\n' || repeat(' ', p_indent) ORDER BY k)
    FROM unnest(p_slots) AS k
$fn$;

DO $per_slot$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot LOOP
        EXECUTE replace($template$
CREATE FUNCTION {{schema}}.claim_run_@k@(p_queue text, p_priority smallint, p_shard int, p_from bigint, p_max int,
    OUT o_lane_seqs bigint[], OUT o_job_ids bigint[], OUT o_kinds text[], OUT o_args jsonb[], OUT o_attempts int[],
    OUT o_max_attempts int[], OUT o_timeouts bigint[], OUT o_next bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off
    SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
    SELECT array_agg(e.lane_seq ORDER BY e.lane_seq) FILTER (WHERE NOT e.tombstoned),
        array_agg(e.job_id ORDER BY e.lane_seq) FILTER (WHERE NOT e.tombstoned),
        array_agg(e.kind ORDER BY e.lane_seq) FILTER (WHERE NOT e.tombstoned),
        array_agg(e.args ORDER BY e.lane_seq) FILTER (WHERE NOT e.tombstoned),
        array_agg(e.attempt ORDER BY e.lane_seq) FILTER (WHERE NOT e.tombstoned),
        array_agg(e.max_attempts ORDER BY e.lane_seq) FILTER (WHERE NOT e.tombstoned),
        array_agg(e.timeout_ms ORDER BY e.lane_seq) FILTER (WHERE NOT e.tombstoned),
        max(e.lane_seq) + 1
    INTO o_lane_seqs, o_job_ids, o_kinds, o_args, o_attempts, o_max_attempts, o_timeouts, o_next
    FROM (SELECT e.*, row_number() OVER w AS n, count(*) FILTER (WHERE NOT e.tombstoned) OVER w AS live
          FROM (SELECT e.lane_seq, e.job_id, e.kind, e.args, e.attempt, e.max_attempts, e.timeout_ms,
                    EXISTS (SELECT 1 FROM ready_tombstones_@k@ t
                            WHERE t.ready_slot = @k@ AND t.queue = p_queue AND t.priority = p_priority
                              AND t.enqueue_shard = p_shard AND t.lane_seq = e.lane_seq) AS tombstoned
                FROM ready_entries_@k@ e
                WHERE e.ready_slot = @k@ AND e.queue = p_queue AND e.priority = p_priority
                  AND e.enqueue_shard = p_shard AND e.lane_seq >= p_from
                -- Tombstoned rows take positions in the run but give no job: read as many more as lie ahead.
                ORDER BY e.lane_seq
                LIMIT p_max + (SELECT count(*) FROM ready_tombstones_@k@ t
                               WHERE t.ready_slot = @k@ AND t.queue = p_queue AND t.priority = p_priority
                                 AND t.enqueue_shard = p_shard AND t.lane_seq >= p_from)) e
          WINDOW w AS (ORDER BY e.lane_seq)) e
    -- Positions only grow along the rows, so the first condition keeps exactly the run up to the first hole; the
    -- second ends it at the p_max-th live row.
    WHERE e.lane_seq = p_from + e.n - 1 AND e.live - (NOT e.tombstoned)::int < p_max;
END
$fn$
$template$, '@k@', v_slot::text);
        EXECUTE format('DROP FUNCTION %I.%I(text, smallint, int, bigint, int)', {{schema_name}},
            'claim_rows_' || v_slot);
    END LOOP;
END
$per_slot$;

-- The queue ring's newest generation outside MVCC, for enqueue_lane: every rotation sets it in its own transaction
-- (a trigger on the ledger), so it is the newest committed generation, or the one past it after a rotation that rolled
-- back. A sequence, since a transaction's snapshot cannot see rotations committed after it.
CREATE SEQUENCE {{schema}}.queue_ring_generation_seq MINVALUE 0 START WITH 0;
SELECT setval('{{schema}}.queue_ring_generation_seq', max(generation)) FROM {{schema}}.queue_ring_rotations;

CREATE FUNCTION {{schema}}.note_queue_generation() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    PERFORM setval('queue_ring_generation_seq', NEW.generation);
    RETURN NULL;
END
$fn$;
CREATE TRIGGER note_queue_generation AFTER INSERT ON {{schema}}.queue_ring_rotations
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.note_queue_generation();

-- Immediate enqueue of a batch into one lane, as in step 5, except for the slot it writes to: the ring's current
-- generation as the transaction's snapshot sees it, or the one before the ring's newest when the snapshot is older.
-- The slot order its walks take comes from that generation, without a second read of the ledger.
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
    -- Its slots newest first, the order in which lane_newest_end walks them.
    v_slots := ARRAY(SELECT ((v_generation + {{queue_slot_count}} - a) % {{queue_slot_count}})::int
                     FROM generate_series(0, {{queue_slot_count}} - 1) AS a);
    v_cursor := greatest(pg_sequence_last_value(v_lane.claim_seq) + 1,
        lane_newest_end('range', p_queue, p_priority, p_shard, v_slots));
    v_had_work := coalesce(lane_newest_end('segment', p_queue, p_priority, p_shard, v_slots) > v_cursor, false);
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

-- Its only caller, enqueue_lane, now derives the slot order from the generation it reads anyway.
DROP FUNCTION {{schema}}.queue_slots_newest_first();

DO $static_dispatch$
DECLARE
    v_queue_slots int[] := ARRAY(SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot);
BEGIN
    EXECUTE replace($template$
CREATE FUNCTION {{schema}}.lane_segment_past(p_queue text, p_priority smallint, p_shard int, p_position bigint,
    p_generation bigint, OUT o_slot int, OUT o_generation bigint, OUT o_first bigint, OUT o_next bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off
    SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_k int;
    v_first bigint;
    v_next bigint;
    v_generation bigint;
BEGIN
    FOR v_pass IN 1 .. 2 LOOP
        o_slot := NULL;
        o_generation := NULL;
        o_first := NULL;
        o_next := NULL;
        FOR v_age IN 0 .. {{queue_slot_count}} - 1 LOOP
            v_k := (p_generation + {{queue_slot_count}} - v_age) % {{queue_slot_count}};
            CASE v_k
                @segment_past@
            END CASE;
            IF FOUND AND (o_next IS NULL OR v_next < o_next) THEN
                o_slot := v_k;
                o_generation := v_generation;
                o_first := v_first;
                o_next := v_next;
                -- The segment holding the position: segments are disjoint, so no other one can come first.
                EXIT WHEN v_first <= p_position;
            END IF;
        END LOOP;
        -- Done with no segment or with the one holding the position. Only segments past the position: probe every
        -- slot again, each probe seeing all that committed before the segment found.
        EXIT WHEN o_next IS NULL OR o_first <= p_position;
    END LOOP;
END
$fn$;
$template$,
        '@segment_past@', {{schema}}.slot_cases(v_queue_slots,
            'SELECT s.first_lane_seq, s.next_lane_seq, s.ready_generation INTO v_first, v_next, v_generation'
            || ' FROM ready_segments_%s s WHERE s.queue = p_queue AND s.priority = p_priority'
            || ' AND s.enqueue_shard = p_shard AND s.next_lane_seq > p_position ORDER BY s.next_lane_seq LIMIT 1',
            ';', 16));
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
    v_queue_generation bigint;
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
    v_run_next bigint;
    v_end bigint;
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
        CASE v_slot
            @claim_run@
        END CASE;
        v_end := coalesce(v_run_next, v_segment_next);
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
        '@claim_run@', {{schema}}.slot_cases(v_queue_slots,
            'SELECT * INTO v_seqs, v_ids, v_kinds, v_args, v_attempts, v_max_attempts, v_timeouts, v_run_next'
            || ' FROM claim_run_%s(p_queue, v_lane.priority, v_lane.enqueue_shard, v_c, v_left)', ';', 12));
END
$static_dispatch$;

DROP FUNCTION {{schema}}.slot_cases(int[], text, text, int);

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (9, 'claim runs from named children', {{checksum:9}});
