-- awa-reactive schema, step 14: a lane's claim head is a transaction-level advisory lock, not a row lock.
--
-- Up to step 13, a claimer took the lane's queue_claim_heads row FOR UPDATE SKIP LOCKED, and the cursor advance after
-- a move (advance_claim_cursors) and the lookup of a live job for cancel and move (lock_live_job) took it FOR UPDATE.
-- A row lock is a heap change: it writes a LOCK record and gives the transaction an id, so even a claim that found no
-- run in the lanes it locked committed a transaction and waited for a WAL flush. From this step the same three
-- functions take pg_try_advisory_xact_lock (the claim) or pg_advisory_xact_lock (the other two) on
-- claim_head_key(lane), a key of its own (the enqueue's lane lock is lane_key): the same mutual exclusion, held to the
-- end of the transaction as before, without WAL or a transaction id. A claim that finds nothing now writes nothing
-- and commits without a flush. create_lane no longer writes a head row, and queue_claim_heads is dropped.
--
-- The four functions are rewritten from their installed definitions: claim_jobs_v2's body was generated per
-- installation by step 13 (one case per queue slot), so each statement that names the head row is replaced in the
-- text pg_get_functiondef returns, and the step fails unless each is found exactly once. Signatures are unchanged.
-- The DROP waits for every transaction that holds a head row lock, and the rewritten functions take effect at this
-- step's commit, so a row-locked head and an advisory-locked one are never held at once.
-- Placeholders as in step 1.

CREATE FUNCTION {{schema}}.claim_head_key(p_queue text, p_priority smallint, p_shard int) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtextextended('awa-reactive.claim-head:' || {{schema_name}} || ':' || p_queue || ':'
        || p_priority::text || ':' || p_shard::text, 0)
$fn$;

DO $claim_heads$
DECLARE
    v_edit record;
    v_definition text;
BEGIN
    FOR v_edit IN
        SELECT * FROM (VALUES
            ('claim_jobs_v2(text, int, text, bigint)',
             $old$        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = p_queue AND h.priority = v_lane.priority AND h.enqueue_shard = v_lane.enqueue_shard
        FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
$old$,
             $new$        CONTINUE WHEN NOT pg_try_advisory_xact_lock(
            claim_head_key(p_queue, v_lane.priority, v_lane.enqueue_shard));
$new$),
            ('advance_claim_cursors(text, smallint[], int[], bigint[], text)',
             $old$        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = p_queue AND h.priority = v.priority AND h.enqueue_shard = v.shard FOR UPDATE;
$old$,
             $new$        PERFORM pg_advisory_xact_lock(claim_head_key(p_queue, v.priority, v.shard));
$new$),
            ('lock_live_job(bigint)',
             $old$        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = v.queue AND h.priority = v.priority AND h.enqueue_shard = v.shard FOR UPDATE;
$old$,
             $new$        PERFORM pg_advisory_xact_lock(claim_head_key(v.queue, v.priority, v.shard));
$new$),
            ('create_lane(text, smallint, int)',
             $old$        INSERT INTO queue_claim_heads (queue, priority, enqueue_shard)
        VALUES (p_queue, p_priority, p_shard) ON CONFLICT DO NOTHING;
$old$,
             '')
        ) AS e(fn, old, new)
    LOOP
        v_definition := pg_get_functiondef(format('%I.%s', {{schema_name}}, v_edit.fn)::regprocedure);
        IF array_length(string_to_array(v_definition, v_edit.old), 1) <> 2 THEN
            RAISE EXCEPTION 'schema step 14: the claim-head statement of % was not found exactly once', v_edit.fn;
        END IF;
        EXECUTE replace(v_definition, v_edit.old, v_edit.new);
    END LOOP;
END
$claim_heads$;

DROP TABLE {{schema}}.queue_claim_heads;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (14, 'claim heads as advisory locks', {{checksum:14}});
