-- One pgbench client's loop on the batched plain queue, the same shape as loop.sql: every fifth loop an enqueue of 50
-- jobs, then a claim of up to 10 (SELECT ... FOR UPDATE SKIP LOCKED, then UPDATE) and one DELETE of what it claimed.
-- The statements are those of the benchmark's batched baseline (BaselineQueue). SCHEMA is replaced by plain.sh.
\set n :n + 1
\if :n % 5 = 0
INSERT INTO SCHEMA.jobs (queue, priority, kind, args) SELECT 'q', 2, 'k', ('{"p":"' || repeat('x', 240) || '"}')::jsonb FROM generate_series(1, 50);
\endif
WITH picked AS (SELECT id FROM SCHEMA.jobs WHERE queue = 'q' AND state = 'ready' AND run_at <= now() ORDER BY priority, id LIMIT 10 FOR UPDATE SKIP LOCKED), claimed AS (UPDATE SCHEMA.jobs j SET state = 'running', attempt = j.attempt + 1, locked_by = 'w', heartbeat_at = now() FROM picked WHERE j.id = picked.id RETURNING j.id) SELECT quote_literal(coalesce(array_agg(id), '{}')::text) AS ids FROM claimed \gset
DELETE FROM SCHEMA.jobs WHERE id = ANY (:ids::bigint[]) AND state = 'running';
