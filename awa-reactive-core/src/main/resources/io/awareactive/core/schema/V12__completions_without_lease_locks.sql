-- awa-reactive schema, step 12: a completion deletes its leases without locking them first.
--
-- Up to step 11, complete_in_lease_slot_<k> took each lease's row lock (SELECT ... FOR UPDATE, one primary-key probe
-- per attempt, in (job_id, run_lease) order) and then deleted the locked rows by ctid. The lock is a heap change of
-- its own: a LOCK record of about 54 bytes of WAL per job, on top of the DELETE record, for nothing the DELETE does
-- not already do. The DELETE is the race guard: of two transactions ending one attempt, the second waits for the
-- first and, when that one commits, deletes nothing (PostgreSQL skips a row deleted since the statement's snapshot),
-- so only one writes the done row. From this step the probes read the ctids without a lock and the DELETE takes each
-- row lock as it deletes:
-- - The probe stays one primary-key probe per attempt: OFFSET 0 keeps the lateral subquery from being flattened into
--   a join, which the planner could turn into a scan of the whole child when the child's statistics say it is empty
--   (CompleteAllIntegrationTests.shouldFindTheLeasesByIndexWhenTheLeaseChildsStatisticsSayItIsEmpty).
-- - A ctid read by the statement stays the row's: the statement's snapshot sees the row, so no vacuum or page prune
--   can free its line pointer before the DELETE. A heartbeat that updated the lease meanwhile moved it to a new
--   version; the DELETE waits for the heartbeat's commit and then deletes the new version or, in PostgreSQL minor
--   releases whose TID scans recheck the TID, skips it. complete_attempts ends a skipped attempt through end_attempt
--   in the same transaction, as it ends every attempt the batch statement did not
--   (CompleteAllIntegrationTests.shouldCompleteALeaseAHeartbeatUpdatedWhileTheCompletionWaited).
-- - The DELETE takes the rows in ctid order (a TID scan sorts its list), one order for every transaction that reads
--   the same rows: a completion waiting for one lease holds none of the later ones, and two completions sharing
--   attempts wait for each other in one direction only. A heartbeat that moves a shared lease between the two
--   statements' snapshots can reverse that order; PostgreSQL then ends one of them with a deadlock error, and its
--   attempts stay live until rescue takes them back, as after any failed completion.
-- Everything else is step 7's function: the done rows, the count deltas and the result.
-- Placeholders as in step 1.

DO $per_slot$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot LOOP
        EXECUTE replace($template$
CREATE OR REPLACE FUNCTION {{schema}}.complete_in_lease_slot_@k@(p_lease_slots int[], p_job_ids bigint[],
    p_run_leases bigint[])
RETURNS int[]
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off AS $fn$
DECLARE
    v_completed int[];
BEGIN
    WITH a AS (
        SELECT x.ord::int AS ord, x.job_id, x.run_lease
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS x (lease_slot, job_id, run_lease, ord)
        WHERE x.lease_slot = @k@
    ), found AS MATERIALIZED (
        -- One primary-key probe per attempt: OFFSET 0 keeps the lateral subquery from being flattened into a join.
        SELECT l.ctid AS row_id
        FROM (SELECT DISTINCT a.job_id, a.run_lease FROM a) a
        CROSS JOIN LATERAL (
            SELECT l.ctid FROM leases_@k@ l
            WHERE l.lease_slot = @k@ AND l.job_id = a.job_id AND l.run_lease = a.run_lease AND l.kind IS NOT NULL
              AND l.receipt_id IS NULL
            OFFSET 0) l
    ), gone AS (
        -- In ctid order. A row ended or updated since the snapshot may be skipped: complete_attempts then ends it
        -- through end_attempt.
        DELETE FROM leases_@k@ l WHERE l.ctid = ANY (ARRAY(SELECT f.row_id FROM found f))
        RETURNING l.*
    ), done AS (
        INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind, state,
            attempt)
        SELECT g.ready_slot, g.job_id, g.run_lease, g.ready_generation, g.queue, g.priority, g.kind, 'completed',
            g.attempt
        FROM gone g
    ), deltas AS (
        INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
        SELECT g.ready_slot, g.ready_generation, g.queue, g.priority, 'completed', count(*) FROM gone g
        GROUP BY g.ready_slot, g.ready_generation, g.queue, g.priority
    )
    SELECT array_agg(f.ord) INTO v_completed
    FROM (SELECT min(a.ord) AS ord FROM a JOIN gone g ON g.job_id = a.job_id AND g.run_lease = a.run_lease
          GROUP BY a.job_id, a.run_lease) f;
    RETURN coalesce(v_completed, '{}');
END
$fn$
$template$, '@k@', v_slot::text);
    END LOOP;
END
$per_slot$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (12, 'completions without lease locks', {{checksum:12}});
