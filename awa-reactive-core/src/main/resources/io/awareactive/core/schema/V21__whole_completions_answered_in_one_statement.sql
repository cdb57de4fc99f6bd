-- awa-reactive schema, step 21: a completion whose per-slot statements completed every position of the batch (the
-- usual case) answers them all with one statement, instead of a loop over the positions.
--
-- Up to step 20 complete_attempts, after running each lease slot's statement, always looped over every position to
-- emit its result row by row (RETURN NEXT), calling end_attempt for the positions no slot statement completed. For
-- the usual batch every position is completed and that loop only says so, one row at a time. Measured on the SQL
-- alone (awa-reactive-benchmarks/sql-alone, one client, a claim of 10 and its completion per loop), leaving it out
-- makes a completion about 7 % faster (docs/benchmarks.md, section 1y).
--
-- From this step the slot loop also counts the positions its statements completed. When they are all the batch's
-- positions, every answer is 'completed' and one statement returns them; otherwise the per-position loop runs as
-- before. The slots' statements are unchanged, and each returns only positions of its own slot, each attempt once
-- at its first position, so the count equals the batch's length only when every position is a distinct attempt that
-- was completed; a batch naming an attempt twice takes the per-position loop, as before.
--
-- complete_attempts is rewritten from its installed text; the step fails unless each piece is found exactly once.
-- Signature and results are unchanged (the rows' order never was part of them: callers key each result by its
-- position), and running workers take the new definition at their next completion. Placeholders as in step 1.

DO $whole$
DECLARE
    v_definition text := pg_get_functiondef(
        '{{schema}}.complete_attempts(int[], bigint[], bigint[])'::regprocedure);
    v_old text[] := ARRAY[$old$
    v record;
BEGIN
$old$, $old$
        FOREACH v_ord IN ARRAY v_completed LOOP
$old$, $old$
    END LOOP;
    FOR v IN
$old$];
    v_new text[] := ARRAY[$new$
    v record;
    v_completed_count int := 0;
BEGIN
$new$, $new$
        v_completed_count := v_completed_count + cardinality(v_completed);
        FOREACH v_ord IN ARRAY v_completed LOOP
$new$, $new$
    END LOOP;
    -- Every position completed by its slot's statement (schema step 21): all the answers in one statement.
    IF v_completed_count = cardinality(p_job_ids) THEN
        RETURN QUERY SELECT o::int, 'completed'::text FROM generate_series(1, v_completed_count) AS o;
        RETURN;
    END IF;
    FOR v IN
$new$];
BEGIN
    FOR v_i IN 1 .. cardinality(v_old) LOOP
        IF array_length(string_to_array(v_definition, v_old[v_i]), 1) <> 2 THEN
            RAISE EXCEPTION 'schema step 21: piece % of complete_attempts was not found exactly once', v_i;
        END IF;
        v_definition := replace(v_definition, v_old[v_i], v_new[v_i]);
    END LOOP;
    EXECUTE v_definition;
END
$whole$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (21, 'whole completions answered in one statement', {{checksum:21}});
