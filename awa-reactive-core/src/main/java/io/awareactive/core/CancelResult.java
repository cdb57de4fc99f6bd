package io.awareactive.core;

/** What {@link QueueStorage#cancel(long)} did. */
public enum CancelResult {
    /** The job was cancelled: it will never run. */
    CANCELLED,
    /** The job was claimed, finished or cancelled already: nothing was written. */
    NOT_CANCELLABLE,
    /** No such job in the deferred table or the queue ring (unknown, or pruned): nothing was written. */
    NOT_FOUND
}
