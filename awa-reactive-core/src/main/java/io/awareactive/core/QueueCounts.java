package io.awareactive.core;

/**
 * Per-queue counts ({@link QueueStorage#counts(String)}), computed cheaply from sequences, the lease ring, the
 * deferred table and the terminal-count tables, never from the ready or done rows.
 *
 * @param queue the queue
 * @param available ready and not yet claimed; approximate while work is in flight (uncommitted or rolled-back
 *     enqueues count until a claim passes them)
 * @param running attempts claimed and not yet ended
 * @param scheduled jobs in the deferred table (scheduled jobs and retries waiting out their backoff)
 * @param completed completed jobs (exact)
 * @param failed terminally failed jobs (exact)
 * @param cancelled cancelled jobs (exact)
 */
public record QueueCounts(String queue, long available, long running, long scheduled, long completed, long failed,
        long cancelled) {
}
