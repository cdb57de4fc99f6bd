-- awa-reactive schema, step 8: no autovacuum on the children of the append-only ring families.
--
-- The queue ring's families (ready rows, segments, claim ranges, tombstones, done rows, count deltas) and the claim
-- ring's (receipts, closures) are only ever inserted into; their rows leave with the TRUNCATE that reclaims the slot,
-- seconds to minutes later. Autovacuum still visited their children: an insert-triggered VACUUM that removes nothing
-- and an ANALYZE whose statistics the next TRUNCATE makes meaningless (measured in the maintenance-overhead benchmark:
-- about two thirds of the autovacuum work on the system's tables under load). Here it is switched off for those
-- children and their TOAST tables. Anti-wraparound vacuums still run (PostgreSQL forces them whatever the setting), so
-- a slot held for a very long time is still frozen. The leases and the tallies keep autovacuum: they are deleted or
-- updated row by row, and while the lease ring is stalled by a long job only vacuum reclaims their dead rows.
-- Placeholders as in step 1.

DO $no_autovacuum$
DECLARE
    v_child regclass;
BEGIN
    FOR v_child IN
        SELECT i.inhrelid::regclass FROM pg_inherits i
        WHERE i.inhparent IN ('{{schema}}.ready_entries'::regclass, '{{schema}}.ready_segments'::regclass,
            '{{schema}}.ready_claim_ranges'::regclass, '{{schema}}.ready_tombstones'::regclass,
            '{{schema}}.done_entries'::regclass, '{{schema}}.queue_terminal_count_deltas'::regclass,
            '{{schema}}.lease_claims'::regclass, '{{schema}}.lease_claim_closures'::regclass)
        ORDER BY i.inhrelid
    LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)', v_child);
    END LOOP;
END
$no_autovacuum$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (8, 'append only children without autovacuum', {{checksum:8}});
