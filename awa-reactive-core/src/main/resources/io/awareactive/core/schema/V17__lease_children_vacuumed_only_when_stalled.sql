-- awa-reactive schema, step 17: autovacuum visits a lease child only once it holds many dead leases.
--
-- Step 8 left autovacuum on for the leases, because they are deleted row by row and, while a long job stalls the
-- lease ring, only vacuum reclaims the dead leases of its current slot. With PostgreSQL's thresholds (50 dead rows,
-- 1,000 inserted, 50 changed for an ANALYZE, plus a fraction of a child's size, which a truncate resets to nothing)
-- every lease child was vacuumed and analyzed at nearly every autovacuum round while the ring turned normally,
-- seconds before prune truncated it: sampled in the maintenance-overhead benchmark, VACUUM ANALYZE of lease children
-- was most of the autovacuum work on the system's tables under load. Here, on every lease child:
-- - no ANALYZE (threshold INT_MAX): a truncate makes its statistics meaningless; without them the planner estimates
--   a child from its current size, and the completions probe its primary key whatever the estimate (steps 5, 12);
-- - no insert-triggered VACUUM (-1): it only sets visibility-map bits on rows that prune truncates;
-- - a VACUUM once a child holds 100,000 dead leases (scale factor 0): a child the ring keeps current for a long time
--   (a stalled ring, or a long lease ring interval) is still vacuumed, about every 100,000 completions.
-- Anti-wraparound vacuums still run. The tallies and the other tables keep PostgreSQL's settings.
-- Placeholders as in step 1.

DO $lease_autovacuum$
DECLARE
    v_child regclass;
BEGIN
    FOR v_child IN
        SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = '{{schema}}.leases'::regclass
        ORDER BY i.inhrelid
    LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_analyze_threshold = 2147483647,'
            || ' autovacuum_vacuum_insert_threshold = -1, autovacuum_vacuum_threshold = 100000,'
            || ' autovacuum_vacuum_scale_factor = 0)', v_child);
    END LOOP;
END
$lease_autovacuum$;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (17, 'lease children vacuumed only when stalled', {{checksum:17}});
