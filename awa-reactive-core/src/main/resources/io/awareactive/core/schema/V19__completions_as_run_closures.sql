-- awa-reactive schema, step 19: a completion closes its attempts with one row per claimed run, in the lease ring,
-- instead of a done row per job in the queue ring.
--
-- Up to step 18 every completed job wrote a done row (a heap row and a primary-key entry, routed through the
-- done_entries parent) in its queue slot: about a quarter of a job's WAL, most of a completion's statement time, and
-- bytes that the queue prune's commit removes. From this step a completion writes, per run it completes attempts of,
-- one row of lease_run_closures (lease ring, one child per lease slot, next to the run's row): the run and the places
-- it closes. The done rows stay for the other endings (failure, cancel), which carry a state and an error.
--
-- Exactly one ending per attempt, as in step 18: every writer that ends an attempt of a run first takes the run's
-- advisory lock, then, in a later statement, ends only attempts that are neither in the run's ended list nor in a
-- closure of the run. The closures live in the run's own lease child, so every reader of "already completed" (the
-- completion, end_attempt, rescue and the heartbeat) reads one named child of the run's lease slot, never a child of
-- the queue ring.
--
-- A claimed job's status. A completed attempt has no done row: locate_job (status, cancel, move) finds the claimed
-- ready row, then the run holding it, through a new index of lease_runs on its lane and first lane position (runs of
-- a lane are disjoint and increasing). Open, it is running; closed, completed. When no lease slot holds the run any
-- more (its slot was pruned, which needs every attempt of it ended), the job is looked for again, in a new snapshot:
-- a failure's done row, or the newer ready row of a retry, is then visible; with neither the attempt completed. So
-- locate_job and job_status become VOLATILE (a new snapshot per statement).
--
-- Upgrade. The step takes a SHARE lock on done_entries, so a completion writing done rows the old way commits before
-- the step reads them or waits until it commits, and writes a closure for every completed attempt of a run still held
-- by a lease slot. Workers of version 18 must still be stopped before the upgrade (docs/operations.md): a completion
-- that started before the step and writes its done rows after it would not be seen as a closure. Attempts claimed
-- before step 18 keep their leases and every path they took. Signatures are unchanged. Placeholders as in step 1.

LOCK TABLE {{schema}}.done_entries IN SHARE MODE;

CREATE TABLE {{schema}}.lease_run_closures (
    lease_slot int NOT NULL, run_id bigint NOT NULL, places int[] NOT NULL) PARTITION BY LIST (lease_slot);
CREATE INDEX lease_run_closures_run_idx ON {{schema}}.lease_run_closures (lease_slot, run_id);

-- One child per lease slot, appended to and truncated with its slot: no ANALYZE or insert-driven VACUUM (step 17).
DO $children$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot LOOP
        EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.lease_run_closures FOR VALUES IN (%s) WITH ('
            || 'autovacuum_analyze_threshold = 2147483647, autovacuum_vacuum_insert_threshold = -1)',
            {{schema_name}}, 'lease_run_closures_' || v_slot, {{schema_name}}, v_slot);
    END LOOP;
END
$children$;

-- The run holding a claimed ready row, for locate_job: one backward probe per lease slot.
CREATE INDEX lease_runs_lane_idx ON {{schema}}.lease_runs (queue, priority, enqueue_shard, (lane_seqs[1]));

-- The attempts completed so far by done rows, as closures of their runs.
INSERT INTO {{schema}}.lease_run_closures (lease_slot, run_id, places)
SELECT r.lease_slot, r.run_id, array_agg((x.n - 1)::int ORDER BY x.n)
FROM {{schema}}.lease_runs r
CROSS JOIN LATERAL unnest(r.job_ids) WITH ORDINALITY AS x (job_id, n)
WHERE (x.n - 1)::int <> ALL (r.ended)
  AND EXISTS (SELECT 1 FROM {{schema}}.done_entries d WHERE d.ready_slot = r.ready_slot AND d.job_id = x.job_id
              AND d.run_lease = -(r.run_id * 1024 + x.n - 1))
GROUP BY r.lease_slot, r.run_id;

-- Completions in one lease slot (complete_in_lease_slot_<k>, same signature): the attempts of runs are closed by one
-- row per run, in the run's lease slot, instead of a done row per job. Rewritten from the installed text, as step 18
-- rewrote the claim; the step fails unless each slot's statement is found exactly once.
DO $per_slot$
DECLARE
    v_slot int;
    v_definition text;
    v_old text;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot LOOP
        v_definition := pg_get_functiondef(format('{{schema}}.complete_in_lease_slot_%s(int[], bigint[], bigint[])',
            v_slot)::regprocedure);
        v_old := replace($old$
    WITH a AS (
        SELECT x.ord::int AS ord, x.job_id, x.run_lease, (-x.run_lease) >> 10 AS run_id,
            ((-x.run_lease) & 1023)::int AS i
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS x (lease_slot, job_id, run_lease, ord)
        WHERE x.lease_slot = @k@ AND x.run_lease < 0
    ), open AS (
        -- The caller's job at its index of the run, not ended otherwise: one primary-key probe of the run row per
        -- attempt (OFFSET 0 keeps it a probe, whatever the child's statistics say).
        SELECT DISTINCT ON (a.run_id, a.i) a.job_id, a.run_lease, r.ready_slot, r.ready_generation, r.queue,
            r.priority, r.kinds[a.i + 1] AS kind, r.attempts[a.i + 1] AS attempt
        FROM a CROSS JOIN LATERAL (
            SELECT r.* FROM lease_runs_@k@ r WHERE r.lease_slot = @k@ AND r.run_id = a.run_id OFFSET 0) r
        WHERE r.job_ids[a.i + 1] = a.job_id AND a.i <> ALL (r.ended)
        ORDER BY a.run_id, a.i
    ), done AS MATERIALIZED (
        -- An attempt completed before holds its done row: the insert skips it. Routed per row, the insert opens
        -- and locks only the done children it writes, never all of them as a read of the parent would.
        INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind, state,
            attempt)
        SELECT o.ready_slot, o.job_id, o.run_lease, o.ready_generation, o.queue, o.priority, o.kind, 'completed',
            o.attempt
        FROM open o
        ON CONFLICT DO NOTHING
        RETURNING ready_slot, job_id, run_lease, ready_generation, queue, priority
    ), deltas AS (
        INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
        SELECT d.ready_slot, d.ready_generation, d.queue, d.priority, 'completed', count(*) FROM done d
        GROUP BY d.ready_slot, d.ready_generation, d.queue, d.priority
    ), tally AS (
        INSERT INTO lease_tallies AS y (lease_slot, ready_slot, queue, backend, live)
        SELECT @k@, d.ready_slot, d.queue, pg_backend_pid(), -count(*) FROM done d GROUP BY d.ready_slot, d.queue
        ON CONFLICT (lease_slot, ready_slot, queue, backend) DO UPDATE SET live = y.live + excluded.live
    )
    SELECT array_agg(f.ord) INTO v_completed
    FROM (SELECT min(a.ord) AS ord FROM a JOIN done d ON d.job_id = a.job_id AND d.run_lease = a.run_lease
          GROUP BY a.job_id, a.run_lease) f;
$old$, '@k@', v_slot::text);
        IF array_length(string_to_array(v_definition, v_old), 1) <> 2 THEN
            RAISE EXCEPTION 'schema step 19: the run statement of lease slot % was not found exactly once', v_slot;
        END IF;
        EXECUTE replace(v_definition, v_old, replace($new$
    WITH a AS (
        SELECT x.ord::int AS ord, x.job_id, (-x.run_lease) >> 10 AS run_id, ((-x.run_lease) & 1023)::int AS i
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS x (lease_slot, job_id, run_lease, ord)
        WHERE x.lease_slot = @k@ AND x.run_lease < 0
    ), open AS MATERIALIZED (
        -- The caller's job at its place in the run, neither ended otherwise nor closed: one primary-key probe of the
        -- run row and one index probe of its closures per attempt (OFFSET 0 keeps them probes, whatever the child's
        -- statistics say). An attempt given twice counts once, at its first position.
        SELECT DISTINCT ON (a.run_id, a.i) a.ord, a.run_id, a.i, r.ready_slot, r.ready_generation, r.queue,
            r.priority
        FROM a CROSS JOIN LATERAL (
            SELECT r.* FROM lease_runs_@k@ r WHERE r.lease_slot = @k@ AND r.run_id = a.run_id OFFSET 0) r
        WHERE r.job_ids[a.i + 1] = a.job_id AND a.i <> ALL (r.ended)
          AND NOT EXISTS (SELECT 1 FROM lease_run_closures_@k@ c
                          WHERE c.lease_slot = @k@ AND c.run_id = a.run_id AND a.i = ANY (c.places))
        ORDER BY a.run_id, a.i, a.ord
    ), closed AS (
        INSERT INTO lease_run_closures_@k@ (lease_slot, run_id, places)
        SELECT @k@, o.run_id, array_agg(o.i ORDER BY o.i) FROM open o GROUP BY o.run_id
    ), deltas AS (
        INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
        SELECT o.ready_slot, o.ready_generation, o.queue, o.priority, 'completed', count(*) FROM open o
        GROUP BY o.ready_slot, o.ready_generation, o.queue, o.priority
    ), tally AS (
        INSERT INTO lease_tallies AS y (lease_slot, ready_slot, queue, backend, live)
        SELECT @k@, o.ready_slot, o.queue, pg_backend_pid(), -count(*) FROM open o GROUP BY o.ready_slot, o.queue
        ON CONFLICT (lease_slot, ready_slot, queue, backend) DO UPDATE SET live = y.live + excluded.live
    )
    SELECT array_agg(o.ord) INTO v_completed FROM open o;
$new$, '@k@', v_slot::text));
    END LOOP;
END
$per_slot$;

-- end_attempt (same signature): an attempt of a run is open only while no closure of its run holds its place, read in
-- the run's lease slot with the run row, instead of a done row in the job's queue slot. rescue_jobs (same signature):
-- the same check, so a chosen lease slot's runs are read in one statement instead of one per ready slot they point
-- at. Both rewritten from their installed text, piece by piece; the step fails unless each piece is found exactly
-- once.
DO $closures_read$
DECLARE
    v_function text;
    v_definition text;
    v_old text[];
    v_new text[];
BEGIN
    FOREACH v_function IN ARRAY ARRAY['end_attempt', 'rescue_jobs'] LOOP
        IF v_function = 'end_attempt' THEN
            v_definition := pg_get_functiondef(('{{schema}}.end_attempt(int, bigint, bigint, text, text,'
                || ' double precision, double precision, double precision, double precision, boolean)')::regprocedure);
            v_old := ARRAY[$old$
            || ' NULL::int AS claim_slot FROM %I.%I r WHERE r.lease_slot = $1 AND r.run_id = $5'
            || ' AND r.job_ids[$4 + 1] = $2 AND $4 <> ALL (r.ended)', {{schema_name}}, 'lease_runs_' || p_lease_slot)
$old$, $old$
        -- Completed already: its done row, in the named child of its ready slot.
        EXECUTE format('SELECT 1 FROM %I.%I WHERE ready_slot = $1 AND job_id = $2 AND run_lease = $3',
            {{schema_name}}, 'done_entries_' || v_lease.ready_slot)
        USING v_lease.ready_slot, p_job_id, p_run_lease;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_n > 0 THEN
            RETURN 'lost';
        END IF;
$old$];
            v_new := ARRAY[$new$
            || ' NULL::int AS claim_slot FROM %1$I.%2$I r WHERE r.lease_slot = $1 AND r.run_id = $5'
            || ' AND r.job_ids[$4 + 1] = $2 AND $4 <> ALL (r.ended) AND NOT EXISTS (SELECT 1 FROM %1$I.%3$I c'
            || ' WHERE c.lease_slot = $1 AND c.run_id = $5 AND $4 = ANY (c.places))',
            {{schema_name}}, 'lease_runs_' || p_lease_slot, 'lease_run_closures_' || p_lease_slot)
$new$, E'\n'];
        ELSE
            v_definition := pg_get_functiondef(('{{schema}}.rescue_jobs(int, bigint, double precision,'
                || ' double precision, double precision, double precision, boolean)')::regprocedure);
            v_old := ARRAY[E'    v_ready int;\n', $old$
        -- The slot's stale leases (locked, skipping those a writer holds), then the open attempts of its runs, per
        -- ready slot they point at, whose done child is named (end_attempt takes each run's lock and checks again).
$old$, $old$
        FOR v_ready IN EXECUTE format('SELECT DISTINCT ready_slot FROM %I ORDER BY 1', 'lease_runs_' || v_slot) LOOP
            EXIT WHEN v_taken >= p_max;
            FOR v IN EXECUTE format('SELECT x.job_id, -(r.run_id * 1024 + x.n - 1) AS run_lease,'
                    || ' (x.deadline < clock_timestamp()) AS expired FROM %I r'
                    || ' CROSS JOIN LATERAL unnest(r.job_ids, r.deadlines) WITH ORDINALITY AS x (job_id, deadline, n)'
                    || ' WHERE r.ready_slot = $3 AND (r.heartbeat_at < $1 OR x.deadline < clock_timestamp())'
                    || ' AND (x.n - 1)::int <> ALL (r.ended) AND NOT EXISTS (SELECT 1 FROM %I d'
                    || ' WHERE d.ready_slot = $3 AND d.job_id = x.job_id AND d.run_lease = -(r.run_id * 1024 + x.n - 1))'
                    || ' LIMIT $2', 'lease_runs_' || v_slot, 'done_entries_' || v_ready)
                USING v_stale_before, p_max - v_taken, v_ready
            LOOP
                v_taken := v_taken + 1;
                v_count := v_count + rescue_attempt(v_slot, v.job_id, v.run_lease, v.expired, p_base_ms, p_factor,
                    p_max_ms, p_jitter, p_dead_letter);
            END LOOP;
        END LOOP;
$old$];
            v_new := ARRAY['', $new$
        -- The slot's stale leases (locked, skipping those a writer holds), then the open attempts of its runs: not
        -- ended otherwise and not closed by a completion (end_attempt takes each run's lock and checks again).
$new$, $new$
        EXIT WHEN v_taken >= p_max;
        FOR v IN EXECUTE format('SELECT x.job_id, -(r.run_id * 1024 + x.n - 1) AS run_lease,'
                || ' (x.deadline < clock_timestamp()) AS expired FROM %I r'
                || ' CROSS JOIN LATERAL unnest(r.job_ids, r.deadlines) WITH ORDINALITY AS x (job_id, deadline, n)'
                || ' WHERE (r.heartbeat_at < $1 OR x.deadline < clock_timestamp())'
                || ' AND (x.n - 1)::int <> ALL (r.ended) AND NOT EXISTS (SELECT 1 FROM %I c'
                || ' WHERE c.lease_slot = r.lease_slot AND c.run_id = r.run_id AND (x.n - 1)::int = ANY (c.places))'
                || ' LIMIT $2', 'lease_runs_' || v_slot, 'lease_run_closures_' || v_slot)
            USING v_stale_before, p_max - v_taken
        LOOP
            v_taken := v_taken + 1;
            v_count := v_count + rescue_attempt(v_slot, v.job_id, v.run_lease, v.expired, p_base_ms, p_factor,
                p_max_ms, p_jitter, p_dead_letter);
        END LOOP;
$new$];
        END IF;
        FOR v_i IN 1 .. cardinality(v_old) LOOP
            IF array_length(string_to_array(v_definition, v_old[v_i]), 1) <> 2 THEN
                RAISE EXCEPTION 'schema step 19: piece % of % was not found exactly once', v_i, v_function;
            END IF;
            v_definition := replace(v_definition, v_old[v_i], v_new[v_i]);
        END LOOP;
        EXECUTE v_definition;
    END LOOP;
END
$closures_read$;

-- Where a claimed ready row's attempt stands, for locate_job: 'running' while its run holds it open; 'completed' once
-- a closure of its run holds its place; 'ended' when the run ended it otherwise (a done row, a newer ready row or a
-- deferred retry tells more); 'gone' when no lease slot holds its run (its slot was pruned, after every attempt of it
-- ended). An attempt claimed before step 18 is 'running' while its lease exists. Index probes per lease slot, in the
-- named children (never a sequential read, whatever the children's statistics say).
CREATE FUNCTION {{schema}}.claimed_attempt_state(p_job_id bigint, p_queue text, p_priority smallint, p_shard int,
    p_lane_seq bigint)
RETURNS text
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp SET enable_seqscan = off AS $fn$
DECLARE
    v_slot int;
    v record;
    v_n int;
BEGIN
    FOR v_slot IN SELECT slot FROM lease_ring_slots ORDER BY slot LOOP
        EXECUTE format('SELECT r.run_id, x.i, x.i <> ALL (r.ended) AS not_ended, EXISTS (SELECT 1 FROM %1$I.%3$I c'
            || ' WHERE c.lease_slot = r.lease_slot AND c.run_id = r.run_id AND x.i = ANY (c.places)) AS closed'
            || ' FROM (SELECT * FROM %1$I.%2$I r WHERE r.queue = $1 AND r.priority = $2 AND r.enqueue_shard = $3'
            || ' AND r.lane_seqs[1] <= $4 ORDER BY r.lane_seqs[1] DESC LIMIT 1) r'
            || ' CROSS JOIN LATERAL (SELECT (array_position(r.lane_seqs, $4) - 1)::int AS i) x'
            || ' WHERE x.i IS NOT NULL AND r.job_ids[x.i + 1] = $5',
            {{schema_name}}, 'lease_runs_' || v_slot, 'lease_run_closures_' || v_slot)
        INTO v USING p_queue, p_priority, p_shard, p_lane_seq, p_job_id;
        IF v.run_id IS NOT NULL THEN
            RETURN CASE WHEN v.closed THEN 'completed' WHEN v.not_ended THEN 'running' ELSE 'ended' END;
        END IF;
        EXECUTE format('SELECT 1 FROM %I.%I WHERE lease_slot = $1 AND job_id = $2', {{schema_name}},
            'leases_' || v_slot) USING v_slot, p_job_id;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_n > 0 THEN
            RETURN 'running';
        END IF;
    END LOOP;
    RETURN 'gone';
END
$fn$;

-- locate_job (same signature, now VOLATILE): step 10's function, renamed locate_ring_row, finds the job's done row or
-- live ready row as before; a claimed ready row then takes its state from its run (claimed_attempt_state). When the
-- run ended the attempt otherwise or is gone, the search starts over once, in a new snapshot (a statement of its own),
-- which sees the done row or the newer ready row of an ending committed since the first look. A run still gone then
-- means the attempt completed (every other ending leaves a done row or a newer row); a run that ended the attempt
-- otherwise leaves the row claimed, as before this step (a deferred retry, which job_status reads first).
ALTER FUNCTION {{schema}}.locate_job(bigint) RENAME TO locate_ring_row;

CREATE FUNCTION {{schema}}.locate_job(p_job_id bigint) RETURNS SETOF {{schema}}.job_location
LANGUAGE plpgsql VOLATILE SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v job_location;
    v_attempt text;
BEGIN
    FOR v_pass IN 1 .. 2 LOOP
        SELECT * INTO v FROM locate_ring_row(p_job_id);
        IF NOT FOUND THEN
            RETURN;
        END IF;
        IF v.state IS NULL AND v.claimed THEN
            v_attempt := claimed_attempt_state(p_job_id, v.queue, v.priority, v.shard, v.lane_seq);
            CONTINUE WHEN v_attempt IN ('ended', 'gone') AND v_pass = 1;
            IF v_attempt IN ('completed', 'gone') THEN
                v.state := 'completed';
            END IF;
        END IF;
        RETURN NEXT v;
        RETURN;
    END LOOP;
END
$fn$;

-- Step 1's job_status, VOLATILE now that locate_job may look twice (each look in a snapshot of its own).
ALTER FUNCTION {{schema}}.job_status(bigint) VOLATILE;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (19, 'completions as run closures', {{checksum:19}});
