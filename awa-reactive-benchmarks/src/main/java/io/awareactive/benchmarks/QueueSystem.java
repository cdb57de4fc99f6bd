package io.awareactive.benchmarks;

import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A job queue under test, awa-reactive or the baseline, behind the operations the scenarios drive. Both live in their
 * own schema of the same database and use equally sized R2DBC pools of the same driver.
 *
 * @param <J> the claimed-job handle
 */
interface QueueSystem<J> extends AutoCloseable {

    /** The queue name every scenario uses. */
    String QUEUE = "bench";

    /** The job kind every scenario uses. */
    String KIND = "bench.noop";

    /** The label in tables, CSV files and plots: {@code awa-reactive} or {@code baseline}. */
    String label();

    /** The schema holding this system's tables (sizes and dead tuples are summed over it). */
    String schema();

    /** Creates the schema, tables and the queue. */
    Mono<Void> install();

    /** Enqueues {@code count} jobs in one round trip (one transaction). */
    Mono<List<Long>> enqueue(int count);

    /** Claims up to {@code maxBatch} jobs in one transaction. */
    Mono<List<J>> claim(int maxBatch, String workerId);

    /** Completes one claimed job in its own transaction. */
    Mono<Void> complete(J job);

    /** Completes claimed jobs in one transaction, as a user who batches acknowledgements would. */
    Mono<Void> completeAll(List<J> jobs);

    /** Reads one job by id (the result is discarded). */
    Mono<Void> lookup(long jobId, String mode);

    /** Reads the queue's counts (the result is discarded). */
    Mono<Void> count();

    /**
     * The statement a short contending reader runs inside its transaction, holding its lock until the end of the
     * transaction.
     */
    String contendingReaderSql();

    /** Starts this system's own maintenance (the baseline has none but autovacuum, which always runs). */
    Mono<Void> startMaintenance(Duration rotateInterval, Duration lockTimeout);

    /** Stops maintenance started by {@link #startMaintenance(Duration, Duration)}; a no-op when none runs. */
    Mono<Void> stopMaintenance();

    /** Prune outcomes seen since maintenance started (all zero for the baseline). */
    PruneStats pruneStats();

    /** Disposes pools and threads. */
    @Override
    void close();
}
