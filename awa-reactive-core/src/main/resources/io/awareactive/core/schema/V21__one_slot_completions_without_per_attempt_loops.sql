-- awa-reactive schema, step 21: a completion whose attempts all lie in one lease slot (a claimed batch, or a worker's
-- group of acknowledgements between two lease rotations) calls that slot's statement directly, and answers a batch it
-- completed whole with one statement instead of a loop over its attempts.
--
-- Up to step 20 complete_attempts always ran three loops around the per-slot statements: one query for the batch's
-- distinct lease slots, a loop marking each completed position, and a loop over every position that emitted its
-- result row by row (RETURN NEXT), calling end_attempt for the positions no slot statement completed. Measured on the
-- SQL alone (awa-reactive-benchmarks/sql-alone, one client, a claim of 10 and its completion per loop, alternated
-- runs), leaving them out for the usual batch makes a completion 8-15 % faster.
--
-- From this step, when every position names the same lease slot, that slot's statement runs first (the same
-- statement and locks as before, through the same generated CASE). If it completed every position, each answer is
-- 'completed' and the function returns them in one statement. Otherwise the positions it completed are marked, the
-- slot loop is skipped (its only slot has run; a second run would find nothing left to complete and cost a statement),
-- and the remaining positions go through end_attempt as before. A batch spanning lease slots, or naming a NULL slot,
-- takes the loop of step 20 unchanged. The statement counts each attempt once, at its first position, so a batch
-- that names an attempt twice never completes every position and takes the per-position path, as before.
--
-- complete_attempts is rewritten from its installed text; the step fails unless each piece is found exactly once.
-- The CASE of the new branch has one branch per lease slot of this installation. Signature and results are
-- unchanged (the rows' order never was part of them: callers key each result by its position), and running workers
-- take the new definition at their next completion. Placeholders as in step 1.

DO $one_slot$
DECLARE
    v_definition text := pg_get_functiondef(
        '{{schema}}.complete_attempts(int[], bigint[], bigint[])'::regprocedure);
    v_branches text;
    v_old text[];
    v_new text[];
BEGIN
    SELECT string_agg(format('            WHEN %s THEN complete_in_lease_slot_%s(p_lease_slots, p_job_ids,'
            || ' p_run_leases)', slot, slot), E'\n' ORDER BY slot)
    INTO v_branches FROM {{schema}}.lease_ring_slots;
    v_old := ARRAY[$old$
    v record;
BEGIN
$old$, $old$
    FOR v_slot IN SELECT DISTINCT s FROM unnest(p_lease_slots) AS s ORDER BY s LOOP
$old$];
    v_new := ARRAY[$new$
    v record;
    v_one_slot boolean := cardinality(p_lease_slots) > 0
        AND coalesce(p_lease_slots[1] = ALL (p_lease_slots), false);
BEGIN
$new$, $new$
    IF v_one_slot THEN
        -- Every position in one lease slot (schema step 21): its statement alone, and one statement for the
        -- answers when it completed them all.
        v_slot := p_lease_slots[1];
        v_completed := CASE v_slot
$new$ || v_branches || $new$
        END;
        IF v_completed IS NULL THEN
            RAISE EXCEPTION 'lease slot % does not exist', v_slot USING ERRCODE = '22023';
        END IF;
        IF cardinality(v_completed) = cardinality(p_job_ids) THEN
            RETURN QUERY SELECT o::int, 'completed'::text FROM generate_series(1, cardinality(p_job_ids)) AS o;
            RETURN;
        END IF;
        FOREACH v_ord IN ARRAY v_completed LOOP
            v_is_completed[v_ord] := true;
        END LOOP;
    END IF;
    -- A batch spanning lease slots: each slot's statement, slots in order. The one slot above has run already.
    FOR v_slot IN SELECT DISTINCT s FROM unnest(p_lease_slots) AS s WHERE NOT v_one_slot ORDER BY s LOOP
$new$];
    FOR v_i IN 1 .. cardinality(v_old) LOOP
        IF array_length(string_to_array(v_definition, v_old[v_i]), 1) <> 2 THEN
            RAISE EXCEPTION 'schema step 21: piece % of complete_attempts was not found exactly once', v_i;
        END IF;
        v_definition := replace(v_definition, v_old[v_i], v_new[v_i]);
    END LOOP;
    EXECUTE v_definition;
END
$one_slot$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (21, 'one slot completions without per attempt loops', {{checksum:21}});
