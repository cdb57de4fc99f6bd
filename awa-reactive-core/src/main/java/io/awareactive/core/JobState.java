package io.awareactive.core;

import java.util.Locale;

/** Where a job is in its lifecycle, as {@link QueueStorage#status(long)} reads it. */
public enum JobState {
    /** Waiting in the deferred table for its {@code runAt} or retry backoff; promoted by a maintenance engine. */
    SCHEDULED,
    /** Ready in the queue, not yet claimed. */
    AVAILABLE,
    /** Claimed: an attempt is running. */
    RUNNING,
    /** Finished successfully (terminal). */
    COMPLETED,
    /** Failed with no attempts left (terminal). */
    FAILED,
    /** Cancelled before it was claimed (terminal). */
    CANCELLED;

    /**
     * Whether the state is final.
     *
     * @return true for completed, failed and cancelled
     */
    public boolean isTerminal() {
        return this == COMPLETED || this == FAILED || this == CANCELLED;
    }

    /**
     * The lower-case label used in the database.
     *
     * @return the label
     */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static JobState fromLabel(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
