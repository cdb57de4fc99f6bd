-- One pgbench client's loop on the SQL alone: every fifth loop an enqueue of 50 jobs into a random lane of 16, then a
-- claim of up to 10 and the completion of what it claimed. SCHEMA is replaced by run.sh.
\set n :n + 1
\set shard random(0, 15)
\if :n % 5 = 0
SELECT count(*) FROM SCHEMA.enqueue_lane('q', 0::smallint, :shard, NULL, array_fill('k'::text, ARRAY[50]), array_fill(('{"p":"' || repeat('x', 240) || '"}')::jsonb, ARRAY[50]), array_fill(1, ARRAY[50]), array_fill(25, ARRAY[50]), array_fill(0::bigint, ARRAY[50]));
\endif
SELECT quote_literal(coalesce(array_agg(o_lease_slot), '{}')::text) AS ls, quote_literal(coalesce(array_agg(o_job_id), '{}')::text) AS ids, quote_literal(coalesce(array_agg(o_run_lease), '{}')::text) AS rl FROM SCHEMA.claim_jobs_v2('q', 10, 'w', NULL) \gset
SELECT count(*) FROM SCHEMA.complete_attempts(:ls::int[], :ids::bigint[], :rl::bigint[]);
