package io.awareactive.core;

import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * Runs a handler for the jobs of one queue ({@link QueueStorage#worker(WorkerConfig)}): claims batches driven by
 * free capacity (never more running attempts than {@link WorkerConfig#concurrency()}), completes an attempt when the
 * handler's {@code Mono} completes, fails it when the handler errors or outlasts its timeout, and heartbeats every
 * running attempt in one batch per {@link QueueStorageConfig#heartbeatInterval()}. An attempt whose heartbeat finds
 * its lease gone (rescued) is abandoned: its handler is cancelled and nothing is written.
 *
 * <p>Wake-ups: a dedicated, non-pooled connection {@code LISTEN}s on the schema's channel (for an r2dbc-pool the
 * pool's underlying factory, via {@code ConnectionPool.unwrap()}), so an idle worker claims only when work arrives,
 * plus a bounded polling fallback every {@link WorkerConfig#pollInterval()}, which also covers promoted, retried and
 * released jobs and poolers that cannot carry {@code LISTEN}. Scheduled jobs, retries with backoff and rescue of
 * stuck attempts need a running maintenance engine.
 *
 * <p>Thread-safe. Handlers run on the configured scheduler and must not block it.
 */
public interface Worker {

    /**
     * Starts claiming. Idempotent: a second call, or a call after {@link #stop(Duration)}, does nothing.
     *
     * @return completion once the worker listens for wake-ups (or fell back to polling)
     */
    Mono<Void> start();

    /**
     * Stops gracefully: no new claims; running attempts may finish within {@code grace}; those still running then
     * are cancelled and released (ready again at once, with the same attempt number: no attempt is consumed).
     * Idempotent.
     *
     * @param grace how long running attempts may take to finish
     * @return completion once every attempt has ended or been released and the wake-up connection is closed
     * @throws IllegalArgumentException when {@code grace} is null or negative
     */
    Mono<Void> stop(Duration grace);

    /**
     * This worker's id, recorded on every lease it holds.
     *
     * @return the id
     */
    String workerId();

    /**
     * The attempts running right now.
     *
     * @return the count
     */
    int running();
}
