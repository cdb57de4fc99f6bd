-- awa-reactive schema, step 20: a claim reads the sequences of the lanes it visits, not of every lane of its queue.
--
-- Up to step 19 claim_jobs_v2 chose its lanes with one query that compared the enqueue and claim sequences of every
-- lane of the queue before visiting the first: two sequence reads per lane, each a relation lock held to the end of
-- the transaction. With 16 lanes that is 32 of a claim's 61 relation locks; the first 16 locks of a transaction take
-- the backend's fast-path slots, so the claim's own tables then went through the shared lock table, whose partition
-- locks every concurrent claim contends for. A claim that fills its batch in the first lane it visits needed none of
-- the other lanes' reads.
--
-- From this step the lane query orders the queue's lanes (priority first, then at random, as before) without reading
-- a sequence, and each lane's sequences are compared when the loop reaches it. The test and the order are unchanged;
-- the loop still stops once the batch is full. A lane's comparison is only a hint, as before: the claim reads the
-- lane's cursor again under its claim head lock. A claim that finds nothing still reads every lane's sequences.
--
-- claim_jobs_v2 is rewritten from its installed text; the step fails if the lane query is not found exactly once.
-- Signatures are unchanged, and running workers take the new definition at their next claim. Placeholders as in
-- step 1.

DO $lazy_lanes$
DECLARE
    v_definition text := pg_get_functiondef('{{schema}}.claim_jobs_v2(text, int, text, bigint)'::regprocedure);
    v_old text := $old$
        SELECT l.priority, l.enqueue_shard, l.enqueue_seq, l.claim_seq FROM queue_lanes l
        WHERE l.queue = p_queue AND pg_sequence_last_value(l.enqueue_seq) > pg_sequence_last_value(l.claim_seq)
        ORDER BY l.priority, random()
    LOOP
        EXIT WHEN v_left <= 0;
$old$;
    v_new text := $new$
        SELECT l.priority, l.enqueue_shard, l.enqueue_seq, l.claim_seq FROM queue_lanes l
        WHERE l.queue = p_queue
        ORDER BY l.priority, random()
    LOOP
        EXIT WHEN v_left <= 0;
        -- Only a visited lane reads its sequences (a lane never enqueued into reads NULL: no work).
        CONTINUE WHEN NOT coalesce(
            pg_sequence_last_value(v_lane.enqueue_seq) > pg_sequence_last_value(v_lane.claim_seq), false);
$new$;
BEGIN
    IF array_length(string_to_array(v_definition, v_old), 1) <> 2 THEN
        RAISE EXCEPTION 'schema step 20: the lane query of claim_jobs_v2 was not found exactly once';
    END IF;
    EXECUTE replace(v_definition, v_old, v_new);
END
$lazy_lanes$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (20, 'claims read visited lanes only', {{checksum:20}});
