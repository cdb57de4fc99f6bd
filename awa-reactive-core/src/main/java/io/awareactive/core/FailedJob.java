package io.awareactive.core;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A terminally failed job as recorded in the dead-letter table ({@link QueueStorage#failedJobs(String, int)}). The
 * table lives outside the rings, so the record outlives the ring window: it stays until it is retried, discarded
 * or purged after {@link QueueStorageConfig#deadLetterRetention()}. Immutable.
 *
 * @param jobId the failed job's id (a retry enqueues a new job with a new id)
 * @param queue the queue it failed in
 * @param priority its priority, 1 (highest) to 4
 * @param kind its kind
 * @param args its JSON arguments, as PostgreSQL's {@code jsonb} prints them
 * @param attempts the attempts it made
 * @param maxAttempts the attempts it was allowed (a retry gets as many again)
 * @param timeout its own per-attempt timeout, or null
 * @param lastError the error of its last attempt, or null
 * @param failedAt when it failed (the failing transaction's start); retention counts from here
 */
public record FailedJob(long jobId, String queue, int priority, String kind, String args, int attempts,
        int maxAttempts, @Nullable Duration timeout, @Nullable String lastError, Instant failedAt) {
}
