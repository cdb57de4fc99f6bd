-- awa-reactive schema, step 16: a claim's segment lookup stops one slot past the lane's newest segment wholly below
-- the position it looks for.
--
-- lane_segment_past (step 9) probes the queue ring's named children newest slot first for the lane's segment holding
-- a position, or else the first one past it. A lane whose next positions are reserved by an enqueue that has not
-- committed yet has no such segment, and up to this step the lookup probed every slot of the ring to find that out:
-- under load one lane is nearly always in that state (the producer's enqueue in flight), and each claim that reached
-- it probed all slots (16 by default) for nothing.
--
-- From this step a probe that finds nothing past the position also tells whether the slot holds a segment of the lane
-- wholly below it (a probe that finds one, the usual case, reads nothing more). The positions past such a segment S
-- were reserved after S's, under the lane's enqueue lock, so their batches landed in S's generation or later, or in
-- the one before it: an enqueue writes into the ring's current slot as its snapshot
-- sees it, or into the slot of the generation before the ring's newest when its snapshot is older (step 9), and the
-- newest generation never moves back. So when the first pass has found nothing past the position yet and a slot
-- holds such a segment, the pass ends at the next older slot. That bound only decides when a lookup may answer "no
-- segment", which spends nothing and moves no cursor (the claim passes the lane; its next claim looks again): a first
-- pass that found a segment past the position still ends with the second pass over every slot, unchanged, before the
-- claim spends any position. A busy lane in flight now costs two probes instead of one per slot.
-- Signatures are unchanged. Placeholders as in step 1.

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
    EXECUTE replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.lane_segment_past(p_queue text, p_priority smallint, p_shard int,
    p_position bigint, p_generation bigint, OUT o_slot int, OUT o_generation bigint, OUT o_first bigint,
    OUT o_next bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off
    SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_k int;
    v_first bigint;
    v_next bigint;
    v_generation bigint;
    v_below boolean;
    v_last_age int;
BEGIN
    FOR v_pass IN 1 .. 2 LOOP
        o_slot := NULL;
        o_generation := NULL;
        o_first := NULL;
        o_next := NULL;
        v_last_age := {{queue_slot_count}} - 1;
        FOR v_age IN 0 .. {{queue_slot_count}} - 1 LOOP
            EXIT WHEN v_age > v_last_age;
            v_k := (p_generation + {{queue_slot_count}} - v_age) % {{queue_slot_count}};
            -- The slot's first segment of the lane past the position (NULLs when none) and, only when there is none,
            -- whether the slot holds one wholly below it: one statement, one snapshot.
            CASE v_k
                @segment_past@
            END CASE;
            IF v_next IS NOT NULL AND (o_next IS NULL OR v_next < o_next) THEN
                o_slot := v_k;
                o_generation := v_generation;
                o_first := v_first;
                o_next := v_next;
                -- The segment holding the position: segments are disjoint, so no other one can come first.
                EXIT WHEN v_first <= p_position;
            END IF;
            -- Nothing past the position yet: a segment wholly below it bounds where later positions can be.
            IF v_pass = 1 AND o_next IS NULL AND v_below THEN
                v_last_age := least(v_last_age, v_age + 1);
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
            'SELECT p.first_lane_seq, p.next_lane_seq, p.ready_generation, CASE WHEN p.next_lane_seq IS NULL'
            || ' THEN EXISTS (SELECT FROM ready_segments_%s b WHERE b.queue = p_queue AND b.priority = p_priority'
            || ' AND b.enqueue_shard = p_shard AND b.next_lane_seq <= p_position) END'
            || ' INTO v_first, v_next, v_generation, v_below'
            || ' FROM (SELECT) AS one LEFT JOIN LATERAL (SELECT s.first_lane_seq, s.next_lane_seq,'
            || ' s.ready_generation FROM ready_segments_%s s WHERE s.queue = p_queue AND s.priority = p_priority'
            || ' AND s.enqueue_shard = p_shard AND s.next_lane_seq > p_position ORDER BY s.next_lane_seq LIMIT 1)'
            || ' AS p ON true',
            ';', 16));
END
$static_dispatch$;

DROP FUNCTION {{schema}}.slot_cases(int[], text, text, int);

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (16, 'bounded segment lookups', {{checksum:16}});
