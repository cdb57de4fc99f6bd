package io.awareactive.core;

/**
 * What ending an attempt did ({@link QueueStorage#complete(Job)}, {@link QueueStorage#fail(Job, String)},
 * {@link QueueStorage#release(Job)}).
 */
public enum AttemptResult {
    /** The job completed. */
    COMPLETED,
    /** The attempt failed and a retry was scheduled (after its backoff, or at once for a zero backoff). */
    RETRY_SCHEDULED,
    /** The attempt failed with no attempts left: the job failed terminally. */
    FAILED,
    /** The attempt was released: the job is ready again with the same attempt number. */
    RELEASED,
    /**
     * The attempt was no longer live (rescued, released or already ended): nothing was written. A worker should
     * abandon the attempt.
     */
    LOST
}
