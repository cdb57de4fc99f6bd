#!/usr/bin/env bash
# The batched plain queue's SQL alone, without the JVM, for comparing with run.sh: ./plain.sh SCHEMA [SECONDS] [CLIENTS]
# Creates SCHEMA.jobs as the benchmark's batched baseline does (BaselineQueue.ddl), fills it with 20,000 jobs, runs
# plain.sql with pgbench, and prints jobs/s, the WAL per job over the run, and the time, buffer reads and WAL per call
# of the three statements from pg_stat_statements (which the server must load). PGHOST, PGPORT, PGUSER and PGDATABASE
# select the server, as for run.sh.
set -euo pipefail
schema=$1; seconds=${2:-15}; clients=${3:-1}
here="$(cd "$(dirname "$0")" && pwd)"
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
psql_q <<SQL >/dev/null
DROP SCHEMA IF EXISTS $schema CASCADE;
CREATE SCHEMA $schema;
CREATE TABLE $schema.jobs (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, queue text NOT NULL,
  priority smallint NOT NULL DEFAULT 2, kind text NOT NULL, args jsonb NOT NULL,
  state text NOT NULL DEFAULT 'ready' CHECK (state IN ('ready', 'running')), attempt int NOT NULL DEFAULT 0,
  max_attempts int NOT NULL DEFAULT 25, run_at timestamptz NOT NULL DEFAULT now(),
  enqueued_at timestamptz NOT NULL DEFAULT now(), locked_by text, heartbeat_at timestamptz)
  WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000,
        autovacuum_analyze_scale_factor = 0.05);
CREATE INDEX jobs_ready_idx ON $schema.jobs (queue, priority, id) WHERE state = 'ready';
INSERT INTO $schema.jobs (queue, priority, kind, args)
  SELECT 'q', 2, 'k', ('{"p":"' || repeat('x', 240) || '"}')::jsonb FROM generate_series(1, 20000);
VACUUM ANALYZE $schema.jobs;
SQL
. "$here/measure.sh"
measure "$here/plain.sql" "$schema" "$seconds" "$clients"
