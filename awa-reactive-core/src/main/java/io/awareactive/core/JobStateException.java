package io.awareactive.core;

import org.jspecify.annotations.Nullable;

/**
 * An operation on one job was refused because of where the job is: it is unknown (or its history is gone), a worker
 * has claimed it, it has finished, or it is not in the dead-letter table. Nothing was written. Raised as the error
 * signal of {@link QueueStorage#move(long, String, int)}, {@link QueueStorage#retryFailedJob(long)} and
 * {@link QueueStorage#discardFailedJob(long)}; the message says which case applies.
 */
public final class JobStateException extends AwaReactiveException {

    private static final long serialVersionUID = 1L;

    private final long jobId;
    private final @Nullable JobState state;

    /**
     * Creates the exception.
     *
     * @param jobId the job id
     * @param state the job's state when it was found (for example {@link JobState#RUNNING} for a claimed job);
     *     null when it was not found
     * @param message what was refused and why
     */
    public JobStateException(long jobId, @Nullable JobState state, String message) {
        super(message);
        this.jobId = jobId;
        this.state = state;
    }

    /**
     * The job the operation named.
     *
     * @return the job id
     */
    public long jobId() {
        return jobId;
    }

    /**
     * The job's state when the operation was refused.
     *
     * @return the state, or null when the job (or its dead-letter row) was not found
     */
    public @Nullable JobState state() {
        return state;
    }
}
