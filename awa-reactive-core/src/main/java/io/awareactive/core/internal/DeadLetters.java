package io.awareactive.core.internal;

import io.awareactive.core.FailedJob;
import io.awareactive.core.JobStateException;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The dead-letter table ({@code dead_letter_jobs}): terminally failed jobs kept outside the rings, so prune never
 * removes them. Reads are single statements; retry goes through {@code retry_failed_jobs} (delete and re-enqueue in
 * one transaction); bulk operations and the retention purge run in batches, each its own short transaction, taking
 * rows {@code FOR UPDATE SKIP LOCKED} so concurrent callers never handle a row twice.
 */
public final class DeadLetters {

    /** Rows per transaction of {@link #retryAll} and {@link #discardAll}. */
    static final int BATCH = QueueStorage.FAILED_JOBS_BATCH;

    private static final String COLUMNS = "job_id, queue, priority, kind, args::text, attempts, max_attempts,"
            + " timeout_ms, last_error, failed_at";

    private final ConnectionFactory factory;
    private final Schema schema;
    private final String table;
    private final Duration retention;
    private final long lockTimeoutMillis;

    /**
     * Creates the dead-letter operations of one schema.
     *
     * @param factory pooled connections
     * @param schema the schema
     * @param config the storage configuration (retention, prune lock timeout)
     */
    public DeadLetters(ConnectionFactory factory, Schema schema, QueueStorageConfig config) {
        this.factory = factory;
        this.schema = schema;
        this.table = schema.table(Table.DEAD_LETTER_JOBS);
        this.retention = config.deadLetterRetention();
        // The same bound as the other maintenance calls (promote, rescue): max(T, 100 ms).
        this.lockTimeoutMillis = Math.max(config.effectivePruneLockTimeout().toMillis(), 100);
    }

    /**
     * One page of a queue's failed jobs, newest first ({@code failed_at}, then job id, descending).
     *
     * @param queue the queue
     * @param limit the page size
     * @param after the last job of the previous page, or null for the first page
     * @return the page
     */
    public Flux<FailedJob> list(String queue, int limit, @Nullable FailedJob after) {
        // Keyset paging: strictly after the previous page's last (failed_at, job_id), in the same order.
        String keyset = after == null ? "" : " AND (failed_at, job_id) < (" + micros("$3") + ", $4)";
        Object[] binds = after == null ? new Object[] {queue, limit}
                : new Object[] {queue, limit, epochMicros(after.failedAt()), after.jobId()};
        String sql = "SELECT " + COLUMNS + " FROM " + table + " WHERE queue = $1" + keyset
                + " ORDER BY failed_at DESC, job_id DESC LIMIT $2";
        return Db.withConnection(factory, c -> Db.query(c, sql, DeadLetters::failedJob, binds).collectList())
                .flatMapMany(Flux::fromIterable);
    }

    /**
     * One failed job.
     *
     * @param jobId the job id
     * @return the job, or empty when it is not in the table
     */
    public Mono<FailedJob> get(long jobId) {
        return Db.withConnection(factory, c -> Db.queryOne(c, "SELECT " + COLUMNS + " FROM " + table
                + " WHERE job_id = $1", DeadLetters::failedJob, jobId));
    }

    /**
     * Re-enqueues one failed job as a new job and removes its row, in one transaction.
     *
     * @param jobId the failed job's id
     * @return the new job id; errors with {@link JobStateException} when the row is not there
     */
    public Mono<Long> retry(long jobId) {
        String sql = "SELECT o_new_job_id FROM " + schema.function(SqlFunction.RETRY_FAILED_JOBS)
                + "($1, NULL, NULL, 1)";
        return Db.withConnection(factory, c -> Db.queryOne(c, sql, row -> Db.get(row, 0, Long.class), jobId))
                .switchIfEmpty(Mono.error(() -> notThere(jobId, "retried")));
    }

    /**
     * Re-enqueues every failed job of a queue that failed up to the call (read from the database clock first), in
     * batches of {@value #BATCH}, each one transaction. Jobs failing during the call may or may not be included;
     * a retried job failing again is not (it fails after the cutoff), so the call always ends.
     *
     * @param queue the queue
     * @return how many were re-enqueued
     */
    public Mono<Long> retryAll(String queue) {
        String sql = "SELECT count(*) FROM " + schema.function(SqlFunction.RETRY_FAILED_JOBS) + "(NULL, $1, "
                + micros("$2") + ", $3)";
        return cutoff().flatMap(cutoff -> batches(() -> Db.withConnection(factory, c -> Db.queryOne(c, sql,
                row -> Db.get(row, 0, Long.class), queue, cutoff, BATCH))));
    }

    /**
     * Deletes one failed job's row.
     *
     * @param jobId the failed job's id
     * @return completion; errors with {@link JobStateException} when the row is not there
     */
    public Mono<Void> discard(long jobId) {
        return Db.withConnection(factory, c -> Db.update(c, "DELETE FROM " + table + " WHERE job_id = $1", jobId))
                .flatMap(deleted -> deleted == 0 ? Mono.error(notThere(jobId, "discarded")) : Mono.empty());
    }

    /**
     * Deletes the rows of every failed job of a queue that failed up to the call, in batches of {@value #BATCH}.
     *
     * @param queue the queue
     * @return how many were deleted
     */
    public Mono<Long> discardAll(String queue) {
        String sql = "DELETE FROM " + table + " WHERE job_id IN (SELECT job_id FROM " + table
                + " WHERE queue = $1 AND failed_at <= " + micros("$2")
                + " ORDER BY failed_at, job_id LIMIT $3 FOR UPDATE SKIP LOCKED)";
        return cutoff().flatMap(cutoff -> batches(() -> Db.withConnection(factory, c -> Db.update(c, sql, queue,
                cutoff, BATCH))));
    }

    /**
     * Deletes rows older than the retention, oldest first, in batches of {@code batchSize}; each batch is one
     * transaction whose first statement sets the transaction-local lock timeout max(T, 100 ms), so a lock held on
     * the table bounds the wait (SQLSTATE 55P03 then ends the call with an error). A zero retention keeps nothing.
     *
     * @param batchSize rows per transaction
     * @return how many rows were deleted
     */
    public Mono<Long> purge(int batchSize) {
        String sql = "DELETE FROM " + table + " WHERE job_id IN (SELECT job_id FROM " + table
                + " WHERE failed_at < now() - $1 * interval '1 millisecond' ORDER BY failed_at LIMIT $2"
                + " FOR UPDATE SKIP LOCKED)";
        double retentionMillis = retention.toMillis();
        return batches(batchSize, () -> Db.inMaintenanceTransaction(factory, lockTimeoutMillis,
                c -> Db.update(c, sql, retentionMillis, batchSize)));
    }

    private Mono<Long> batches(Supplier<Mono<Long>> batch) {
        return batches(BATCH, batch);
    }

    /** Runs batches until one comes back short; the sum of their counts. */
    private static Mono<Long> batches(int batchSize, Supplier<Mono<Long>> batch) {
        return batch.get()
                .expand(done -> done == batchSize ? batch.get() : Mono.empty())
                .reduce(0L, Long::sum);
    }

    /** The database's clock now, in epoch microseconds: the cutoff of a bulk call. */
    private Mono<Long> cutoff() {
        return Db.withConnection(factory, c -> Db.queryOne(c, "SELECT clock_timestamp()",
                row -> epochMicros(Db.get(row, 0, Instant.class))));
    }

    /** A bound epoch-microsecond parameter as a timestamptz (independent of the session time zone). */
    private static String micros(String parameter) {
        return "(timestamptz 'epoch' + " + parameter + " * interval '1 microsecond')";
    }

    private static long epochMicros(Instant at) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, at);
    }

    private static JobStateException notThere(long jobId, String what) {
        return new JobStateException(jobId, null, "job " + jobId + " cannot be " + what + ": it is not in the"
                + " dead-letter table (unknown, not failed terminally, already retried or discarded, or purged after"
                + " deadLetterRetention)");
    }

    private static FailedJob failedJob(Readable row) {
        Long timeoutMs = row.get(7, Long.class);
        return new FailedJob(Db.get(row, 0, Long.class), Db.get(row, 1, String.class), Db.get(row, 2, Short.class),
                Db.get(row, 3, String.class), Db.get(row, 4, String.class), Db.get(row, 5, Integer.class),
                Db.get(row, 6, Integer.class), timeoutMs == null ? null : Duration.ofMillis(timeoutMs),
                row.get(8, String.class), Db.get(row, 9, Instant.class));
    }
}
