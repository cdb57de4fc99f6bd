package io.awareactive.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A job's state by id ({@link QueueStorage#status(long)}). History lasts about one queue-ring lap: once the slot
 * holding a finished job is pruned, its status is empty, except for a terminally failed job, which stays
 * {@link JobState#FAILED} while its dead-letter row exists.
 *
 * @param jobId the job id
 * @param state the state
 * @param queue the queue
 * @param kind the kind
 * @param priority the priority
 * @param attempt the current (or last) attempt number, from 1
 * @param maxAttempts the attempts allowed
 * @param runAt for a scheduled job, when it becomes due; else null
 * @param error the last error (terminal failure, or the error of the attempt a scheduled retry follows); else null
 */
public record JobStatus(long jobId, JobState state, String queue, String kind, int priority, int attempt,
        int maxAttempts, @Nullable Instant runAt, @Nullable String error) {
}
