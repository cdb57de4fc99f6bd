# Sourced by run.sh and plain.sh: measure LOOP_FILE SCHEMA SECONDS CLIENTS runs LOOP_FILE (SCHEMA. replaced by the
# schema) with pgbench and prints jobs/s, the WAL per job over the run, and the time, buffer reads and WAL per call of
# the schema's three costliest statements from pg_stat_statements. Every loop claims up to 10 jobs; both loops keep
# the queue full, so a loop is 10 jobs. With NESTED=1 the run also tracks the statements inside functions
# (pg_stat_statements.track = all, which the connecting role must be allowed to set) and prints the costliest twelve
# of every level with their calls per loop: where a function's time goes. Tracking adds a little time to every call.
measure() {
  local loop=$1 schema=$2 seconds=$3 clients=$4 script before result tps
  script="$(mktemp)"
  sed "s/SCHEMA\./$schema./g" "$loop" > "$script"
  psql -X -q -c "SELECT pg_stat_statements_reset()" >/dev/null
  before=$(psql -X -At -c "SELECT pg_current_wal_lsn()")
  local nested=0 options=${PGOPTIONS:-}
  if [[ "${NESTED:-0}" == "1" ]]; then
    nested=1
    options="$options -c pg_stat_statements.track=all"
  fi
  result=$(PGOPTIONS="$options" pgbench -n -D n=0 -c "$clients" -j "$clients" -T "$seconds" -f "$script")
  rm -f "$script"
  tps=$(echo "$result" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
  echo "$result" | grep -E 'tps|latency average'
  psql -X -At -c "SELECT 'jobs/s ' || round($tps * 10) || ', WAL per job '
    || round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$before') / ($tps * 10 * $seconds))"
  psql -X -c "SELECT calls, round((total_exec_time / calls)::numeric, 3) AS ms_per_call,
    round(shared_blks_hit::numeric / calls, 1) AS buffers, round(wal_bytes / calls) AS wal_bytes,
    left(regexp_replace(query, '\s+', ' ', 'g'), 60) AS statement
    FROM pg_stat_statements WHERE toplevel AND query ~ '$schema\.' AND calls > 10
    ORDER BY total_exec_time DESC LIMIT 3"
  if [[ "$nested" == "1" ]]; then
    psql -X -c "SELECT calls, round(calls / ($tps * $seconds), 2) AS per_loop,
      round((total_exec_time / calls)::numeric, 3) AS ms_per_call, toplevel,
      left(regexp_replace(query, '\s+', ' ', 'g'), 70) AS statement
      FROM pg_stat_statements WHERE calls > 10 AND (NOT toplevel OR query ~ '$schema\.')
      ORDER BY total_exec_time DESC LIMIT 12"
  fi
}
