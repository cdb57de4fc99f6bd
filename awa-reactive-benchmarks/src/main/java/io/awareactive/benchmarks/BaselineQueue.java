package io.awareactive.benchmarks;

import io.r2dbc.pool.ConnectionPool;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The queue a Java team would otherwise write (db-scheduler, JobRunr and pgmq share its shape): one {@code jobs}
 * table; claim = {@code SELECT ... ORDER BY priority, id LIMIT n FOR UPDATE SKIP LOCKED} feeding an
 * {@code UPDATE ... SET state = 'running'}; complete = {@code DELETE}. Tuned as such a team would tune it:
 * <ul>
 *   <li>a partial index on ready rows in claim order, {@code (queue, priority, id) WHERE state = 'ready'}, so a
 *       claim reads only ready index entries and never sorts;</li>
 *   <li>batch claims (one statement for the whole batch) and multi-row enqueues (one statement per batch);</li>
 *   <li>aggressive per-table autovacuum: vacuum after 1,000 dead rows whatever the table size, no cost-based
 *       throttling, insert-triggered vacuum at 10,000 rows (so the visibility map stays fresh);</li>
 *   <li>no rescue index and no history table: it stores less than awa-reactive does, which favours it.</li>
 * </ul>
 * Completion is a single auto-committed statement (no explicit BEGIN/COMMIT round trips).
 */
final class BaselineQueue implements QueueSystem<Long> {

    static final String LABEL = "baseline";

    private final String schema;
    private final ConnectionPool pool;
    private final String payload;
    private final PruneStats pruneStats = new PruneStats();
    private final String enqueueSql;
    private final String claimSql;
    private final String completeSql;
    private final String completeAllSql;
    private final String lookupSql;
    private final String countSql;

    BaselineQueue(String schema, ConnectionPool pool, String payload) {
        this.schema = schema;
        this.pool = pool;
        this.payload = payload;
        String jobs = jobs();
        this.enqueueSql = "INSERT INTO " + jobs + " (queue, priority, kind, args)"
                + " SELECT $1, 2, $2, a::jsonb FROM unnest($3::text[]) AS a RETURNING id";
        this.claimSql = "WITH picked AS (SELECT id FROM " + jobs
                + " WHERE queue = $1 AND state = 'ready' AND run_at <= now()"
                + " ORDER BY priority, id LIMIT $2 FOR UPDATE SKIP LOCKED)"
                + " UPDATE " + jobs + " j SET state = 'running', attempt = j.attempt + 1, locked_by = $3,"
                + " heartbeat_at = now() FROM picked WHERE j.id = picked.id RETURNING j.id, j.kind, j.args, j.attempt";
        this.completeSql = "DELETE FROM " + jobs + " WHERE id = $1 AND state = 'running'";
        this.completeAllSql = "DELETE FROM " + jobs + " WHERE id = ANY($1::bigint[]) AND state = 'running'";
        this.lookupSql = "SELECT state, attempt FROM " + jobs + " WHERE id = $1";
        this.countSql = "SELECT count(*) FILTER (WHERE state = 'ready'), count(*) FILTER (WHERE state = 'running')"
                + " FROM " + jobs + " WHERE queue = $1";
    }

    /** The schema-qualified jobs table. */
    String jobs() {
        return "\"" + schema + "\".jobs";
    }

    /** The DDL of the baseline: the table, its tuning and its partial index. */
    static List<String> ddl(String schema) {
        String jobs = "\"" + schema + "\".jobs";
        return List.of(
                "CREATE SCHEMA \"" + schema + "\"",
                "CREATE TABLE " + jobs + " ("
                        + " id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                        + " queue text NOT NULL,"
                        + " priority smallint NOT NULL DEFAULT 2,"
                        + " kind text NOT NULL,"
                        + " args jsonb NOT NULL,"
                        + " state text NOT NULL DEFAULT 'ready' CHECK (state IN ('ready', 'running')),"
                        + " attempt int NOT NULL DEFAULT 0,"
                        + " max_attempts int NOT NULL DEFAULT 25,"
                        + " run_at timestamptz NOT NULL DEFAULT now(),"
                        + " enqueued_at timestamptz NOT NULL DEFAULT now(),"
                        + " locked_by text,"
                        + " heartbeat_at timestamptz"
                        + ") WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,"
                        + " autovacuum_vacuum_cost_delay = 0, autovacuum_vacuum_insert_scale_factor = 0,"
                        + " autovacuum_vacuum_insert_threshold = 10000, autovacuum_analyze_scale_factor = 0.05)",
                "CREATE INDEX jobs_ready_idx ON " + jobs + " (queue, priority, id) WHERE state = 'ready'");
    }

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public String schema() {
        return schema;
    }

    @Override
    public Mono<Void> install() {
        return Flux.fromIterable(ddl(schema))
                .concatMap(sql -> BenchSql.update(pool, sql))
                .then();
    }

    @Override
    public Mono<List<Long>> enqueue(int count) {
        String[] args = new String[count];
        Arrays.fill(args, payload);
        return BenchSql.rows(pool, enqueueSql, row -> BenchSql.value(row, 0, Long.class), QUEUE, KIND, args)
                .collectList();
    }

    @Override
    public Mono<List<Long>> claim(int maxBatch, String workerId) {
        return BenchSql.rows(pool, claimSql, row -> {
            // Read the job as a worker would: id, kind, args, attempt.
            row.get(1, String.class);
            row.get(2, String.class);
            row.get(3, Integer.class);
            return BenchSql.value(row, 0, Long.class);
        }, QUEUE, maxBatch, workerId).collectList();
    }

    @Override
    public Mono<Void> complete(Long jobId) {
        return BenchSql.update(pool, completeSql, jobId).then();
    }

    @Override
    public Mono<Void> completeAll(List<Long> jobIds) {
        return BenchSql.update(pool, completeAllSql, (Object) jobIds.toArray(Long[]::new)).then();
    }

    @Override
    public Mono<Void> lookup(long jobId, String mode) {
        return BenchSql.rows(pool, lookupSql, row -> BenchSql.value(row, 0, String.class), jobId).then();
    }

    @Override
    public Mono<Void> count() {
        return BenchSql.rows(pool, countSql, row -> BenchSql.value(row, 0, Long.class), QUEUE).then();
    }

    @Override
    public String contendingReaderSql() {
        return "SELECT count(*) FROM " + jobs();
    }

    @Override
    public Mono<Void> startMaintenance(Duration rotateInterval, Duration lockTimeout) {
        return Mono.empty();
    }

    @Override
    public Mono<Void> stopMaintenance() {
        return Mono.empty();
    }

    @Override
    public PruneStats pruneStats() {
        return pruneStats;
    }

    @Override
    public void close() {
        pool.disposeLater().block(Duration.ofSeconds(30));
    }
}
