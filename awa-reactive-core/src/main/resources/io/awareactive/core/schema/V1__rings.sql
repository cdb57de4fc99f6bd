-- awa-reactive schema, step 1: rings.
--
-- The schema of release 0.1.0. Placeholders in double braces are filled by the library's renderer
-- (QueueStorage.migrationScripts()): schema, the quoted schema name; schema_name and notify_channel, the schema
-- name and the LISTEN/NOTIFY channel as string literals; queue_slot_count, lease_slot_count and claim_slot_count,
-- the slots per ring, fixed here for good.
-- A step is never edited once released (its checksum is recorded); later changes are new steps.

CREATE SCHEMA IF NOT EXISTS {{schema}};

-- One row per applied step. Release 0.1.0 recorded the version only; step 2 adds the checksum.
CREATE TABLE {{schema}}.awa_reactive_schema_version (
    version int PRIMARY KEY,
    installed_at timestamptz NOT NULL DEFAULT now());

-- ---------------------------------------------------------------------------------------------------------------
-- Rings. Each ring has a state row (its slot count), a rotation ledger whose newest row is the cursor
-- (generation, current slot), one row per slot (locked by prune), and families: list-partitioned parents with one
-- child per slot, <family>_<slot>. The partition key leads every primary key.
-- ---------------------------------------------------------------------------------------------------------------

-- The queue ring: ready rows, their segments, claim ranges, tombstones, done rows and terminal-count deltas.
CREATE TABLE {{schema}}.queue_ring_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    slot_count int NOT NULL);
INSERT INTO {{schema}}.queue_ring_state (slot_count) VALUES ({{queue_slot_count}});
CREATE TABLE {{schema}}.queue_ring_rotations (
    generation bigint PRIMARY KEY,
    slot int NOT NULL,
    rotated_at timestamptz NOT NULL DEFAULT now());
INSERT INTO {{schema}}.queue_ring_rotations (generation, slot) VALUES (0, 0);
CREATE TABLE {{schema}}.queue_ring_slots (slot int PRIMARY KEY);
INSERT INTO {{schema}}.queue_ring_slots (slot) SELECT generate_series(0, {{queue_slot_count}} - 1);

CREATE TABLE {{schema}}.ready_entries (
    ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
    enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, ready_generation bigint NOT NULL,
    job_id bigint NOT NULL, kind text NOT NULL, args jsonb NOT NULL, attempt int NOT NULL,
    max_attempts int NOT NULL, timeout_ms bigint, enqueued_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, lane_seq)) PARTITION BY LIST (ready_slot);
CREATE INDEX ready_entries_job_id_idx ON {{schema}}.ready_entries (job_id);

-- One segment per enqueue batch: [first_lane_seq, next_lane_seq) of one lane in one slot.
CREATE TABLE {{schema}}.ready_segments (
    ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
    enqueue_shard int NOT NULL, first_lane_seq bigint NOT NULL, next_lane_seq bigint NOT NULL,
    ready_generation bigint NOT NULL,
    PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, first_lane_seq)) PARTITION BY LIST (ready_slot);

-- One range per claim and lane: [first_lane_seq, next_lane_seq) is spent.
CREATE TABLE {{schema}}.ready_claim_ranges (
    ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
    enqueue_shard int NOT NULL, first_lane_seq bigint NOT NULL, next_lane_seq bigint NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, first_lane_seq)) PARTITION BY LIST (ready_slot);

-- A cancelled or moved ready row: claimers spend it without running it.
CREATE TABLE {{schema}}.ready_tombstones (
    ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
    enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, job_id bigint NOT NULL,
    PRIMARY KEY (ready_slot, queue, priority, enqueue_shard, lane_seq)) PARTITION BY LIST (ready_slot);

-- One row per finished job (completed, failed, cancelled), in the slot of its ready row.
CREATE TABLE {{schema}}.done_entries (
    ready_slot int NOT NULL, job_id bigint NOT NULL, run_lease bigint NOT NULL,
    ready_generation bigint NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
    kind text NOT NULL, state text NOT NULL, attempt int NOT NULL,
    finalized_at timestamptz NOT NULL DEFAULT now(), error text,
    PRIMARY KEY (ready_slot, job_id, run_lease)) PARTITION BY LIST (ready_slot);
CREATE INDEX done_entries_job_id_idx ON {{schema}}.done_entries (job_id);

CREATE TABLE {{schema}}.queue_terminal_count_deltas (
    ready_slot int NOT NULL, ready_generation bigint NOT NULL, queue text NOT NULL,
    priority smallint NOT NULL, state text NOT NULL, delta int NOT NULL) PARTITION BY LIST (ready_slot);

-- The lease ring: one lease per running attempt, updated in place by heartbeats.
CREATE TABLE {{schema}}.lease_ring_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    slot_count int NOT NULL);
INSERT INTO {{schema}}.lease_ring_state (slot_count) VALUES ({{lease_slot_count}});
CREATE TABLE {{schema}}.lease_ring_rotations (
    generation bigint PRIMARY KEY,
    slot int NOT NULL,
    rotated_at timestamptz NOT NULL DEFAULT now());
INSERT INTO {{schema}}.lease_ring_rotations (generation, slot) VALUES (0, 0);
CREATE TABLE {{schema}}.lease_ring_slots (slot int PRIMARY KEY);
INSERT INTO {{schema}}.lease_ring_slots (slot) SELECT generate_series(0, {{lease_slot_count}} - 1);

CREATE TABLE {{schema}}.leases (
    lease_slot int NOT NULL, job_id bigint NOT NULL, run_lease bigint NOT NULL,
    lease_generation bigint NOT NULL, ready_slot int NOT NULL, ready_generation bigint NOT NULL,
    claim_slot int NOT NULL, receipt_id bigint NOT NULL, queue text NOT NULL, priority smallint NOT NULL,
    enqueue_shard int NOT NULL, lane_seq bigint NOT NULL, attempt int NOT NULL,
    max_attempts int NOT NULL, worker_id text NOT NULL, heartbeat_at timestamptz NOT NULL,
    deadline_at timestamptz,
    PRIMARY KEY (lease_slot, job_id, run_lease)) PARTITION BY LIST (lease_slot);
CREATE INDEX leases_ready_slot_idx ON {{schema}}.leases (ready_slot);

-- The claim ring: one receipt per claimed attempt and one closure when it ends.
CREATE TABLE {{schema}}.claim_ring_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    slot_count int NOT NULL);
INSERT INTO {{schema}}.claim_ring_state (slot_count) VALUES ({{claim_slot_count}});
CREATE TABLE {{schema}}.claim_ring_rotations (
    generation bigint PRIMARY KEY,
    slot int NOT NULL,
    rotated_at timestamptz NOT NULL DEFAULT now());
INSERT INTO {{schema}}.claim_ring_rotations (generation, slot) VALUES (0, 0);
CREATE TABLE {{schema}}.claim_ring_slots (slot int PRIMARY KEY);
INSERT INTO {{schema}}.claim_ring_slots (slot) SELECT generate_series(0, {{claim_slot_count}} - 1);

CREATE TABLE {{schema}}.lease_claims (
    claim_slot int NOT NULL, receipt_id bigint NOT NULL, claim_generation bigint NOT NULL,
    job_id bigint NOT NULL, run_lease bigint NOT NULL, ready_slot int NOT NULL,
    ready_generation bigint NOT NULL, lease_slot int NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (claim_slot, receipt_id)) PARTITION BY LIST (claim_slot);
CREATE INDEX lease_claims_ready_slot_idx ON {{schema}}.lease_claims (ready_slot);

CREATE TABLE {{schema}}.lease_claim_closures (
    claim_slot int NOT NULL, receipt_id bigint NOT NULL, job_id bigint NOT NULL,
    run_lease bigint NOT NULL, ready_slot int NOT NULL, ready_generation bigint NOT NULL,
    outcome text NOT NULL, closed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (claim_slot, receipt_id)) PARTITION BY LIST (claim_slot);
CREATE INDEX lease_claim_closures_ready_slot_idx ON {{schema}}.lease_claim_closures (ready_slot);

-- One child per row of the ring's slot table, for every family; the lease is the one row updated in place, so
-- its children leave room for HOT heartbeat updates.
DO $children$
DECLARE
    v record;
BEGIN
    FOR v IN
        SELECT f.family, f.options, k.slot
        FROM (VALUES ('ready_entries', 'queue', ''), ('ready_segments', 'queue', ''),
                     ('ready_claim_ranges', 'queue', ''), ('ready_tombstones', 'queue', ''),
                     ('done_entries', 'queue', ''), ('queue_terminal_count_deltas', 'queue', ''),
                     ('leases', 'lease', ' WITH (fillfactor = 70)'),
                     ('lease_claims', 'claim', ''), ('lease_claim_closures', 'claim', '')) AS f (family, ring, options)
        JOIN (SELECT 'queue' AS ring, slot FROM {{schema}}.queue_ring_slots
              UNION ALL SELECT 'lease', slot FROM {{schema}}.lease_ring_slots
              UNION ALL SELECT 'claim', slot FROM {{schema}}.claim_ring_slots) AS k USING (ring)
        ORDER BY f.family, k.slot
    LOOP
        EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES IN (%s)%s', {{schema_name}},
            v.family || '_' || v.slot, {{schema_name}}, v.family, v.slot, v.options);
    END LOOP;
END
$children$;

-- ---------------------------------------------------------------------------------------------------------------
-- Lanes, sequences and warm tables (not rings).
-- ---------------------------------------------------------------------------------------------------------------

CREATE TABLE {{schema}}.queue_meta (
    queue text PRIMARY KEY,
    enqueue_shards int NOT NULL DEFAULT 1 CHECK (enqueue_shards BETWEEN 1 AND 64));

-- A lane is (queue, priority, shard) with its own enqueue and claim sequences; lanes are never dropped.
CREATE TABLE {{schema}}.queue_lanes (
    queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL,
    enqueue_seq regclass NOT NULL, claim_seq regclass NOT NULL,
    PRIMARY KEY (queue, priority, enqueue_shard));

-- Claimers lock a lane's head FOR UPDATE SKIP LOCKED while they claim from it.
CREATE TABLE {{schema}}.queue_claim_heads (
    queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL,
    PRIMARY KEY (queue, priority, enqueue_shard));

CREATE SEQUENCE {{schema}}.job_id_seq;
CREATE SEQUENCE {{schema}}.receipt_id_seq;

-- Scheduled jobs and retries with a delay, until promotion moves them into the queue ring.
CREATE TABLE {{schema}}.deferred_jobs (
    job_id bigint PRIMARY KEY, queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL,
    kind text NOT NULL, args jsonb NOT NULL, attempt int NOT NULL, max_attempts int NOT NULL, timeout_ms bigint,
    run_at timestamptz NOT NULL, last_error text, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX deferred_jobs_run_at_idx ON {{schema}}.deferred_jobs (run_at);
CREATE INDEX deferred_jobs_queue_idx ON {{schema}}.deferred_jobs (queue);

-- Terminal counts: folded per live slot, handed off to rollup deltas when a slot is pruned, then rolled up.
CREATE TABLE {{schema}}.queue_terminal_live_counts (
    ready_slot int NOT NULL, queue text NOT NULL, priority smallint NOT NULL, state text NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (ready_slot, queue, priority, state));
CREATE TABLE {{schema}}.queue_terminal_rollup_deltas (
    queue text NOT NULL, priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL);
CREATE TABLE {{schema}}.queue_terminal_rollups (
    queue text NOT NULL, priority smallint NOT NULL, state text NOT NULL, count bigint NOT NULL,
    PRIMARY KEY (queue, priority, state));

-- Terminal failures outlive the ring window here. The lane's shard, max attempts and timeout let a retry
-- re-enqueue the job faithfully into a lane that still exists (lanes are never dropped).
CREATE TABLE {{schema}}.dead_letter_jobs (
    job_id bigint PRIMARY KEY, queue text NOT NULL, priority smallint NOT NULL, enqueue_shard int NOT NULL,
    kind text NOT NULL, args jsonb NOT NULL, attempts int NOT NULL, max_attempts int NOT NULL, timeout_ms bigint,
    last_error text, failed_at timestamptz NOT NULL DEFAULT now());
-- Keyset pages per queue, newest first: (failed_at, job_id) is the page key.
CREATE INDEX dead_letter_jobs_queue_failed_at_idx ON {{schema}}.dead_letter_jobs (queue, failed_at, job_id);
-- The retention purge takes the oldest rows of every queue.
CREATE INDEX dead_letter_jobs_failed_at_idx ON {{schema}}.dead_letter_jobs (failed_at);

-- ---------------------------------------------------------------------------------------------------------------
-- Functions: each lifecycle step is one round trip. Slot-directed statements name ring children (never
-- "parent WHERE slot = k"), so a statement's lock footprint is that child; inserts go through the parents (tuple
-- routing locks only the receiving child).
-- ---------------------------------------------------------------------------------------------------------------

-- create_lane(queue, priority, shard): creates a lane's row, claim head and two sequences (MINVALUE 0
-- START WITH 0 CACHE 1, then setval(seq, 0, true) so pg_sequence_last_value is 0, never NULL). SECURITY DEFINER, so
-- an application role needs no DDL right. A lane is never reset: only the caller whose lane-row insert wins
-- initialises the sequences.
CREATE FUNCTION {{schema}}.create_lane(p_queue text, p_priority smallint, p_shard int) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_hash text := md5(p_queue || ':' || p_priority || ':' || p_shard);
    v_enqueue_seq text := format('%I.%I', {{schema_name}}, 'queue_enqueue_seq_' || v_hash);
    v_claim_seq text := format('%I.%I', {{schema_name}}, 'queue_claim_seq_' || v_hash);
    v_won int;
BEGIN
    -- Two creators of one lane serialise here; the loser finds the lane row and returns.
    PERFORM pg_advisory_xact_lock(hashtextextended('awa-reactive.create-lane:' || {{schema_name}} || ':'
        || v_hash, 0));
    IF EXISTS (SELECT 1 FROM queue_lanes
               WHERE queue = p_queue AND priority = p_priority AND enqueue_shard = p_shard) THEN
        RETURN;
    END IF;
    EXECUTE 'CREATE SEQUENCE IF NOT EXISTS ' || v_enqueue_seq || ' MINVALUE 0 START WITH 0 CACHE 1';
    EXECUTE 'CREATE SEQUENCE IF NOT EXISTS ' || v_claim_seq || ' MINVALUE 0 START WITH 0 CACHE 1';
    INSERT INTO queue_meta (queue) VALUES (p_queue) ON CONFLICT DO NOTHING;
    INSERT INTO queue_lanes (queue, priority, enqueue_shard, enqueue_seq, claim_seq)
    VALUES (p_queue, p_priority, p_shard, v_enqueue_seq::regclass, v_claim_seq::regclass)
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_won = ROW_COUNT;
    IF v_won = 1 THEN
        PERFORM setval(v_enqueue_seq::regclass, 0, true);
        PERFORM setval(v_claim_seq::regclass, 0, true);
        INSERT INTO queue_claim_heads (queue, priority, enqueue_shard)
        VALUES (p_queue, p_priority, p_shard) ON CONFLICT DO NOTHING;
    END IF;
END
$fn$;

-- Claimers look for a lane's first segment past its cursor: an index on the lane and segment end.
CREATE INDEX ready_segments_lane_next_idx ON {{schema}}.ready_segments (queue, priority, enqueue_shard, next_lane_seq);

CREATE INDEX leases_job_id_idx ON {{schema}}.leases (job_id);

CREATE INDEX leases_queue_idx ON {{schema}}.leases (queue);

CREATE INDEX ready_tombstones_job_id_idx ON {{schema}}.ready_tombstones (job_id);

-- The advisory-lock key of a lane; producers hold it from reserving lane_seq until commit.
CREATE FUNCTION {{schema}}.lane_key(p_queue text, p_priority smallint, p_shard int) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtextextended('awa-reactive.lane:' || {{schema_name}} || ':' || p_queue || ':' || p_priority || ':'
        || p_shard, 0)
$fn$;

-- Immediate enqueue of a batch into one lane: lane lock (held to commit, so commit order equals lane_seq
-- order), then one INSERT statement that reserves lane_seqs, reads the queue cursor from the ledger and writes the
-- ready rows plus one segment into the current slot. Job ids come from job_id_seq unless given (promotion, retry,
-- release). A timeout of 0 means none. Notifies workers (PostgreSQL delivers identical notifications of one
-- transaction once: at most one NOTIFY per transaction and queue).
CREATE FUNCTION {{schema}}.enqueue_lane(p_queue text, p_priority smallint, p_shard int, p_job_ids bigint[],
    p_kinds text[], p_args jsonb[], p_attempts int[], p_max_attempts int[], p_timeouts bigint[])
RETURNS TABLE (o_ord int, o_job_id bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_seq regclass;
    v_n int := cardinality(p_kinds);
BEGIN
    PERFORM pg_advisory_xact_lock(lane_key(p_queue, p_priority, p_shard));
    SELECT l.enqueue_seq INTO v_seq FROM queue_lanes l
    WHERE l.queue = p_queue AND l.priority = p_priority AND l.enqueue_shard = p_shard;
    IF v_seq IS NULL THEN
        RAISE EXCEPTION 'lane (%, %, %) does not exist', p_queue, p_priority, p_shard
            USING ERRCODE = 'P0002';
    END IF;
    RETURN QUERY
    WITH cur AS (
        SELECT r.generation, r.slot FROM queue_ring_rotations r ORDER BY r.generation DESC LIMIT 1
    ), seqs AS (
        SELECT s.lane_seq, row_number() OVER (ORDER BY s.lane_seq)::int AS ord
        FROM (SELECT nextval(v_seq) AS lane_seq FROM generate_series(1, v_n)) s
    ), jobs AS (
        SELECT s.ord, s.lane_seq, coalesce(p_job_ids[s.ord], nextval('job_id_seq')) AS job_id FROM seqs s
    ), ins AS (
        INSERT INTO ready_entries (ready_slot, queue, priority, enqueue_shard, lane_seq, ready_generation,
            job_id, kind, args, attempt, max_attempts, timeout_ms)
        SELECT cur.slot, p_queue, p_priority, p_shard, j.lane_seq, cur.generation, j.job_id,
            p_kinds[j.ord], p_args[j.ord], p_attempts[j.ord], p_max_attempts[j.ord],
            nullif(p_timeouts[j.ord], 0)
        FROM jobs j CROSS JOIN cur
    ), seg AS (
        INSERT INTO ready_segments (ready_slot, queue, priority, enqueue_shard, first_lane_seq,
            next_lane_seq, ready_generation)
        SELECT cur.slot, p_queue, p_priority, p_shard, min(j.lane_seq), max(j.lane_seq) + 1, cur.generation
        FROM jobs j CROSS JOIN cur GROUP BY cur.slot, cur.generation
    )
    SELECT j.ord, j.job_id FROM jobs j ORDER BY j.ord;
    PERFORM pg_notify({{notify_channel}}, p_queue);
END
$fn$;

-- One claim batch. Lanes in priority order; a lane's claim head is locked FOR UPDATE SKIP LOCKED, so
-- concurrent claimers take other lanes. The cursor is the claim sequence's last value + 1; committed claim ranges
-- covering it (an after-commit advance that failed) are skipped and the cursor repaired forward. Rows from the lane's
-- slot at or past the cursor are taken in lane_seq order; tombstoned rows are spent, not leased. One range row per
-- lane, a lease (current lease slot) and a receipt (current claim slot) per job, run_lease = receipt_id. After each
-- lane's jobs, a marker row (o_job_id NULL) carries the range end for the after-commit cursor advance.
CREATE FUNCTION {{schema}}.claim_jobs(p_queue text, p_max int, p_worker text, p_default_timeout_ms bigint)
RETURNS TABLE (o_job_id bigint, o_run_lease bigint, o_kind text, o_args text, o_priority smallint,
    o_attempt int, o_max_attempts int, o_timeout_ms bigint, o_ready_slot int, o_ready_generation bigint,
    o_lease_slot int, o_claim_slot int, o_enqueue_shard int, o_lane_seq bigint,
    o_deadline_at timestamptz, o_range_next bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_lane record;
    v_seg record;
    v_row record;
    v_c bigint;
    v_next bigint;
    v_first bigint;
    v_end bigint;
    v_took int;
    v_left int := p_max;
    v_found boolean;
    v_receipt bigint;
    v_timeout bigint;
    v_deadline timestamptz;
    v_lease_slot int;
    v_lease_gen bigint;
    v_claim_slot int;
    v_claim_gen bigint;
BEGIN
    SELECT r.slot, r.generation INTO v_lease_slot, v_lease_gen
    FROM lease_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    SELECT r.slot, r.generation INTO v_claim_slot, v_claim_gen
    FROM claim_ring_rotations r ORDER BY r.generation DESC LIMIT 1;
    FOR v_lane IN
        SELECT l.priority, l.enqueue_shard, l.claim_seq FROM queue_lanes l
        WHERE l.queue = p_queue AND EXISTS (
            SELECT 1 FROM ready_segments s
            WHERE s.queue = l.queue AND s.priority = l.priority AND s.enqueue_shard = l.enqueue_shard
              AND s.next_lane_seq > pg_sequence_last_value(l.claim_seq) + 1)
        ORDER BY l.priority, random()
    LOOP
        EXIT WHEN v_left <= 0;
        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = p_queue AND h.priority = v_lane.priority AND h.enqueue_shard = v_lane.enqueue_shard
        FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        v_c := pg_sequence_last_value(v_lane.claim_seq) + 1;
        v_found := false;
        LOOP
            SELECT s.ready_slot, s.ready_generation, s.first_lane_seq INTO v_seg FROM ready_segments s
            WHERE s.queue = p_queue AND s.priority = v_lane.priority
              AND s.enqueue_shard = v_lane.enqueue_shard AND s.next_lane_seq > v_c
            ORDER BY s.first_lane_seq LIMIT 1;
            EXIT WHEN NOT FOUND;
            -- Below the segment lie only rolled-back reservations or pruned, fully claimed slots.
            v_c := greatest(v_c, v_seg.first_lane_seq);
            EXECUTE format('SELECT r.next_lane_seq FROM %I.%I r WHERE r.ready_slot = $1 AND r.queue = $2'
                || ' AND r.priority = $3 AND r.enqueue_shard = $4 AND r.first_lane_seq <= $5'
                || ' AND r.next_lane_seq > $5 ORDER BY r.first_lane_seq DESC LIMIT 1',
                {{schema_name}}, 'ready_claim_ranges_' || v_seg.ready_slot)
            INTO v_next USING v_seg.ready_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_c;
            IF v_next IS NULL THEN
                v_found := true;
                EXIT;
            END IF;
            -- An earlier claimer committed this range without advancing: repair forward (safe, the
            -- range is committed) and look again.
            PERFORM setval(v_lane.claim_seq, v_next - 1)
            WHERE pg_sequence_last_value(v_lane.claim_seq) < v_next - 1;
            v_c := v_next;
        END LOOP;
        CONTINUE WHEN NOT v_found;
        v_first := v_c;
        v_end := v_c;
        v_took := 0;
        FOR v_row IN EXECUTE format('SELECT e.lane_seq, e.job_id, e.kind, e.args::text AS args, e.attempt,'
                || ' e.max_attempts, e.timeout_ms, EXISTS (SELECT 1 FROM %I.%I t WHERE t.ready_slot ='
                || ' e.ready_slot AND t.queue = e.queue AND t.priority = e.priority AND t.enqueue_shard ='
                || ' e.enqueue_shard AND t.lane_seq = e.lane_seq) AS dead FROM %I.%I e'
                || ' WHERE e.ready_slot = $1 AND e.queue = $2 AND e.priority = $3'
                || ' AND e.enqueue_shard = $4 AND e.lane_seq >= $5 ORDER BY e.lane_seq',
                {{schema_name}}, 'ready_tombstones_' || v_seg.ready_slot,
                {{schema_name}}, 'ready_entries_' || v_seg.ready_slot)
            USING v_seg.ready_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_c
        LOOP
            EXIT WHEN v_took >= v_left;
            v_end := v_row.lane_seq + 1;
            CONTINUE WHEN v_row.dead;
            v_took := v_took + 1;
            v_receipt := nextval('receipt_id_seq');
            v_timeout := coalesce(v_row.timeout_ms, p_default_timeout_ms);
            v_deadline := CASE WHEN v_timeout IS NULL THEN NULL
                               ELSE clock_timestamp() + v_timeout * interval '1 millisecond' END;
            INSERT INTO leases (lease_slot, job_id, run_lease, lease_generation, ready_slot,
                ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq,
                attempt, max_attempts, worker_id, heartbeat_at, deadline_at)
            VALUES (v_lease_slot, v_row.job_id, v_receipt, v_lease_gen, v_seg.ready_slot,
                v_seg.ready_generation, v_claim_slot, v_receipt, p_queue, v_lane.priority,
                v_lane.enqueue_shard, v_row.lane_seq, v_row.attempt, v_row.max_attempts, p_worker,
                clock_timestamp(), v_deadline);
            INSERT INTO lease_claims (claim_slot, receipt_id, claim_generation, job_id, run_lease,
                ready_slot, ready_generation, lease_slot)
            VALUES (v_claim_slot, v_receipt, v_claim_gen, v_row.job_id, v_receipt, v_seg.ready_slot,
                v_seg.ready_generation, v_lease_slot);
            o_job_id := v_row.job_id; o_run_lease := v_receipt; o_kind := v_row.kind;
            o_args := v_row.args; o_priority := v_lane.priority; o_attempt := v_row.attempt;
            o_max_attempts := v_row.max_attempts; o_timeout_ms := v_row.timeout_ms;
            o_ready_slot := v_seg.ready_slot; o_ready_generation := v_seg.ready_generation;
            o_lease_slot := v_lease_slot; o_claim_slot := v_claim_slot;
            o_enqueue_shard := v_lane.enqueue_shard; o_lane_seq := v_row.lane_seq;
            o_deadline_at := v_deadline; o_range_next := NULL;
            RETURN NEXT;
        END LOOP;
        CONTINUE WHEN v_end <= v_first;
        INSERT INTO ready_claim_ranges (ready_slot, queue, priority, enqueue_shard, first_lane_seq,
            next_lane_seq)
        VALUES (v_seg.ready_slot, p_queue, v_lane.priority, v_lane.enqueue_shard, v_first, v_end);
        v_left := v_left - v_took;
        o_job_id := NULL; o_run_lease := NULL; o_kind := NULL; o_args := NULL;
        o_priority := v_lane.priority; o_attempt := NULL; o_max_attempts := NULL; o_timeout_ms := NULL;
        o_ready_slot := v_seg.ready_slot; o_ready_generation := NULL; o_lease_slot := NULL;
        o_claim_slot := NULL; o_enqueue_shard := v_lane.enqueue_shard; o_lane_seq := NULL;
        o_deadline_at := NULL; o_range_next := v_end;
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- After-commit cursor advance, one statement for all lanes of a claim: under the transaction-local lock
-- timeout p_lock_timeout, each lane's claim head is locked (lanes in one order), then its claim sequence moves
-- forward to next - 1 if it is behind. Never moves a cursor back.
CREATE FUNCTION {{schema}}.advance_claim_cursors(p_queue text, p_priorities smallint[], p_shards int[],
    p_nexts bigint[], p_lock_timeout text)
RETURNS void
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v record;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    FOR v IN
        SELECT u.priority, u.shard, max(u.next) AS next, l.claim_seq
        FROM unnest(p_priorities, p_shards, p_nexts) AS u(priority, shard, next)
        JOIN queue_lanes l ON l.queue = p_queue AND l.priority = u.priority AND l.enqueue_shard = u.shard
        GROUP BY u.priority, u.shard, l.claim_seq ORDER BY u.priority, u.shard
    LOOP
        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = p_queue AND h.priority = v.priority AND h.enqueue_shard = v.shard FOR UPDATE;
        PERFORM setval(v.claim_seq, v.next - 1) WHERE pg_sequence_last_value(v.claim_seq) < v.next - 1;
    END LOOP;
END
$fn$;

-- Ends an attempt: DELETE leases_<slot> ... RETURNING is the race guard (0 rows: the attempt is no longer
-- live, nothing is written, 'lost'). Then a closure in the receipt's claim slot and, by outcome: completed -> done
-- row + delta in the job's original ready slot; released -> a ready row with the same attempt in the current slot;
-- failed/rescued -> retry with backoff (deferred_jobs, or the current slot when the delay is zero) while attempts
-- remain, else a failed done row + delta and, when p_dead_letter, a dead_letter_jobs row.
-- Backoff: min(base * factor^(attempt - 1), max) * p_jitter (the caller draws the jitter factor).
CREATE FUNCTION {{schema}}.end_attempt(p_lease_slot int, p_job_id bigint, p_run_lease bigint, p_outcome text,
    p_error text, p_base_ms double precision, p_factor double precision, p_max_ms double precision,
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
BEGIN
    EXECUTE format('DELETE FROM %I.%I WHERE lease_slot = $1 AND job_id = $2 AND run_lease = $3'
        || ' RETURNING *', {{schema_name}}, 'leases_' || p_lease_slot)
    INTO v_lease USING p_lease_slot, p_job_id, p_run_lease;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    IF v_n = 0 THEN
        RETURN 'lost';
    END IF;
    -- The ready row outlives the lease: queue prune keeps a slot while a lease points at it.
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
    INSERT INTO lease_claim_closures (claim_slot, receipt_id, job_id, run_lease, ready_slot,
        ready_generation, outcome)
    VALUES (v_lease.claim_slot, v_lease.receipt_id, v_lease.job_id, v_lease.run_lease,
        v_lease.ready_slot, v_lease.ready_generation, v_closure);
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

-- Rescue: leases with a heartbeat older than p_stale_ms or a passed deadline, FOR UPDATE SKIP LOCKED, each
-- ended as 'rescued' (closure 'rescued', then retry or terminal failure). Returns how many were rescued.
CREATE FUNCTION {{schema}}.rescue_jobs(p_max int, p_stale_ms bigint, p_base_ms double precision,
    p_factor double precision, p_max_ms double precision, p_jitter double precision,
    p_dead_letter boolean)
RETURNS int
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v record;
    v_count int := 0;
BEGIN
    FOR v IN
        SELECT l.lease_slot, l.job_id, l.run_lease, (l.deadline_at < clock_timestamp()) AS expired
        FROM leases l
        WHERE l.heartbeat_at < clock_timestamp() - p_stale_ms * interval '1 millisecond'
           OR l.deadline_at < clock_timestamp()
        LIMIT p_max FOR UPDATE SKIP LOCKED
    LOOP
        IF end_attempt(v.lease_slot, v.job_id, v.run_lease, 'rescued',
                CASE WHEN v.expired THEN 'rescued: deadline passed' ELSE 'rescued: heartbeat stale' END,
                p_base_ms, p_factor, p_max_ms, 1 + p_jitter * (2 * random() - 1), p_dead_letter)
                <> 'lost' THEN
            v_count := v_count + 1;
        END IF;
    END LOOP;
    RETURN v_count;
END
$fn$;

-- Promotion: due deferred rows (oldest run_at first, at most p_max) FOR UPDATE SKIP LOCKED; per target lane,
-- in sorted order, a try-lock: a busy lane keeps its rows for the next tick, the others move into the current slot
-- through enqueue_lane. Returns how many moved.
CREATE FUNCTION {{schema}}.promote_jobs(p_max int) RETURNS int
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_ids bigint[];
    v_lane record;
    v_moved record;
    v_count int := 0;
BEGIN
    SELECT array_agg(d.job_id) INTO v_ids FROM (
        SELECT j.job_id FROM deferred_jobs j WHERE j.run_at <= clock_timestamp()
        ORDER BY j.run_at LIMIT p_max FOR UPDATE SKIP LOCKED) d;
    IF v_ids IS NULL THEN
        RETURN 0;
    END IF;
    FOR v_lane IN
        SELECT j.queue, j.priority, j.enqueue_shard FROM deferred_jobs j WHERE j.job_id = ANY (v_ids)
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    LOOP
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(
            lane_key(v_lane.queue, v_lane.priority, v_lane.enqueue_shard));
        WITH moved AS (
            DELETE FROM deferred_jobs j WHERE j.job_id = ANY (v_ids) AND j.queue = v_lane.queue
              AND j.priority = v_lane.priority AND j.enqueue_shard = v_lane.enqueue_shard
            RETURNING j.*)
        SELECT array_agg(m.job_id ORDER BY m.run_at, m.job_id) AS ids,
               array_agg(m.kind ORDER BY m.run_at, m.job_id) AS kinds,
               array_agg(m.args ORDER BY m.run_at, m.job_id) AS args,
               array_agg(m.attempt ORDER BY m.run_at, m.job_id) AS attempts,
               array_agg(m.max_attempts ORDER BY m.run_at, m.job_id) AS max_attempts,
               array_agg(coalesce(m.timeout_ms, 0) ORDER BY m.run_at, m.job_id) AS timeouts
        INTO v_moved FROM moved m;
        CONTINUE WHEN v_moved.ids IS NULL;
        PERFORM enqueue_lane(v_lane.queue, v_lane.priority, v_lane.enqueue_shard, v_moved.ids,
            v_moved.kinds, v_moved.args, v_moved.attempts, v_moved.max_attempts, v_moved.timeouts);
        v_count := v_count + cardinality(v_moved.ids);
    END LOOP;
    RETURN v_count;
END
$fn$;

-- Where a job lives in the queue ring: a done row (then state is its terminal state) or its live ready row
-- (state NULL; claimed when a claim range covers it). Returned by locate_job and lock_live_job.
CREATE TYPE {{schema}}.job_location AS (slot int, generation bigint, state text, queue text, priority smallint,
    shard int, lane_seq bigint, kind text, args jsonb, attempt int, max_attempts int, timeout_ms bigint,
    error text, claimed boolean);

-- The one place that finds a job in the queue ring (status, cancel and move use it). Slots are tried
-- newest-first from the current one, naming each child (never a ring-parent scan); a slot is reused only once pruned
-- empty, so this order is generation order even after the ring wrapped. In a slot, a done row wins (the job is
-- finished); else the job's newest ready row that no tombstone marks: a move or cancel tombstones the row it leaves,
-- so a moved job's source row is never taken for it. Among several untombstoned rows (an attempt released or retried
-- at once into the same slot, perhaps after a move into another lane, so lane_seq cannot order them) the unclaimed
-- one wins, then the newest. Empty when the ring holds no row of the job.
CREATE FUNCTION {{schema}}.locate_job(p_job_id bigint) RETURNS SETOF {{schema}}.job_location
LANGUAGE plpgsql STABLE SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_cur record;
    v_k int;
BEGIN
    SELECT r.slot, s.slot_count INTO v_cur FROM queue_ring_state s
    CROSS JOIN (SELECT slot FROM queue_ring_rotations ORDER BY generation DESC LIMIT 1) r;
    FOR v_i IN 0 .. v_cur.slot_count - 1 LOOP
        v_k := (v_cur.slot - v_i + v_cur.slot_count) % v_cur.slot_count;
        RETURN QUERY EXECUTE format('SELECT d.ready_slot, d.ready_generation, d.state, d.queue,'
            || ' d.priority, NULL::int, NULL::bigint, d.kind, NULL::jsonb, d.attempt,'
            || ' coalesce((SELECT max(e.max_attempts) FROM %1$I.%3$I e WHERE e.job_id = $1), d.attempt),'
            || ' NULL::bigint, d.error, NULL::boolean FROM %1$I.%2$I d WHERE d.job_id = $1'
            || ' ORDER BY d.finalized_at DESC LIMIT 1',
            {{schema_name}}, 'done_entries_' || v_k, 'ready_entries_' || v_k) USING p_job_id;
        IF FOUND THEN
            RETURN;
        END IF;
        RETURN QUERY EXECUTE format('SELECT e.ready_slot, e.ready_generation, NULL::text, e.queue,'
            || ' e.priority, e.enqueue_shard, e.lane_seq, e.kind, e.args, e.attempt, e.max_attempts,'
            || ' e.timeout_ms, NULL::text, EXISTS (SELECT 1 FROM %1$I.%3$I r WHERE r.ready_slot ='
            || ' e.ready_slot AND r.queue = e.queue AND r.priority = e.priority AND r.enqueue_shard ='
            || ' e.enqueue_shard AND r.first_lane_seq <= e.lane_seq AND r.next_lane_seq > e.lane_seq)'
            || ' AS claimed FROM %1$I.%2$I e WHERE e.job_id = $1 AND NOT EXISTS (SELECT 1 FROM %1$I.%4$I t'
            || ' WHERE t.ready_slot = e.ready_slot AND t.queue = e.queue AND t.priority = e.priority'
            || ' AND t.enqueue_shard = e.enqueue_shard AND t.lane_seq = e.lane_seq)'
            || ' ORDER BY claimed, e.enqueued_at DESC, e.lane_seq DESC LIMIT 1',
            {{schema_name}}, 'ready_entries_' || v_k, 'ready_claim_ranges_' || v_k, 'ready_tombstones_' || v_k)
            USING p_job_id;
        IF FOUND THEN
            RETURN;
        END IF;
    END LOOP;
END
$fn$;

-- Finds a job's live ready row and locks its lane's claim head FOR UPDATE: claimers hold the head while
-- they claim, so with it locked no claim of the row is in flight, and a concurrent claim has either committed (the
-- row is then claimed) or not started. The row is located again under the lock; if it changed meanwhile (moved or
-- cancelled concurrently), the search starts over. Returns the located row (a done row when the job finished), or
-- nothing when the ring holds no row of the job.
CREATE FUNCTION {{schema}}.lock_live_job(p_job_id bigint) RETURNS SETOF {{schema}}.job_location
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v job_location;
    v_again job_location;
BEGIN
    FOR v_try IN 1 .. 10 LOOP
        SELECT * INTO v FROM locate_job(p_job_id);
        IF NOT FOUND THEN
            RETURN;
        END IF;
        IF v.state IS NOT NULL THEN
            RETURN NEXT v;
            RETURN;
        END IF;
        PERFORM 1 FROM queue_claim_heads h
        WHERE h.queue = v.queue AND h.priority = v.priority AND h.enqueue_shard = v.shard FOR UPDATE;
        -- A new statement, so a new snapshot: it sees what committed while this waited for the head.
        SELECT * INTO v_again FROM locate_job(p_job_id);
        IF FOUND AND v_again.state IS NULL AND v_again.slot = v.slot AND v_again.queue = v.queue
                AND v_again.priority = v.priority AND v_again.shard = v.shard
                AND v_again.lane_seq = v.lane_seq THEN
            RETURN NEXT v_again;
            RETURN;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'job % kept changing while it was being locked', p_job_id USING ERRCODE = '40001';
END
$fn$;

-- Cancel: a deferred job is deleted, with a cancelled done row + delta in the current slot. Otherwise the
-- job's live ready row under its lane's claim head (lock_live_job): unclaimed, it gets a tombstone, a cancelled done
-- row and a delta in its slot. Returns 'cancelled', 'not_cancellable' (claimed or finished) or 'not_found'.
CREATE FUNCTION {{schema}}.cancel_job(p_job_id bigint) RETURNS text
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_def record;
    v_cur record;
    v job_location;
BEGIN
    DELETE FROM deferred_jobs WHERE job_id = p_job_id RETURNING * INTO v_def;
    IF FOUND THEN
        SELECT r.slot, r.generation INTO v_cur FROM queue_ring_rotations r
        ORDER BY r.generation DESC LIMIT 1;
        INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind,
            state, attempt)
        VALUES (v_cur.slot, v_def.job_id, 0, v_cur.generation, v_def.queue, v_def.priority, v_def.kind,
            'cancelled', v_def.attempt);
        INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state,
            delta)
        VALUES (v_cur.slot, v_cur.generation, v_def.queue, v_def.priority, 'cancelled', 1);
        RETURN 'cancelled';
    END IF;
    SELECT * INTO v FROM lock_live_job(p_job_id);
    IF NOT FOUND THEN
        RETURN 'not_found';
    END IF;
    IF v.state IS NOT NULL OR v.claimed THEN
        RETURN 'not_cancellable';
    END IF;
    INSERT INTO ready_tombstones (ready_slot, queue, priority, enqueue_shard, lane_seq, job_id)
    VALUES (v.slot, v.queue, v.priority, v.shard, v.lane_seq, p_job_id);
    INSERT INTO done_entries (ready_slot, job_id, run_lease, ready_generation, queue, priority, kind,
        state, attempt)
    VALUES (v.slot, p_job_id, 0, v.generation, v.queue, v.priority, v.kind, 'cancelled', v.attempt);
    INSERT INTO queue_terminal_count_deltas (ready_slot, ready_generation, queue, priority, state, delta)
    VALUES (v.slot, v.generation, v.queue, v.priority, 'cancelled', 1);
    RETURN 'cancelled';
END
$fn$;

-- Point read of a job's state: deferred_jobs first, then the queue ring (locate_job: a done row -> its
-- terminal state; the live ready row -> running when claimed, else available), then the dead-letter table (a
-- terminal failure outlives the ring window there). One snapshot (STABLE).
CREATE FUNCTION {{schema}}.job_status(p_job_id bigint)
RETURNS TABLE (o_state text, o_queue text, o_kind text, o_priority smallint, o_attempt int,
    o_max_attempts int, o_run_at timestamptz, o_error text)
LANGUAGE plpgsql STABLE SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    RETURN QUERY SELECT 'scheduled'::text, d.queue, d.kind, d.priority, d.attempt, d.max_attempts,
        d.run_at, d.last_error FROM deferred_jobs d WHERE d.job_id = p_job_id;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT coalesce(l.state, CASE WHEN l.claimed THEN 'running' ELSE 'available' END),
        l.queue, l.kind, l.priority, l.attempt, l.max_attempts, NULL::timestamptz, l.error
    FROM locate_job(p_job_id) l;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT 'failed'::text, f.queue, f.kind, f.priority, f.attempts, f.max_attempts,
        NULL::timestamptz, f.last_error FROM dead_letter_jobs f WHERE f.job_id = p_job_id;
END
$fn$;

-- Moves a job that no worker has claimed to the lane (p_queue, p_priority, p_shard), keeping its id, kind,
-- arguments, attempt, max attempts and timeout.
--
-- Locks: the target lane's advisory lock first (as a producer takes it, held to commit, so the new row's lane_seq
-- commits in order), then, for a ring job, the source lane's claim head (lock_live_job); no session takes them in
-- the other order, so no cycle. A scheduled job is updated in place in deferred_jobs (not a ring table). A ready
-- job's row is tombstoned, as a cancel does (claimers skip it), and the job is enqueued into the current slot of the
-- target lane. When the tombstoned row is the next one its source lane would claim, a claim range with no lease also
-- records it as spent, exactly as a claimer spends a tombstoned row, and o_spent_next returns the range end for the
-- same after-commit cursor advance a claim makes: then the tombstone neither holds its slot back from prune nor
-- counts as available until a claimer of the source queue passes it. Safe under the head lock: every earlier
-- lane_seq is spent, and claimers repair a cursor that lags behind a committed range.
--
-- Returns one row: o_result 'moved' (with the job's new state, 'scheduled' or 'available'), 'claimed' (a worker holds
-- it; o_state 'running'), 'finished' (o_state the terminal state), 'not_found', or 'no_lane' when the move would
-- happen but the target lane does not exist yet: the caller creates it (never inside this transaction) and calls
-- again, so a refused move creates nothing. Only 'moved' writes.
CREATE FUNCTION {{schema}}.move_job(p_job_id bigint, p_queue text, p_priority smallint, p_shard int)
RETURNS TABLE (o_result text, o_state text, o_queue text, o_kind text, o_priority smallint,
    o_attempt int, o_max_attempts int, o_run_at timestamptz, o_error text, o_source_queue text,
    o_source_priority smallint, o_source_shard int, o_spent_next bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
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
            || ' AND r.enqueue_shard = $5))', {{schema_name}}, 'ready_claim_ranges_' || v.slot)
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
$fn$;

-- Re-enqueues dead-letter rows as new jobs: either the one row p_job_id (waiting for a concurrent retry or
-- discard of it), or up to p_limit rows of p_queue that failed at or before p_cutoff, oldest first, FOR UPDATE SKIP
-- LOCKED so concurrent batches never take a row twice. The rows are deleted and, lane by lane in one order, enqueued
-- through enqueue_lane into the lane the job failed in, with NEW job ids (an old id could collide with its done row
-- still in the ring), attempt 1 and the original max attempts and timeout, in the same transaction. Returns each old
-- id with its new id.
CREATE FUNCTION {{schema}}.retry_failed_jobs(p_job_id bigint, p_queue text, p_cutoff timestamptz, p_limit int)
RETURNS TABLE (o_old_job_id bigint, o_new_job_id bigint)
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
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
$fn$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version) VALUES (1);
