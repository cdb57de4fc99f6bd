-- awa-reactive schema, step 3: complete a batch of attempts in one statement and one commit.
--
-- Group commit for acknowledgements: QueueStorage.completeAll and a worker's completer end many attempts in one
-- transaction, so a batch of A completions costs one commit instead of A. Each attempt is ended exactly as
-- end_attempt ends it (the lease delete is the race guard: an attempt no longer live is 'lost' and writes
-- nothing). Attempts are ended in (lease_slot, job_id, run_lease) order, so two overlapping batches lock leases in
-- one order. Placeholders as in step 1. Adds a function only: nothing that running workers use changes.

-- complete_attempts(lease slots, job ids, run leases): one row per input position (o_ord from 1) with what
-- end_attempt returned, 'completed' or 'lost'.
CREATE FUNCTION {{schema}}.complete_attempts(p_lease_slots int[], p_job_ids bigint[], p_run_leases bigint[])
RETURNS TABLE (o_ord int, o_result text)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v record;
BEGIN
    IF cardinality(p_lease_slots) <> cardinality(p_job_ids)
            OR cardinality(p_job_ids) <> cardinality(p_run_leases) THEN
        RAISE EXCEPTION 'complete_attempts needs arrays of one length' USING ERRCODE = '22023';
    END IF;
    FOR v IN
        SELECT a.ord::int AS ord, a.lease_slot, a.job_id, a.run_lease
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS a (lease_slot, job_id, run_lease, ord)
        ORDER BY a.lease_slot, a.job_id, a.run_lease, a.ord
    LOOP
        o_ord := v.ord;
        o_result := end_attempt(v.lease_slot, v.job_id, v.run_lease, 'completed', NULL, 0, 1, 0, 1, false);
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (3, 'complete attempts', {{checksum:3}});
