package io.awareactive.maintenance;

import java.util.Objects;

/**
 * A configuration problem found by {@link RingMaintenance#diagnose()}. Absence of warnings proves nothing about
 * other pooled connections: session settings, roles and {@code SET ROLE} may differ, and server settings can change.
 *
 * @param kind what was found
 * @param message a sentence naming the setting, its value and source, and the effective prune lock timeout
 */
public record StartupWarning(Kind kind, String message) {

    /**
     * Creates the warning.
     *
     * @param kind what was found
     * @param message the explanation
     */
    public StartupWarning {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }

    /** The kinds of startup warning. */
    public enum Kind {
        /**
         * The prune lock timeout is at least {@code deadlock_timeout}: a waiting prune runs the deadlock detector,
         * which may cancel a claim or enqueue (40P01) instead of the prune.
         */
        LOCK_TIMEOUT_NOT_BELOW_DEADLOCK_TIMEOUT,
        /** The prune lock timeout is at least a non-zero {@code statement_timeout}: blocked prunes become errors. */
        LOCK_TIMEOUT_NOT_BELOW_STATEMENT_TIMEOUT,
        /** The prune lock timeout is at least a non-zero {@code transaction_timeout} (PostgreSQL 17+). */
        LOCK_TIMEOUT_NOT_BELOW_TRANSACTION_TIMEOUT,
        /**
         * The maintenance role is not a member of {@code pg_read_all_stats} (or {@code pg_monitor}): the rollup's
         * horizon check and blocker diagnostics degrade.
         */
        MISSING_READ_ALL_STATS
    }
}
