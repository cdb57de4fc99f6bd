-- awa-reactive schema, step 15: rescue reads a lease slot only when a lease in it can be stale.
--
-- Up to step 14, rescue_jobs scanned the leases parent on every call: every row of every lease child, the leases
-- that completions deleted included, although on a healthy database none of them is stale. From this step each lease
-- tally row also keeps the earliest deadline of the leases it counted (min_deadline), and rescue_jobs picks its lease
-- slots from the tallies first. It reads a slot's child only when the slot's tallies count a live lease and either
-- the slot was opened before the staleness horizon or a tallied deadline has passed. A slot opened after the horizon
-- holds no lease with an older heartbeat, because a claim reads its lease slot from the ledger, after the rotation
-- that opened the slot committed, and stamps heartbeat_at with clock_timestamp(); heartbeats only move it forward.
-- Deadlines never change, and the tally rows of a slot are truncated with its leases, so the earliest tallied deadline
-- is at most the deadline of every lease the slot holds. On a healthy database, rescue now reads the tallies and the
-- lease ledger, and no lease.
--
-- The leases of attempts claimed before this step have no tallied deadline: one row per (lease slot, ready slot)
-- under backend 0, counting nothing (live 0), records theirs. The step first waits for every transaction that is
-- writing leases (SHARE on the lease children) and keeps new ones out until it commits, so no lease commits unseen
-- between the backfill and the new trigger; it takes the leases before the tallies, in the order every lease writer
-- takes them. Signatures are unchanged. Placeholders as in step 1.

LOCK TABLE {{schema}}.leases IN SHARE MODE;

ALTER TABLE {{schema}}.lease_tallies ADD COLUMN min_deadline timestamptz;

-- tally_leases(sign): adds sign x (the statement's leases) per (lease slot, ready slot) to this backend's row and,
-- for inserted leases, lowers the row's earliest deadline to theirs.
CREATE OR REPLACE FUNCTION {{schema}}.tally_leases() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    INSERT INTO lease_tallies AS t (lease_slot, ready_slot, backend, live, min_deadline)
    SELECT c.lease_slot, c.ready_slot, pg_backend_pid(), TG_ARGV[0]::int * count(*),
        CASE WHEN TG_ARGV[0]::int > 0 THEN min(c.deadline_at) END
    FROM changed c
    GROUP BY c.lease_slot, c.ready_slot
    ON CONFLICT (lease_slot, ready_slot, backend)
    DO UPDATE SET live = t.live + excluded.live, min_deadline = least(t.min_deadline, excluded.min_deadline);
    RETURN NULL;
END
$fn$;

INSERT INTO {{schema}}.lease_tallies AS t (lease_slot, ready_slot, backend, live, min_deadline)
SELECT l.lease_slot, l.ready_slot, 0, 0, min(l.deadline_at)
FROM {{schema}}.leases l
WHERE l.deadline_at IS NOT NULL
GROUP BY l.lease_slot, l.ready_slot
ON CONFLICT (lease_slot, ready_slot, backend)
DO UPDATE SET min_deadline = least(t.min_deadline, excluded.min_deadline);

-- Rescue: in the lease slots that can hold a stale lease (oldest first), leases with a heartbeat older than
-- p_stale_ms or a passed deadline, FOR UPDATE SKIP LOCKED, at most p_max in all, each ended as 'rescued' (closure
-- 'rescued', then retry or terminal failure). Returns how many were rescued. A slot's child is named in the
-- statement, so only the slots read are locked.
CREATE OR REPLACE FUNCTION {{schema}}.rescue_jobs(p_max int, p_stale_ms bigint, p_base_ms double precision,
    p_factor double precision, p_max_ms double precision, p_jitter double precision,
    p_dead_letter boolean)
RETURNS int
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v_stale_before timestamptz := clock_timestamp() - p_stale_ms * interval '1 millisecond';
    v_slot int;
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
        FOR v IN EXECUTE format('SELECT l.job_id, l.run_lease, (l.deadline_at < clock_timestamp()) AS expired'
                || ' FROM %I l WHERE l.heartbeat_at < $1 OR l.deadline_at < clock_timestamp()'
                || ' LIMIT $2 FOR UPDATE SKIP LOCKED', 'leases_' || v_slot)
            USING v_stale_before, p_max - v_taken
        LOOP
            v_taken := v_taken + 1;
            IF end_attempt(v_slot, v.job_id, v.run_lease, 'rescued',
                    CASE WHEN v.expired THEN 'rescued: deadline passed' ELSE 'rescued: heartbeat stale' END,
                    p_base_ms, p_factor, p_max_ms, 1 + p_jitter * (2 * random() - 1), p_dead_letter)
                    <> 'lost' THEN
                v_count := v_count + 1;
            END IF;
        END LOOP;
        EXIT WHEN v_taken >= p_max;
    END LOOP;
    RETURN v_count;
END
$fn$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (15, 'rescue from lease tallies', {{checksum:15}});
