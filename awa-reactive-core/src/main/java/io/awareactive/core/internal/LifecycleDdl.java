package io.awareactive.core.internal;

import java.util.List;

/**
 * The server-side functions of the job lifecycle (schema version {@value Schema#VERSION}): each lifecycle step is one
 * round trip. They name ring children (never {@code parent WHERE slot = k}) for every slot-directed statement, so a
 * statement's lock footprint is that child; inserts go through the parents (tuple routing locks only the receiving
 * child). Created by {@link SchemaDdl#create}.
 */
final class LifecycleDdl {

    private LifecycleDdl() {
    }

    /**
     * The statements creating the lifecycle functions and indexes, in order.
     *
     * @param schema the schema
     * @return the statements
     */
    static List<String> create(Schema schema) {
        return List.of(
                // Claimers look for a lane's first segment past its cursor: an index on the lane and segment end.
                "CREATE INDEX ready_segments_lane_next_idx ON " + schema.table("ready_segments")
                        + " (queue, priority, enqueue_shard, next_lane_seq)",
                "CREATE INDEX leases_job_id_idx ON " + schema.table("leases") + " (job_id)",
                "CREATE INDEX leases_queue_idx ON " + schema.table("leases") + " (queue)",
                "CREATE INDEX ready_tombstones_job_id_idx ON " + schema.table("ready_tombstones") + " (job_id)",
                fill(schema, LANE_KEY), fill(schema, ENQUEUE_LANE), fill(schema, CLAIM_JOBS),
                fill(schema, ADVANCE_CLAIM_CURSORS), fill(schema, END_ATTEMPT), fill(schema, RESCUE_JOBS),
                fill(schema, PROMOTE_JOBS), fill(schema, JOB_LOCATION), fill(schema, LOCATE_JOB),
                fill(schema, LOCK_LIVE_JOB), fill(schema, CANCEL_JOB), fill(schema, JOB_STATUS));
    }

    /**
     * Fills a function template: {@code {s}} the quoted schema, {@code {name}} the schema name as a string literal,
     * {@code {channel}} the NOTIFY channel as a string literal.
     */
    static String fill(Schema schema, String template) {
        return template.replace("{s}", schema.quoted())
                .replace("{name}", "'" + schema.name() + "'")
                .replace("{channel}", "'" + schema.notifyChannel() + "'");
    }

    /** The advisory-lock key of a lane; producers hold it from reserving lane_seq until commit. */
    private static final String LANE_KEY = """
            CREATE FUNCTION {s}.lane_key(p_queue text, p_priority smallint, p_shard int) RETURNS bigint
            LANGUAGE sql IMMUTABLE AS $fn$
                SELECT hashtextextended('awa-reactive.lane:' || {name} || ':' || p_queue || ':' || p_priority || ':'
                    || p_shard, 0)
            $fn$""";

    /**
     * Immediate enqueue of a batch into one lane: lane lock (held to commit, so commit order equals lane_seq order),
     * then one INSERT statement that reserves lane_seqs, reads the queue cursor from the ledger and writes the ready
     * rows plus one segment into the current slot. Job ids come from job_id_seq unless given (promotion, retry,
     * release). A timeout of 0 means none. Notifies workers (PostgreSQL delivers identical notifications of one
     * transaction once: at most one NOTIFY per transaction and queue).
     */
    private static final String ENQUEUE_LANE = """
            CREATE FUNCTION {s}.enqueue_lane(p_queue text, p_priority smallint, p_shard int, p_job_ids bigint[],
                p_kinds text[], p_args jsonb[], p_attempts int[], p_max_attempts int[], p_timeouts bigint[])
            RETURNS TABLE (o_ord int, o_job_id bigint)
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
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
                PERFORM pg_notify({channel}, p_queue);
            END
            $fn$""";

    /**
     * One claim batch (design §4 steps 1-5). Lanes in priority order; a lane's claim head is locked FOR UPDATE SKIP
     * LOCKED, so concurrent claimers take other lanes. The cursor is the claim sequence's last value + 1; committed
     * claim ranges covering it (an after-commit advance that failed) are skipped and the cursor repaired forward.
     * Rows from the lane's slot at or past the cursor are taken in lane_seq order; tombstoned rows are spent, not
     * leased. One range row per lane, a lease (current lease slot) and a receipt (current claim slot) per job,
     * run_lease = receipt_id. After each lane's jobs, a marker row (o_job_id NULL) carries the range end for the
     * after-commit cursor advance.
     */
    private static final String CLAIM_JOBS = """
            CREATE FUNCTION {s}.claim_jobs(p_queue text, p_max int, p_worker text, p_default_timeout_ms bigint)
            RETURNS TABLE (o_job_id bigint, o_run_lease bigint, o_kind text, o_args text, o_priority smallint,
                o_attempt int, o_max_attempts int, o_timeout_ms bigint, o_ready_slot int, o_ready_generation bigint,
                o_lease_slot int, o_claim_slot int, o_enqueue_shard int, o_lane_seq bigint,
                o_deadline_at timestamptz, o_range_next bigint)
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
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
                            {name}, 'ready_claim_ranges_' || v_seg.ready_slot)
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
                            {name}, 'ready_tombstones_' || v_seg.ready_slot,
                            {name}, 'ready_entries_' || v_seg.ready_slot)
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
            $fn$""";

    /**
     * After-commit cursor advance (design §4 step 6), one statement for all lanes of a claim: under the
     * transaction-local lock timeout {@code p_lock_timeout}, each lane's claim head is locked (lanes in one order),
     * then its claim sequence moves forward to {@code next - 1} if it is behind. Never moves a cursor back.
     */
    private static final String ADVANCE_CLAIM_CURSORS = """
            CREATE FUNCTION {s}.advance_claim_cursors(p_queue text, p_priorities smallint[], p_shards int[],
                p_nexts bigint[], p_lock_timeout text)
            RETURNS void
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
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
            $fn$""";

    /**
     * Ends an attempt: {@code DELETE leases_<slot> ... RETURNING} is the race guard (0 rows: the attempt is no
     * longer live, nothing is written, 'lost'). Then a closure in the receipt's claim slot and, by outcome:
     * completed → done row + delta in the job's original ready slot; released → a ready row with the same attempt in
     * the current slot; failed/rescued → retry with backoff (deferred_jobs, or the current slot when the delay is
     * zero) while attempts remain, else a failed done row + delta and, when p_dead_letter, a dead_letter_jobs row.
     * Backoff: min(base * factor^(attempt - 1), max) * p_jitter (the caller draws the jitter factor).
     */
    private static final String END_ATTEMPT = """
            CREATE FUNCTION {s}.end_attempt(p_lease_slot int, p_job_id bigint, p_run_lease bigint, p_outcome text,
                p_error text, p_base_ms double precision, p_factor double precision, p_max_ms double precision,
                p_jitter double precision, p_dead_letter boolean)
            RETURNS text
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
            DECLARE
                v_lease record;
                v_job record;
                v_n int;
                v_closure text;
                v_delay double precision;
                v_exp double precision;
            BEGIN
                EXECUTE format('DELETE FROM %I.%I WHERE lease_slot = $1 AND job_id = $2 AND run_lease = $3'
                    || ' RETURNING *', {name}, 'leases_' || p_lease_slot)
                INTO v_lease USING p_lease_slot, p_job_id, p_run_lease;
                GET DIAGNOSTICS v_n = ROW_COUNT;
                IF v_n = 0 THEN
                    RETURN 'lost';
                END IF;
                -- The ready row outlives the lease: queue prune keeps a slot while a lease points at it.
                EXECUTE format('SELECT kind, args, timeout_ms FROM %I.%I WHERE ready_slot = $1 AND queue = $2'
                    || ' AND priority = $3 AND enqueue_shard = $4 AND lane_seq = $5',
                    {name}, 'ready_entries_' || v_lease.ready_slot)
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
            $fn$""";

    /**
     * Rescue: leases with a heartbeat older than p_stale_ms or a passed deadline, FOR UPDATE SKIP LOCKED, each ended
     * as 'rescued' (closure 'rescued', then retry or terminal failure). Returns how many were rescued.
     */
    private static final String RESCUE_JOBS = """
            CREATE FUNCTION {s}.rescue_jobs(p_max int, p_stale_ms bigint, p_base_ms double precision,
                p_factor double precision, p_max_ms double precision, p_jitter double precision,
                p_dead_letter boolean)
            RETURNS int
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
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
            $fn$""";

    /**
     * Promotion: due deferred rows (oldest run_at first, at most p_max) FOR UPDATE SKIP LOCKED; per target lane, in
     * sorted order, a try-lock: a busy lane keeps its rows for the next tick, the others move into the current slot
     * through enqueue_lane. Returns how many moved.
     */
    private static final String PROMOTE_JOBS = """
            CREATE FUNCTION {s}.promote_jobs(p_max int) RETURNS int
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
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
            $fn$""";

    /**
     * Where a job lives in the queue ring: a done row (then {@code state} is its terminal state) or its live ready
     * row ({@code state} NULL; {@code claimed} when a claim range covers it). Returned by {@code locate_job} and
     * {@code lock_live_job}.
     */
    private static final String JOB_LOCATION = """
            CREATE TYPE {s}.job_location AS (slot int, generation bigint, state text, queue text, priority smallint,
                shard int, lane_seq bigint, kind text, args jsonb, attempt int, max_attempts int, timeout_ms bigint,
                error text, claimed boolean)""";

    /**
     * The one place that finds a job in the queue ring (status, cancel and move use it). Slots are tried
     * newest-first from the current one, naming each child (never a ring-parent scan); a slot is reused only once
     * pruned empty, so this order is generation order even after the ring wrapped. In a slot, a done row wins (the
     * job is finished); else the job's newest ready row that no tombstone marks: a move or cancel tombstones the
     * row it leaves, so a moved job's source row is never taken for it. Among several untombstoned rows (an
     * attempt released or retried at once into the same slot, perhaps after a move into another lane, so lane_seq
     * cannot order them) the unclaimed one wins, then the newest. Empty when the ring holds no row of the job.
     */
    private static final String LOCATE_JOB = """
            CREATE FUNCTION {s}.locate_job(p_job_id bigint) RETURNS SETOF {s}.job_location
            LANGUAGE plpgsql STABLE SET search_path = {s}, pg_temp AS $fn$
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
                        {name}, 'done_entries_' || v_k, 'ready_entries_' || v_k) USING p_job_id;
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
                        {name}, 'ready_entries_' || v_k, 'ready_claim_ranges_' || v_k, 'ready_tombstones_' || v_k)
                        USING p_job_id;
                    IF FOUND THEN
                        RETURN;
                    END IF;
                END LOOP;
            END
            $fn$""";

    /**
     * Finds a job's live ready row and locks its lane's claim head {@code FOR UPDATE}: claimers hold the head while
     * they claim, so with it locked no claim of the row is in flight, and a concurrent claim has either committed
     * (the row is then {@code claimed}) or not started. The row is located again under the lock; if it changed
     * meanwhile (moved or cancelled concurrently), the search starts over. Returns the located row (a done row when
     * the job finished), or nothing when the ring holds no row of the job.
     */
    private static final String LOCK_LIVE_JOB = """
            CREATE FUNCTION {s}.lock_live_job(p_job_id bigint) RETURNS SETOF {s}.job_location
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
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
            $fn$""";

    /**
     * Cancel: a deferred job is deleted, with a cancelled done row + delta in the current slot. Otherwise the job's
     * live ready row under its lane's claim head ({@code lock_live_job}): unclaimed, it gets a tombstone, a
     * cancelled done row and a delta in its slot. Returns 'cancelled', 'not_cancellable' (claimed or finished) or
     * 'not_found'.
     */
    private static final String CANCEL_JOB = """
            CREATE FUNCTION {s}.cancel_job(p_job_id bigint) RETURNS text
            LANGUAGE plpgsql SET search_path = {s}, pg_temp AS $fn$
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
            $fn$""";

    /**
     * Point read of a job's state: deferred_jobs first, then the queue ring ({@code locate_job}: a done row → its
     * terminal state; the live ready row → running when claimed, else available), then the dead-letter table (a
     * terminal failure outlives the ring window there). One snapshot (STABLE).
     */
    private static final String JOB_STATUS = """
            CREATE FUNCTION {s}.job_status(p_job_id bigint)
            RETURNS TABLE (o_state text, o_queue text, o_kind text, o_priority smallint, o_attempt int,
                o_max_attempts int, o_run_at timestamptz, o_error text)
            LANGUAGE plpgsql STABLE SET search_path = {s}, pg_temp AS $fn$
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
            $fn$""";
}
