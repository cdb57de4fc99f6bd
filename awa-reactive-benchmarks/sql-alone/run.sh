#!/usr/bin/env bash
# The hot path's SQL alone, without the JVM: ./run.sh SCHEMA STEPS_DIR [SECONDS] [CLIENTS]
# Installs the step files of STEPS_DIR (e.g. ../../awa-reactive-core/src/main/resources/io/awareactive/core/schema, or a
# copy of an older commit's) into SCHEMA with 16/8/8 slots, fills 16 lanes of queue 'q' with 20,000 jobs, runs
# loop.sql with pgbench, and prints jobs/s, the WAL per job over the run, and the time, buffer reads and WAL per call
# of the three statements from pg_stat_statements (which the server must load). Needs psql and pgbench on the PATH;
# PGHOST, PGPORT, PGUSER and PGDATABASE select the server. The placeholders are filled as SchemaSteps fills them;
# checksums are not computed. plain.sh runs the same loop on the batched plain queue.
set -euo pipefail
schema=$1; steps=$2; seconds=${3:-15}; clients=${4:-1}
here="$(cd "$(dirname "$0")" && pwd)"
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
{
  echo "DROP SCHEMA IF EXISTS $schema CASCADE;"
  for f in $(ls "$steps"/V*.sql | sort -V); do
    # Each step in its own transaction, as the installer runs it.
    echo "BEGIN;"
    sed -e "s/{{schema}}/\"$schema\"/g" -e "s/{{schema_name}}/'$schema'/g" -e "s/{{notify_channel}}/'awa_jobs_$schema'/g" \
        -e "s/{{queue_slot_count}}/16/g" -e "s/{{lease_slot_count}}/8/g" -e "s/{{claim_slot_count}}/8/g" \
        -e "s/{{checksum:[0-9]*}}/'unchecked'/g" "$f"
    echo "COMMIT;"
  done
} | psql_q >/dev/null 2>&1
psql_q -c "SELECT $schema.create_lane('q', 0::smallint, g) FROM generate_series(0, 15) g" >/dev/null
psql_q -c "DO \$\$BEGIN FOR i IN 1..400 LOOP PERFORM $schema.enqueue_lane('q', 0::smallint, i % 16, NULL,
  array_fill('k'::text, ARRAY[50]), array_fill(('{\"p\":\"' || repeat('x', 240) || '\"}')::jsonb, ARRAY[50]),
  array_fill(1, ARRAY[50]), array_fill(25, ARRAY[50]), array_fill(0::bigint, ARRAY[50])); END LOOP; END\$\$" >/dev/null
. "$here/measure.sh"
measure "$here/loop.sql" "$schema" "$seconds" "$clients"
