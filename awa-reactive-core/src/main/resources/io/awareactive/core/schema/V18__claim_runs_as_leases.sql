-- awa-reactive schema, step 18: a claim writes one lease row per run it takes, not one per job, and a completion
-- writes only the done rows.
--
-- Up to step 17 every claimed job wrote a lease (a heap row and a primary-key entry, tallied by a trigger) and every
-- completion deleted it: about a quarter of a job's WAL and two fifths of the server's statement time per job on
-- the SQL alone (docs/benchmarks.md, section 1r). From this step a claim writes, per run it takes from a lane, one
-- row of lease_runs (lease ring, partitioned per lease slot like the leases): the run's jobs as arrays (job ids, lane
-- positions, attempts, kinds, deadlines), one heartbeat time and the list of attempts ended other than by a done row.
-- An attempt is (lease slot, run, index in the run); its run lease, the handle a worker completes it with, is
-- -(run_id * 1024 + index): negative, so it never equals a lease's run lease (receipt_id_seq, positive), and a claim
-- takes at most 1,000 jobs. Nothing per job is written at the claim beyond the run row's array entries.
--
-- Exactly one ending per attempt. Every writer that ends an attempt of a run first takes the run's transaction-level
-- advisory lock (run_key; a completion takes its runs' keys in ascending order, slot by slot) and then, in a later
-- statement, so under a snapshot that sees every ending committed before the lock was granted, ends only attempts
-- that have neither a done row nor an entry in the run's ended list:
-- - a completion (complete_in_lease_slot_<k>) writes the attempt's done row and count delta, nothing else; an attempt
--   completed before already holds its done row (primary key ready_slot, job_id, run_lease), which the insert skips
--   (ON CONFLICT DO NOTHING) instead of looking for it first: a read of the done_entries parent would lock every done
--   child, which a queue prune locks NOWAIT;
-- - every other ending (end_attempt: failure, retry, release, rescue) appends the index to the run's ended list (an
--   UPDATE on a failure path only) and then does what it did for a lease;
-- - rescue takes the lock with a try-lock and leaves a busy run to its next round, so it never waits while holding
--   another run's lock.
-- A caller's handle is checked against the run row (job id at the index), so a forged or stale handle ends nothing.
--
-- Tallies. lease_tallies now key their rows by queue too (running counts per queue read them instead of the leases),
-- and the claim and the enders write them explicitly for runs: live +n and runs +1 with the run, live -1 per ended
-- attempt, in the same transaction. The prune gates, the rotation's idle probe, rescue's slot choice and the
-- sealed-slots gauge read live as before, so a lease slot is kept while any attempt of its runs is open and a queue
-- slot while any attempt of its rows is. A queue slot is also kept while a lease slot still holds a run of its rows
-- (runs <> 0 until that lease slot's truncate): an attempt counts as ended by its done row, which lives in the queue
-- slot, so the done rows must outlive the runs they close. Heartbeats update the run row (one per run) and report an
-- attempt live while it is open.
--
-- Attempts claimed before this step keep their leases and every path they took (the lease delete is their race
-- guard); the tallies of their leases are recounted with their queue, under a SHARE lock on the leases that keeps
-- lease writers out until this step commits. Signatures are unchanged. Placeholders as in step 1.

LOCK TABLE {{schema}}.leases IN SHARE MODE;

ALTER TABLE {{schema}}.lease_tallies ADD COLUMN queue text NOT NULL DEFAULT '',
    ADD COLUMN runs bigint NOT NULL DEFAULT 0;
ALTER TABLE {{schema}}.lease_tallies DROP CONSTRAINT lease_tallies_pkey;
DELETE FROM {{schema}}.lease_tallies;
INSERT INTO {{schema}}.lease_tallies (lease_slot, ready_slot, queue, backend, live, min_deadline)
SELECT l.lease_slot, l.ready_slot, l.queue, 0, count(*), min(l.deadline_at)
FROM {{schema}}.leases l GROUP BY l.lease_slot, l.ready_slot, l.queue;
ALTER TABLE {{schema}}.lease_tallies ADD PRIMARY KEY (lease_slot, ready_slot, queue, backend);

-- tally_leases(sign), as in step 15, per (lease slot, ready slot, queue).
CREATE OR REPLACE FUNCTION {{schema}}.tally_leases() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    INSERT INTO lease_tallies AS t (lease_slot, ready_slot, queue, backend, live, min_deadline)
    SELECT c.lease_slot, c.ready_slot, c.queue, pg_backend_pid(), TG_ARGV[0]::int * count(*),
        CASE WHEN TG_ARGV[0]::int > 0 THEN min(c.deadline_at) END
    FROM changed c
    GROUP BY c.lease_slot, c.ready_slot, c.queue
    ON CONFLICT (lease_slot, ready_slot, queue, backend)
    DO UPDATE SET live = t.live + excluded.live, min_deadline = least(t.min_deadline, excluded.min_deadline);
    RETURN NULL;
END
$fn$;

CREATE TABLE {{schema}}.lease_runs (
    lease_slot int NOT NULL, run_id bigint NOT NULL, ready_slot int NOT NULL, ready_generation bigint NOT NULL,
    queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL, worker_id text NOT NULL,
    heartbeat_at timestamptz NOT NULL, job_ids bigint[] NOT NULL, lane_seqs bigint[] NOT NULL,
    attempts int[] NOT NULL, max_attempts int[] NOT NULL, kinds text[] NOT NULL, deadlines timestamptz[] NOT NULL,
    ended int[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (lease_slot, run_id)) PARTITION BY LIST (lease_slot);

-- One child per lease slot. A run row is updated only by heartbeats and by endings other than a completion (room for
-- HOT updates), and leaves with its slot's truncate: no ANALYZE or insert-driven VACUUM, as for the leases (step 17).
DO $children$
DECLARE
    v_slot int;
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.lease_ring_slots ORDER BY slot LOOP
        EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.lease_runs FOR VALUES IN (%s) WITH (fillfactor = 70,'
            || ' autovacuum_analyze_threshold = 2147483647, autovacuum_vacuum_insert_threshold = -1)',
            {{schema_name}}, 'lease_runs_' || v_slot, {{schema_name}}, v_slot);
    END LOOP;
END
$children$;

-- The advisory lock key of a run, for the writers that end its attempts.
CREATE FUNCTION {{schema}}.run_key(p_run_id bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtextextended('awa-reactive.run:' || {{schema_name}}, p_run_id)
$fn$;

-- The claim: each queue slot's run statement (step 13) writes the run's row and its tally instead of a lease per job,
-- and returns each job's run lease. Rewritten from the installed text, as step 14 did; the step fails unless each
-- slot's statement is found exactly once.
DO $claim_runs$
DECLARE
    v_slot int;
    v_old text;
    v_new text;
    v_definition text := pg_get_functiondef('{{schema}}.claim_jobs_v2(text, int, text, bigint)'::regprocedure);
BEGIN
    FOR v_slot IN SELECT slot FROM {{schema}}.queue_ring_slots ORDER BY slot LOOP
        v_old := replace($old$
                ), taken AS MATERIALIZED (
                    SELECT r.lane_seq, r.job_id, r.kind, r.args, r.attempt, r.max_attempts, r.timeout_ms,
                        nextval('receipt_id_seq') AS run_lease,
                        clock_timestamp() + coalesce(r.timeout_ms, p_default_timeout_ms) * interval '1 millisecond'
                            AS deadline_at
                    FROM run r WHERE NOT r.tombstoned
                ), lease AS (
                    INSERT INTO leases (lease_slot, job_id, run_lease, lease_generation, ready_slot,
                        ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq, attempt,
                        max_attempts, worker_id, heartbeat_at, deadline_at, kind)
                    SELECT v_lease_slot, t.job_id, t.run_lease, v_lease_gen, @k@, v_generation, v_claim_slot, NULL,
                        p_queue, v_lane.priority, v_lane.enqueue_shard, t.lane_seq, t.attempt, t.max_attempts,
                        p_worker, clock_timestamp(), t.deadline_at, t.kind
                    FROM taken t
                )
                SELECT t.job_id, t.run_lease, t.kind, t.args::text, v_lane.priority, t.attempt, t.max_attempts,
                    t.timeout_ms, @k@, v_generation, v_lease_slot, v_claim_slot, v_lane.enqueue_shard, t.lane_seq,
                    t.deadline_at
                FROM taken t ORDER BY t.lane_seq;$old$, '@k@', v_slot::text);
        v_new := replace($new$
                ), taken AS MATERIALIZED (
                    SELECT r.lane_seq, r.job_id, r.kind, r.args, r.attempt, r.max_attempts, r.timeout_ms,
                        (row_number() OVER (ORDER BY r.lane_seq) - 1)::int AS i,
                        clock_timestamp() + coalesce(r.timeout_ms, p_default_timeout_ms) * interval '1 millisecond'
                            AS deadline_at
                    FROM run r WHERE NOT r.tombstoned
                ), lease AS MATERIALIZED (
                    -- One row for the run's live jobs, none for a run without one.
                    INSERT INTO lease_runs (lease_slot, run_id, ready_slot, ready_generation, queue, priority,
                        enqueue_shard, worker_id, heartbeat_at, job_ids, lane_seqs, attempts, max_attempts, kinds,
                        deadlines)
                    SELECT v_lease_slot, nextval('receipt_id_seq'), @k@, v_generation, p_queue, v_lane.priority,
                        v_lane.enqueue_shard, p_worker, clock_timestamp(), array_agg(t.job_id ORDER BY t.i),
                        array_agg(t.lane_seq ORDER BY t.i), array_agg(t.attempt ORDER BY t.i),
                        array_agg(t.max_attempts ORDER BY t.i), array_agg(t.kind ORDER BY t.i),
                        array_agg(t.deadline_at ORDER BY t.i)
                    FROM taken t HAVING count(*) > 0
                    RETURNING run_id
                ), tally AS (
                    INSERT INTO lease_tallies AS y (lease_slot, ready_slot, queue, backend, live, runs,
                        min_deadline)
                    SELECT v_lease_slot, @k@, p_queue, pg_backend_pid(), count(*), 1, min(t.deadline_at)
                    FROM taken t HAVING count(*) > 0
                    ON CONFLICT (lease_slot, ready_slot, queue, backend) DO UPDATE
                    SET live = y.live + excluded.live, runs = y.runs + 1,
                        min_deadline = least(y.min_deadline, excluded.min_deadline)
                )
                SELECT t.job_id, -(l.run_id * 1024 + t.i), t.kind, t.args::text, v_lane.priority, t.attempt,
                    t.max_attempts, t.timeout_ms, @k@, v_generation, v_lease_slot, v_claim_slot,
                    v_lane.enqueue_shard, t.lane_seq, t.deadline_at
                FROM taken t CROSS JOIN lease l ORDER BY t.lane_seq;$new$, '@k@', v_slot::text);
        IF array_length(string_to_array(v_definition, v_old), 1) <> 2 THEN
            RAISE EXCEPTION 'schema step 18: the run statement of queue slot % was not found exactly once', v_slot;
        END IF;
        v_definition := replace(v_definition, v_old, v_new);
    END LOOP;
    -- A run lease gives a job's place in its run 10 bits: refuse a batch that could outgrow them.
    v_old := $old$
BEGIN
    SELECT r.slot, r.generation INTO v_lease_slot, v_lease_gen$old$;
    v_new := $new$
BEGIN
    IF p_max > 1000 THEN
        RAISE EXCEPTION 'claim_jobs_v2 takes at most 1000 jobs, was %', p_max USING ERRCODE = '22023';
    END IF;
    SELECT r.slot, r.generation INTO v_lease_slot, v_lease_gen$new$;
    IF array_length(string_to_array(v_definition, v_old), 1) <> 2 THEN
        RAISE EXCEPTION 'schema step 18: the start of claim_jobs_v2 was not found exactly once';
    END IF;
    v_definition := replace(v_definition, v_old, v_new);
    EXECUTE v_definition;
END
$claim_runs$;

-- Completions in one lease slot: the attempts of runs (negative run leases) under their runs' locks, then, as in
-- step 12, those of leases claimed before this step.
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
    v_leased int[];
BEGIN
    -- The runs' locks, in key order; the next statement's snapshot sees every ending committed before they were
    -- granted.
    PERFORM pg_advisory_xact_lock(k.key)
    FROM (SELECT DISTINCT run_key((-x.run_lease) >> 10) AS key
          FROM unnest(p_lease_slots, p_run_leases) AS x (lease_slot, run_lease)
          WHERE x.lease_slot = @k@ AND x.run_lease < 0 ORDER BY 1) k;
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
    -- A plain expression, not a query: the batches of this step hold no lease, and skip the statement below.
    IF NOT 0 < ANY (p_run_leases) THEN
        RETURN coalesce(v_completed, '{}');
    END IF;
    -- Step 12's statement, for leases.
    WITH a AS (
        SELECT x.ord::int AS ord, x.job_id, x.run_lease
        FROM unnest(p_lease_slots, p_job_ids, p_run_leases) WITH ORDINALITY AS x (lease_slot, job_id, run_lease, ord)
        WHERE x.lease_slot = @k@ AND x.run_lease > 0
    ), found AS MATERIALIZED (
        SELECT l.ctid AS row_id
        FROM (SELECT DISTINCT a.job_id, a.run_lease FROM a) a
        CROSS JOIN LATERAL (
            SELECT l.ctid FROM leases_@k@ l
            WHERE l.lease_slot = @k@ AND l.job_id = a.job_id AND l.run_lease = a.run_lease AND l.kind IS NOT NULL
              AND l.receipt_id IS NULL
            OFFSET 0) l
    ), gone AS (
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
    SELECT array_agg(f.ord) INTO v_leased
    FROM (SELECT min(a.ord) AS ord FROM a JOIN gone g ON g.job_id = a.job_id AND g.run_lease = a.run_lease
          GROUP BY a.job_id, a.run_lease) f;
    RETURN coalesce(v_completed, '{}') || coalesce(v_leased, '{}');
END
$fn$
$template$, '@k@', v_slot::text);
    END LOOP;
END
$per_slot$;

-- Ends an attempt, as in step 7. An attempt of a run is taken under its run's lock (a try-lock for rescue, which
-- counts a busy run as not rescued) when it is still open, recorded in the run's ended list and untallied; a lease
-- is deleted as before.
CREATE OR REPLACE FUNCTION {{schema}}.end_attempt(p_lease_slot int, p_job_id bigint, p_run_lease bigint,
    p_outcome text, p_error text, p_base_ms double precision, p_factor double precision, p_max_ms double precision,
    p_jitter double precision, p_dead_letter boolean)
RETURNS text
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_lease record;
    v_job record;
    v_n int;
    v_closure text;
    v_delay double precision;
    v_exp double precision;
    v_run_id bigint := (-p_run_lease) >> 10;
    v_i int := ((-p_run_lease) & 1023)::int;
BEGIN
    IF p_run_lease < 0 THEN
        IF p_outcome = 'rescued' THEN
            IF NOT pg_try_advisory_xact_lock(run_key(v_run_id)) THEN
                RETURN 'lost';
            END IF;
        ELSE
            PERFORM pg_advisory_xact_lock(run_key(v_run_id));
        END IF;
        EXECUTE format('SELECT r.lease_slot, $2 AS job_id, $3 AS run_lease, r.ready_slot, r.ready_generation,'
            || ' r.queue, r.priority, r.enqueue_shard, r.lane_seqs[$4 + 1] AS lane_seq, r.attempts[$4 + 1] AS attempt,'
            || ' r.max_attempts[$4 + 1] AS max_attempts, r.kinds[$4 + 1] AS kind, NULL::bigint AS receipt_id,'
            || ' NULL::int AS claim_slot FROM %I.%I r WHERE r.lease_slot = $1 AND r.run_id = $5'
            || ' AND r.job_ids[$4 + 1] = $2 AND $4 <> ALL (r.ended)', {{schema_name}}, 'lease_runs_' || p_lease_slot)
        INTO v_lease USING p_lease_slot, p_job_id, p_run_lease, v_i, v_run_id;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_n = 0 THEN
            RETURN 'lost';
        END IF;
        -- Completed already: its done row, in the named child of its ready slot.
        EXECUTE format('SELECT 1 FROM %I.%I WHERE ready_slot = $1 AND job_id = $2 AND run_lease = $3',
            {{schema_name}}, 'done_entries_' || v_lease.ready_slot)
        USING v_lease.ready_slot, p_job_id, p_run_lease;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_n > 0 THEN
            RETURN 'lost';
        END IF;
        EXECUTE format('UPDATE %I.%I SET ended = ended || $3 WHERE lease_slot = $1 AND run_id = $2',
            {{schema_name}}, 'lease_runs_' || p_lease_slot)
        USING p_lease_slot, v_run_id, v_i;
        INSERT INTO lease_tallies AS y (lease_slot, ready_slot, queue, backend, live)
        VALUES (p_lease_slot, v_lease.ready_slot, v_lease.queue, pg_backend_pid(), -1)
        ON CONFLICT (lease_slot, ready_slot, queue, backend) DO UPDATE SET live = y.live + excluded.live;
    ELSE
        EXECUTE format('DELETE FROM %I.%I WHERE lease_slot = $1 AND job_id = $2 AND run_lease = $3'
            || ' RETURNING *', {{schema_name}}, 'leases_' || p_lease_slot)
        INTO v_lease USING p_lease_slot, p_job_id, p_run_lease;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_n = 0 THEN
            RETURN 'lost';
        END IF;
    END IF;
    -- The ready row outlives the attempt: queue prune keeps a slot while an attempt points at it.
    EXECUTE format('SELECT kind, args, timeout_ms FROM %I.%I WHERE ready_slot = $1 AND queue = $2'
        || ' AND priority = $3 AND enqueue_shard = $4 AND lane_seq = $5',
        {{schema_name}}, 'ready_entries_' || v_lease.ready_slot)
    INTO v_job USING v_lease.ready_slot, v_lease.queue, v_lease.priority, v_lease.enqueue_shard,
        v_lease.lane_seq;
    IF p_outcome = 'completed' THEN
        v_closure := 'completed';
    ELSIF p_outcome = 'released' THEN
        v_closure := 'released';
    ELSIF p_outcome = 'rescued' THEN
        v_closure := 'rescued';
    ELSIF v_lease.attempt < v_lease.max_attempts THEN
        v_closure := 'retried';
    ELSE
        v_closure := 'failed';
    END IF;
    -- Only an attempt claimed before step 7 has a receipt to close.
    IF v_lease.receipt_id IS NOT NULL THEN
        INSERT INTO lease_claim_closures (claim_slot, receipt_id, job_id, run_lease, ready_slot,
            ready_generation, outcome)
        VALUES (v_lease.claim_slot, v_lease.receipt_id, v_lease.job_id, v_lease.run_lease,
            v_lease.ready_slot, v_lease.ready_generation, v_closure);
    END IF;
    IF p_outcome = 'released' THEN
        PERFORM enqueue_lane(v_lease.queue, v_lease.priority, v_lease.enqueue_shard,
            ARRAY[v_lease.job_id], ARRAY[v_job.kind], ARRAY[v_job.args], ARRAY[v_lease.attempt],
            ARRAY[v_lease.max_attempts], ARRAY[coalesce(v_job.timeout_ms, 0)]);
        RETURN 'released';
    END IF;
    IF p_outcome <> 'completed' AND v_lease.attempt < v_lease.max_attempts THEN
        IF p_base_ms <= 0 THEN
            v_delay := 0;
        ELSE
            v_exp := (v_lease.attempt - 1) * ln(p_factor);
            v_delay := CASE WHEN v_exp >= ln(p_max_ms / p_base_ms) THEN p_max_ms
                            ELSE p_base_ms * exp(v_exp) END * p_jitter;
        END IF;
        IF v_delay <= 0 THEN
            PERFORM enqueue_lane(v_lease.queue, v_lease.priority, v_lease.enqueue_shard,
                ARRAY[v_lease.job_id], ARRAY[v_job.kind], ARRAY[v_job.args], ARRAY[v_lease.attempt + 1],
                ARRAY[v_lease.max_attempts], ARRAY[coalesce(v_job.timeout_ms, 0)]);
        ELSE
            INSERT INTO deferred_jobs (job_id, queue, priority, enqueue_shard, kind, args, attempt,
                max_attempts, timeout_ms, run_at, last_error)
            VALUES (v_lease.job_id, v_lease.queue, v_lease.priority, v_lease.enqueue_shard, v_job.kind,
                v_job.args, v_lease.attempt + 1, v_lease.max_attempts, v_job.timeout_ms,
                clock_timestamp() + v_delay * interval '1 millisecond', p_error);
        END IF;
        RETURN 'retried';
    END IF;
    INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind,
        state, attempt, error)
    VALUES (v_lease.ready_slot, v_lease.job_id, v_lease.run_lease, v_lease.ready_generation,
        v_lease.queue, v_lease.priority, v_job.kind,
        CASE WHEN p_outcome = 'completed' THEN 'completed' ELSE 'failed' END, v_lease.attempt,
        CASE WHEN p_outcome = 'completed' THEN NULL ELSE p_error END);
    INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
    VALUES (v_lease.ready_slot, v_lease.ready_generation, v_lease.queue, v_lease.priority,
        CASE WHEN p_outcome = 'completed' THEN 'completed' ELSE 'failed' END, 1);
    IF p_outcome = 'completed' THEN
        RETURN 'completed';
    END IF;
    IF p_dead_letter THEN
        INSERT INTO dead_letter_jobs (job_id, queue, priority, enqueue_shard, kind, args, attempts,
            max_attempts, timeout_ms, last_error)
        VALUES (v_lease.job_id, v_lease.queue, v_lease.priority, v_lease.enqueue_shard, v_job.kind,
            v_job.args, v_lease.attempt, v_lease.max_attempts, v_job.timeout_ms, p_error);
    END IF;
    RETURN 'failed';
END
$fn$;

-- rescue_attempt: ends one stale attempt as 'rescued' (retry, or terminal failure on its last attempt) and returns 1,
-- or 0 when it was no longer live. Used only by rescue_jobs.
CREATE FUNCTION {{schema}}.rescue_attempt(p_lease_slot int, p_job_id bigint, p_run_lease bigint, p_expired boolean,
    p_base_ms double precision, p_factor double precision, p_max_ms double precision, p_jitter double precision,
    p_dead_letter boolean)
RETURNS int
LANGUAGE sql SET search_path = {{schema}}, pg_temp AS $fn$
    SELECT CASE WHEN end_attempt(p_lease_slot, p_job_id, p_run_lease, 'rescued',
            CASE WHEN p_expired THEN 'rescued: deadline passed' ELSE 'rescued: heartbeat stale' END,
            p_base_ms, p_factor, p_max_ms, 1 + p_jitter * (2 * random() - 1), p_dead_letter) = 'lost'
        THEN 0 ELSE 1 END
$fn$;

-- Rescue, as in step 15, over the runs of each chosen lease slot too: an open attempt of a run whose heartbeat is
-- older than p_stale_ms, or whose own deadline passed, is ended as 'rescued'.
CREATE OR REPLACE FUNCTION {{schema}}.rescue_jobs(p_max int, p_stale_ms bigint, p_base_ms double precision,
    p_factor double precision, p_max_ms double precision, p_jitter double precision,
    p_dead_letter boolean)
RETURNS int
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_stale_before timestamptz := clock_timestamp() - p_stale_ms * interval '1 millisecond';
    v_slot int;
    v_ready int;
    v record;
    v_taken int := 0;
    v_count int := 0;
BEGIN
    FOR v_slot IN
        SELECT t.lease_slot
        FROM (SELECT lease_slot, sum(live) AS live, min(min_deadline) AS min_deadline
              FROM lease_tallies GROUP BY lease_slot) t
        LEFT JOIN LATERAL (
            SELECT r.generation, r.rotated_at FROM lease_ring_rotations r
            WHERE r.slot = t.lease_slot ORDER BY r.generation DESC LIMIT 1) opened ON true
        WHERE t.live > 0
          AND (opened.rotated_at IS NULL OR opened.rotated_at < v_stale_before
               OR t.min_deadline < clock_timestamp())
        ORDER BY opened.generation NULLS FIRST
    LOOP
        -- The slot's stale leases (locked, skipping those a writer holds), then the open attempts of its runs, per
        -- ready slot they point at, whose done child is named (end_attempt takes each run's lock and checks again).
        FOR v IN EXECUTE format('SELECT l.job_id, l.run_lease, (l.deadline_at < clock_timestamp()) AS expired'
                || ' FROM %I l WHERE l.heartbeat_at < $1 OR l.deadline_at < clock_timestamp()'
                || ' LIMIT $2 FOR UPDATE SKIP LOCKED', 'leases_' || v_slot)
            USING v_stale_before, p_max - v_taken
        LOOP
            v_taken := v_taken + 1;
            v_count := v_count + rescue_attempt(v_slot, v.job_id, v.run_lease, v.expired, p_base_ms, p_factor,
                p_max_ms, p_jitter, p_dead_letter);
        END LOOP;
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
        EXIT WHEN v_taken >= p_max;
    END LOOP;
    RETURN v_count;
END
$fn$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (18, 'claim runs as leases', {{checksum:18}});
