package io.awareactive.core.internal;

import java.util.List;

/**
 * The server-side functions of job administration (schema version {@value Schema#VERSION}): moving a waiting job to
 * another queue or priority, and re-enqueueing jobs from the dead-letter table. Each call is one round trip and one
 * transaction. Created by {@link SchemaDdl#create} after the lifecycle functions, whose {@code enqueue_lane},
 * {@code lane_key} and {@code lock_live_job} they use.
 */
final class JobAdminDdl {

    private JobAdminDdl() {
    }

    /**
     * The statements creating the functions, in order.
     *
     * @param schema the schema
     * @return the statements
     */
    static List<String> create(Schema schema) {
        return List.of(LifecycleDdl.fill(schema, MOVE_JOB), LifecycleDdl.fill(schema, RETRY_FAILED_JOBS));
    }

    /**
     * Moves a job that no worker has claimed to the lane {@code (p_queue, p_priority, p_shard)}, keeping its id,
     * kind, arguments, attempt, max attempts and timeout.
     *
     * <p>Locks: the target lane's advisory lock first (as a producer takes it, held to commit, so the new row's
     * lane_seq commits in order), then, for a ring job, the source lane's claim head ({@code lock_live_job}); no
     * session takes them in the other order, so no cycle. A scheduled job is updated in place in
     * {@code deferred_jobs} (not a ring table). A ready job's row is tombstoned, as a cancel does (claimers skip
     * it), and the job is enqueued into the current slot of the target lane. When the tombstoned row is the next
     * one its source lane would claim, a claim range with no lease also records it as spent, exactly as a claimer
     * spends a tombstoned row, and {@code o_spent_next} returns the range end for the same after-commit cursor
     * advance a claim makes: then the tombstone neither holds its slot back from prune nor counts as available
     * until a claimer of the source queue passes it (a queue without workers would otherwise keep it forever).
     * Safe under the head lock: every earlier lane_seq is spent, and claimers repair a cursor that lags behind a
     * committed range.
     *
     * <p>Returns one row: {@code o_result} 'moved' (with the job's new state, 'scheduled' or 'available'),
     * 'claimed' (a worker holds it; o_state 'running'), 'finished' (o_state the terminal state), 'not_found', or
     * 'no_lane' when the move would happen but the target lane does not exist yet: the caller creates it (never
     * inside this transaction) and calls again, so a refused move creates nothing. Only 'moved' writes. A move into
     * the queue and priority the job is already in changes nothing.
     */
    private static final String MOVE_JOB = """
            CREATE FUNCTION {s}.move_job(p_job_id bigint, p_queue text, p_priority smallint, p_shard int)
            RETURNS TABLE (o_result text, o_state text, o_queue text, o_kind text, o_priority smallint,
                o_attempt int, o_max_attempts int, o_run_at timestamptz, o_error text, o_source_queue text,
                o_source_priority smallint, o_source_shard int, o_spent_next bigint)
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
            DECLARE
                v job_location;
                v_def record;
                v_has_lane boolean;
                v_claim_seq regclass;
                v_cursor bigint;
                v_spent bigint;
            BEGIN
                PERFORM pg_advisory_xact_lock(lane_key(p_queue, p_priority, p_shard));
                v_has_lane := EXISTS (SELECT 1 FROM queue_lanes l WHERE l.queue = p_queue
                    AND l.priority = p_priority AND l.enqueue_shard = p_shard);
                IF v_has_lane THEN
                    UPDATE deferred_jobs SET queue = p_queue, priority = p_priority, enqueue_shard = p_shard
                    WHERE job_id = p_job_id RETURNING * INTO v_def;
                    IF FOUND THEN
                        RETURN QUERY SELECT 'moved'::text, 'scheduled'::text, v_def.queue, v_def.kind,
                            v_def.priority, v_def.attempt, v_def.max_attempts, v_def.run_at, v_def.last_error,
                            NULL::text, NULL::smallint, NULL::int, NULL::bigint;
                        RETURN;
                    END IF;
                ELSIF EXISTS (SELECT 1 FROM deferred_jobs WHERE job_id = p_job_id) THEN
                    RETURN QUERY SELECT 'no_lane'::text, NULL::text, NULL::text, NULL::text, NULL::smallint,
                        NULL::int, NULL::int, NULL::timestamptz, NULL::text, NULL::text, NULL::smallint, NULL::int,
                        NULL::bigint;
                    RETURN;
                END IF;
                SELECT * INTO v FROM lock_live_job(p_job_id);
                IF NOT FOUND THEN
                    RETURN QUERY SELECT 'not_found'::text, NULL::text, NULL::text, NULL::text, NULL::smallint,
                        NULL::int, NULL::int, NULL::timestamptz, NULL::text, NULL::text, NULL::smallint, NULL::int,
                        NULL::bigint;
                    RETURN;
                END IF;
                IF v.state IS NOT NULL OR v.claimed THEN
                    RETURN QUERY SELECT CASE WHEN v.state IS NULL THEN 'claimed' ELSE 'finished' END,
                        coalesce(v.state, 'running'), v.queue, v.kind, v.priority, v.attempt, v.max_attempts,
                        NULL::timestamptz, v.error, NULL::text, NULL::smallint, NULL::int, NULL::bigint;
                    RETURN;
                END IF;
                IF v.queue <> p_queue OR v.priority <> p_priority THEN
                    IF NOT v_has_lane THEN
                        RETURN QUERY SELECT 'no_lane'::text, NULL::text, NULL::text, NULL::text, NULL::smallint,
                            NULL::int, NULL::int, NULL::timestamptz, NULL::text, NULL::text, NULL::smallint,
                            NULL::int, NULL::bigint;
                        RETURN;
                    END IF;
                    INSERT INTO ready_tombstones (ready_slot, queue, priority, enqueue_shard, lane_seq, job_id)
                    VALUES (v.slot, v.queue, v.priority, v.shard, v.lane_seq, p_job_id);
                    -- The source lane's effective cursor, as prune's pending-ready gate computes it.
                    SELECT l.claim_seq INTO v_claim_seq FROM queue_lanes l
                    WHERE l.queue = v.queue AND l.priority = v.priority AND l.enqueue_shard = v.shard;
                    EXECUTE format('SELECT greatest(pg_sequence_last_value($1) + 1, (SELECT max(r.next_lane_seq)'
                        || ' FROM %I.%I r WHERE r.ready_slot = $2 AND r.queue = $3 AND r.priority = $4'
                        || ' AND r.enqueue_shard = $5))', {name}, 'ready_claim_ranges_' || v.slot)
                    INTO v_cursor USING v_claim_seq, v.slot, v.queue, v.priority, v.shard;
                    IF v_cursor = v.lane_seq THEN
                        v_spent := v.lane_seq + 1;
                        INSERT INTO ready_claim_ranges (ready_slot, queue, priority, enqueue_shard, first_lane_seq,
                            next_lane_seq)
                        VALUES (v.slot, v.queue, v.priority, v.shard, v.lane_seq, v_spent);
                    END IF;
                    PERFORM enqueue_lane(p_queue, p_priority, p_shard, ARRAY[p_job_id], ARRAY[v.kind],
                        ARRAY[v.args], ARRAY[v.attempt], ARRAY[v.max_attempts], ARRAY[coalesce(v.timeout_ms, 0)]);
                END IF;
                RETURN QUERY SELECT 'moved'::text, 'available'::text, p_queue, v.kind, p_priority, v.attempt,
                    v.max_attempts, NULL::timestamptz, NULL::text, v.queue, v.priority, v.shard, v_spent;
            END
            $fn$""";

    /**
     * Re-enqueues dead-letter rows as new jobs: either the one row {@code p_job_id} (waiting for a concurrent
     * retry or discard of it, which then leaves nothing to retry), or up to {@code p_limit} rows of
     * {@code p_queue} that failed at or before {@code p_cutoff}, oldest first, {@code FOR UPDATE SKIP LOCKED} so
     * concurrent batches never take a row twice. The rows are deleted and, lane by lane in one order, enqueued
     * through {@code enqueue_lane} into the lane the job failed in (it still exists: lanes are never dropped), with
     * NEW job ids (an old id could collide with its done row still in the ring), attempt 1 and the original max
     * attempts and timeout, in the same transaction. Returns each old id with its new id.
     */
    private static final String RETRY_FAILED_JOBS = """
            CREATE FUNCTION {s}.retry_failed_jobs(p_job_id bigint, p_queue text, p_cutoff timestamptz, p_limit int)
            RETURNS TABLE (o_old_job_id bigint, o_new_job_id bigint)
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
            DECLARE
                v_ids bigint[];
                v_lane record;
                v_gone record;
            BEGIN
                IF p_job_id IS NOT NULL THEN
                    SELECT array_agg(f.job_id) INTO v_ids FROM (
                        SELECT f.job_id FROM dead_letter_jobs f WHERE f.job_id = p_job_id FOR UPDATE) f;
                ELSE
                    SELECT array_agg(f.job_id) INTO v_ids FROM (
                        SELECT f.job_id FROM dead_letter_jobs f WHERE f.queue = p_queue AND f.failed_at <= p_cutoff
                        ORDER BY f.failed_at, f.job_id LIMIT p_limit FOR UPDATE SKIP LOCKED) f;
                END IF;
                IF v_ids IS NULL THEN
                    RETURN;
                END IF;
                FOR v_lane IN
                    SELECT f.queue, f.priority, f.enqueue_shard FROM dead_letter_jobs f WHERE f.job_id = ANY (v_ids)
                    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                LOOP
                    WITH gone AS (
                        DELETE FROM dead_letter_jobs f WHERE f.job_id = ANY (v_ids) AND f.queue = v_lane.queue
                          AND f.priority = v_lane.priority AND f.enqueue_shard = v_lane.enqueue_shard
                        RETURNING f.*)
                    SELECT array_agg(g.job_id ORDER BY g.failed_at, g.job_id) AS ids,
                           array_agg(g.kind ORDER BY g.failed_at, g.job_id) AS kinds,
                           array_agg(g.args ORDER BY g.failed_at, g.job_id) AS args,
                           array_agg(g.max_attempts ORDER BY g.failed_at, g.job_id) AS max_attempts,
                           array_agg(coalesce(g.timeout_ms, 0) ORDER BY g.failed_at, g.job_id) AS timeouts
                    INTO v_gone FROM gone g;
                    RETURN QUERY SELECT v_gone.ids[e.o_ord], e.o_job_id
                    FROM enqueue_lane(v_lane.queue, v_lane.priority, v_lane.enqueue_shard, NULL,
                        v_gone.kinds, v_gone.args, array_fill(1, ARRAY[cardinality(v_gone.ids)]),
                        v_gone.max_attempts, v_gone.timeouts) e;
                END LOOP;
            END
            $fn$""";
}
