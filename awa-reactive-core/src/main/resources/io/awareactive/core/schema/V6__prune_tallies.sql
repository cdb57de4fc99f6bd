-- awa-reactive schema, step 6: prune gates answer from tallies, not from the rows of a slot.
--
-- Until this step the prune gates counted or scanned every lease, receipt and closure of the slot they guard, so
-- reclaiming a slot cost as much as the rows it held. Here every change to those three families is tallied in the
-- same transaction, by statement-level triggers (one tally write per statement, whatever its row count):
-- - lease_tallies (partitioned by lease_slot like leases): live = leases inserted - leases deleted, per lease slot,
--   ready slot and backend;
-- - claim_tallies (partitioned by claim_slot like receipts and closures): opened = receipts, closed = closures, per
--   claim slot, ready slot and backend.
-- A tally row is keyed by the writing backend's pid, so concurrent writers never touch one row (no lock waits, no
-- deadlock); a backend runs one transaction at a time, so its row's updates are serialised by itself. A gate sums the
-- rows of a slot: at most (ready slots x backends) rows per slot, whatever the slot holds. Prune truncates a slot's
-- tallies with its families. The triggers sit on each parent (inserts and deletes through the parent) and on each
-- child (statements aimed at a child); PostgreSQL fires only the statement target's statement triggers, so a row is
-- tallied once. The row families and their writers (claim_jobs_v2, complete_attempts, end_attempt) are unchanged.
-- Existing rows are tallied once, at the end of this step, after the triggers took their locks (CREATE TRIGGER locks
-- each table SHARE ROW EXCLUSIVE, so no writer commits between the count and the triggers).
-- ring_probe answers a ring's idle tick in one statement that writes nothing.
-- Placeholders as in step 1.

CREATE TABLE {{schema}}.lease_tallies (
    lease_slot int NOT NULL, ready_slot int NOT NULL, backend int NOT NULL, live bigint NOT NULL,
    PRIMARY KEY (lease_slot, ready_slot, backend)) PARTITION BY LIST (lease_slot);
CREATE TABLE {{schema}}.claim_tallies (
    claim_slot int NOT NULL, ready_slot int NOT NULL, backend int NOT NULL, opened bigint NOT NULL,
    closed bigint NOT NULL,
    PRIMARY KEY (claim_slot, ready_slot, backend)) PARTITION BY LIST (claim_slot);

-- tally_leases(sign): adds sign x (the statement's leases) per (lease slot, ready slot) to this backend's row.
CREATE FUNCTION {{schema}}.tally_leases() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    INSERT INTO lease_tallies AS t (lease_slot, ready_slot, backend, live)
    SELECT c.lease_slot, c.ready_slot, pg_backend_pid(), TG_ARGV[0]::int * count(*) FROM changed c
    GROUP BY c.lease_slot, c.ready_slot
    ON CONFLICT (lease_slot, ready_slot, backend) DO UPDATE SET live = t.live + excluded.live;
    RETURN NULL;
END
$fn$;

-- tally_claims(sign, column): the same for receipts (column 'opened') and closures (column 'closed').
CREATE FUNCTION {{schema}}.tally_claims() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {{schema}}, pg_temp AS $fn$
BEGIN
    INSERT INTO claim_tallies AS t (claim_slot, ready_slot, backend, opened, closed)
    SELECT c.claim_slot, c.ready_slot, pg_backend_pid(),
        CASE TG_ARGV[1] WHEN 'opened' THEN TG_ARGV[0]::int * count(*) ELSE 0 END,
        CASE TG_ARGV[1] WHEN 'closed' THEN TG_ARGV[0]::int * count(*) ELSE 0 END
    FROM changed c GROUP BY c.claim_slot, c.ready_slot
    ON CONFLICT (claim_slot, ready_slot, backend)
    DO UPDATE SET opened = t.opened + excluded.opened, closed = t.closed + excluded.closed;
    RETURN NULL;
END
$fn$;

DO $tallies$
DECLARE
    v record;
BEGIN
    FOR v IN
        SELECT 'lease_tallies' AS tally, slot FROM {{schema}}.lease_ring_slots
        UNION ALL SELECT 'claim_tallies', slot FROM {{schema}}.claim_ring_slots ORDER BY 1, 2
    LOOP
        EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES IN (%s)', {{schema_name}},
            v.tally || '_' || v.slot, {{schema_name}}, v.tally, v.slot);
    END LOOP;
    -- Each parent, then each of its children.
    FOR v IN
        SELECT f.family || coalesce('_' || k.slot, '') AS target, f.fn, f.args
        FROM (VALUES ('leases', 'tally_leases', '', 'lease'),
                     ('lease_claims', 'tally_claims', ', ''opened''', 'claim'),
                     ('lease_claim_closures', 'tally_claims', ', ''closed''', 'claim')) AS f (family, fn, args, ring)
        JOIN (SELECT 'lease' AS ring, NULL::int AS slot UNION ALL SELECT 'claim', NULL
              UNION ALL SELECT 'lease', slot FROM {{schema}}.lease_ring_slots
              UNION ALL SELECT 'claim', slot FROM {{schema}}.claim_ring_slots) AS k USING (ring)
        ORDER BY f.family, k.slot NULLS FIRST
    LOOP
        EXECUTE format('CREATE TRIGGER tally_inserted AFTER INSERT ON %I.%I REFERENCING NEW TABLE AS changed'
            || ' FOR EACH STATEMENT EXECUTE FUNCTION %I.%I(''1''%s)', {{schema_name}}, v.target, {{schema_name}},
            v.fn, v.args);
        EXECUTE format('CREATE TRIGGER tally_deleted AFTER DELETE ON %I.%I REFERENCING OLD TABLE AS changed'
            || ' FOR EACH STATEMENT EXECUTE FUNCTION %I.%I(''-1''%s)', {{schema_name}}, v.target, {{schema_name}},
            v.fn, v.args);
    END LOOP;
END
$tallies$;

-- ring_probe(lock timeout, ring key, probe): the idle tick of a ring in one statement (run in autocommit, it is its own
-- transaction): the lock timeout first (transaction-local), then the ring's serializer as a try-lock (NULL when another
-- session holds it), then the caller's read-only probe, whose locks are taken only now, under the timeout. Returns the
-- probe's one bigint[] row. It writes nothing and grants nothing (SECURITY INVOKER).
CREATE FUNCTION {{schema}}.ring_probe(p_lock_timeout text, p_ring_key text, p_probe text) RETURNS bigint[]
LANGUAGE plpgsql SET search_path = {{schema}}, pg_temp AS $fn$
DECLARE
    v bigint[];
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    IF NOT pg_try_advisory_xact_lock(hashtextextended(p_ring_key, 0)) THEN
        RETURN NULL;
    END IF;
    EXECUTE p_probe INTO v;
    RETURN v;
END
$fn$;

-- Rows written before this step, tallied under backend 0 (no live backend has pid 0).
INSERT INTO {{schema}}.lease_tallies (lease_slot, ready_slot, backend, live)
SELECT l.lease_slot, l.ready_slot, 0, count(*) FROM {{schema}}.leases l GROUP BY l.lease_slot, l.ready_slot;
INSERT INTO {{schema}}.claim_tallies (claim_slot, ready_slot, backend, opened, closed)
SELECT x.claim_slot, x.ready_slot, 0, sum(x.opened), sum(x.closed)
FROM (SELECT r.claim_slot, r.ready_slot, 1 AS opened, 0 AS closed FROM {{schema}}.lease_claims r
      UNION ALL SELECT c.claim_slot, c.ready_slot, 0, 1 FROM {{schema}}.lease_claim_closures c) x
GROUP BY x.claim_slot, x.ready_slot;

-- The gates that read leases, receipts and closures by ready slot (G1, G3) now read the tallies, and nothing else
-- looks those rows up by ready slot: their ready_slot indexes only cost an index entry per lease, receipt and closure
-- written on the hot path.
DROP INDEX {{schema}}.leases_ready_slot_idx;
DROP INDEX {{schema}}.lease_claims_ready_slot_idx;
DROP INDEX {{schema}}.lease_claim_closures_ready_slot_idx;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (6, 'prune tallies', {{checksum:6}});
