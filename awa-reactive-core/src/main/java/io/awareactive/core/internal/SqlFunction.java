package io.awareactive.core.internal;

/**
 * The server-side functions Java calls, one constant each, so run-time statements name them only through
 * {@link Schema#function(SqlFunction)}. Helpers that only other functions call are not listed.
 */
public enum SqlFunction {
    /** Creates a lane's row, claim head and sequences (runs DDL, so always in its own transaction). */
    CREATE_LANE("create_lane"),
    /** Enqueues a batch into one lane of the current queue slot. */
    ENQUEUE_LANE("enqueue_lane"),
    /** Claims a batch of a queue's ready jobs in one statement (one commit). */
    CLAIM_JOBS("claim_jobs_v2"),
    /** Moves lanes' cursors forward after a move that spent a source row committed. */
    ADVANCE_CLAIM_CURSORS("advance_claim_cursors"),
    /** Ends an attempt: completes, retries, fails or releases it. */
    END_ATTEMPT("end_attempt"),
    /** Completes a batch of attempts in one statement (one commit). */
    COMPLETE_ATTEMPTS("complete_attempts"),
    /** Retries or fails attempts with a stale heartbeat or a passed deadline. */
    RESCUE_JOBS("rescue_jobs"),
    /** Moves due deferred jobs into the current queue slot. */
    PROMOTE_JOBS("promote_jobs"),
    /** Cancels a job not yet claimed. */
    CANCEL_JOB("cancel_job"),
    /** A job's state by id. */
    JOB_STATUS("job_status"),
    /** Moves a job no worker has claimed to another queue or priority. */
    MOVE_JOB("move_job"),
    /** Re-enqueues dead-lettered jobs and deletes their rows. */
    RETRY_FAILED_JOBS("retry_failed_jobs");

    private final String sqlName;

    SqlFunction(String sqlName) {
        this.sqlName = sqlName;
    }

    /**
     * The unquoted name in the installation's schema.
     *
     * @return for example {@code claim_jobs}
     */
    public String sqlName() {
        return sqlName;
    }
}
