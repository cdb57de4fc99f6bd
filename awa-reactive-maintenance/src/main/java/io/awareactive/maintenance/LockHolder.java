package io.awareactive.maintenance;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A session that held a lock conflicting with a {@code blocked} prune: a granted lock on one of the target slot's
 * children, on the ring's slot table, or on the ring's serializer key. Without {@code pg_read_all_stats} (or
 * {@code pg_monitor}) the maintenance role sees only {@code pid}, {@code applicationName} and {@code backendXmin} of
 * other roles' sessions; the other components are then {@code null}.
 *
 * @param pid the backend process id
 * @param applicationName the session's {@code application_name}
 * @param backendXmin the session's snapshot horizon ({@code backend_xmin}), if it holds one
 * @param state the session state ({@code active}, {@code idle in transaction}, ...)
 * @param transactionAge how long its current transaction has run
 * @param waitEvent what it is waiting for, if anything
 * @param query its current or last query, at most 256 characters
 */
public record LockHolder(int pid, @Nullable String applicationName, @Nullable Long backendXmin,
        @Nullable String state, @Nullable Duration transactionAge, @Nullable String waitEvent,
        @Nullable String query) {

    /** The longest {@link #query()} kept. */
    public static final int MAX_QUERY_LENGTH = 256;
}
