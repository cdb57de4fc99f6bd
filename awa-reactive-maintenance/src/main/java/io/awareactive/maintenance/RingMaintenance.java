package io.awareactive.maintenance;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.ring.RingOperations;
import io.awareactive.maintenance.internal.EngineSql;
import io.awareactive.maintenance.internal.MaintenanceEngine;
import io.awareactive.maintenance.internal.PostgresEngineSql;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The ring-maintenance engine of one schema: keeps every ring recycling (rotate, prune), folds terminal counts,
 * promotes scheduled jobs, rescues stale attempts, purges dead-letter rows past their retention, reports every prune
 * outcome, and exposes Micrometer meters.
 *
 * <p><b>Leadership.</b> Any number of engines may run against one schema; one leads, elected through a
 * session-level {@code pg_try_advisory_lock} held on one dedicated physical connection (see
 * {@link RingMaintenanceConfig.Builder#leaderConnectionFactory}). Followers retry every
 * {@code leaderElectionInterval}; the leader checks its connection every {@code leaderCheckInterval} and gives
 * leadership up when the check fails. Whatever the leaders do, two rotations, prunes or rollups of one ring never run
 * at once: the ring's serializer answers a competitor {@code serializer_busy} at once.
 *
 * <p><b>Loop.</b> The leader runs one task at a time (ring ticks, rollup, promotion, rescue, dead-letter purge), each
 * on its own interval; a tick arriving while the loop is busy waits (one per task) or is dropped and counted in
 * {@code awa.maintenance.ticks.dropped}. No failure ends the loop: a prune failure is an {@code error} outcome, any
 * other step's failure is logged (rate-limited) and counted in {@code awa.maintenance.task.failures}, and every step
 * is bounded by {@code taskTimeout}.
 *
 * <p><b>Threading.</b> Every method is non-blocking; ticks run on the configured scheduler (or the driver's threads).
 * Creating an engine does no I/O and starts nothing but registers its meters at zero. Instances are thread-safe.
 */
public final class RingMaintenance {

    private final RingMaintenanceConfig config;
    private final MaintenanceEngine engine;

    private RingMaintenance(RingMaintenanceConfig config, RingOperations ops, EngineSql sql) {
        this.config = config;
        this.engine = new MaintenanceEngine(config, ops, sql, MaintenanceTask.scheduledAll(config));
    }

    /**
     * Creates the engine of one storage and registers its meters (when a registry is configured). Does no I/O. Ring
     * work runs on the storage's connections (one pool for the storage and its engine) under the storage's
     * {@link io.awareactive.core.QueueStorageConfig#pruneLockTimeout() prune lock timeout}; the leader lock is held on
     * one connection of {@link RingMaintenanceConfig#leaderConnectionFactory()}, by default the storage's factory
     * (unwrapped with {@link ConnectionPool#unwrap()} when it is an r2dbc-pool).
     *
     * @param storage the storage to maintain; its schema must be installed ({@link #start()} checks the slot counts)
     * @param config the engine configuration
     * @return the engine, not started
     * @throws IllegalArgumentException when {@code storage} or {@code config} is null, or when
     *     {@code config.taskTimeout()} is not greater than the storage's effective {@code pruneLockTimeout} (the
     *     message names both options and values)
     */
    public static RingMaintenance create(QueueStorage storage, RingMaintenanceConfig config) {
        if (storage == null) {
            throw new IllegalArgumentException("storage must not be null");
        }
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        RingOperations ops = storage.ringOperations();
        requireTaskTimeoutAboveLockTimeout(ops, config);
        return new RingMaintenance(config, ops, new PostgresEngineSql(leaderFactory(ops, config), ops));
    }

    /** The cross-object rule: a step's last-resort bound must exceed the lock timeout it may wait for. */
    static void requireTaskTimeoutAboveLockTimeout(RingOperations ops, RingMaintenanceConfig config) {
        Duration lockTimeout = ops.pruneLockTimeout();
        if (config.taskTimeout().compareTo(lockTimeout) <= 0) {
            throw new IllegalArgumentException("taskTimeout must be greater than the storage's pruneLockTimeout, was "
                    + config.taskTimeout() + " with pruneLockTimeout " + lockTimeout.toMillis() + " ms");
        }
    }

    /** The configured leader connection factory, else the storage's, unwrapped when it is an r2dbc-pool. */
    static ConnectionFactory leaderFactory(RingOperations ops, RingMaintenanceConfig config) {
        ConnectionFactory configured = config.leaderConnectionFactory();
        if (configured != null) {
            return configured;
        }
        ConnectionFactory storageFactory = ops.connectionFactory();
        return storageFactory instanceof ConnectionPool pool ? pool.unwrap() : storageFactory;
    }

    /** For tests of the loop's own scheduling: the same engine over substitute ring work and engine SQL. */
    static RingMaintenance create(RingMaintenanceConfig config, RingOperations ops, EngineSql sql) {
        return new RingMaintenance(config, ops, sql);
    }

    /**
     * The configuration this engine was created with.
     *
     * @return the configuration
     */
    public RingMaintenanceConfig config() {
        return config;
    }

    /**
     * Verifies that the schema is installed with the configured slot counts, runs {@link #diagnose()} (warnings are
     * logged), and enters the leader election; the first election attempt follows at once, and a leader's first
     * ticks come one interval after it won. A second call logs a WARN once and does nothing.
     *
     * @return completion once the election runs; an error ({@code AwaReactiveException}) when the schema is not
     *     installed or its slot counts differ, in which case nothing was started and {@code start()} may be retried
     */
    public Mono<Void> start() {
        return engine.start();
    }

    /**
     * Stops the engine: ends the ticks, lets a running task finish within {@code grace} (after that it is cancelled
     * and its transaction rolls back), unlocks and closes the leader connection, removes the meters and completes
     * {@link #outcomes()}. Safe before {@link #start()} and when repeated (a repeat logs a WARN once and completes
     * with the first stop).
     *
     * @param grace how long a running task may still take; zero cancels it at once
     * @return completion
     * @throws IllegalArgumentException when {@code grace} is null or negative
     */
    public Mono<Void> stop(Duration grace) {
        if (grace == null || grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be null or negative, was " + grace);
        }
        return engine.stop(grace);
    }

    /**
     * Every prune outcome of this engine's ring ticks, as it happens: one {@link PruneEvent} per ring tick that
     * reached the already-pruned check, the backoff gate or a prune (a failed rotation emits none).
     *
     * <p>The stream is <b>hot</b> and multicast: it does not replay, a subscriber sees only events after it
     * subscribed, and it completes when the engine stops. Each subscriber gets its own buffer of 32 events, drained
     * on the configured {@code outcomeScheduler}: a slow subscriber loses the events that do not fit, but never runs
     * on, or slows, the maintenance thread or other subscribers.
     *
     * @return the outcome stream
     */
    public Flux<PruneEvent> outcomes() {
        return engine.outcomes();
    }

    /**
     * Runs the startup diagnostics on one maintenance-pool connection: warns when the effective prune lock timeout
     * is at least {@code deadlock_timeout}, or at least a non-zero {@code statement_timeout} or
     * {@code transaction_timeout} (as this connection sees them, and as {@code pg_db_role_setting} sets them for new
     * connections of this role and database, in PostgreSQL's precedence order), and when the role is not a member of
     * {@code pg_read_all_stats}. Each warning is also logged at WARN. Runs at {@link #start()} and at each new
     * leadership. Best effort: a failed read is logged at DEBUG and yields no warning, so silence proves nothing about
     * other pooled connections.
     *
     * @return the warnings, possibly empty; never an error
     */
    public Mono<List<StartupWarning>> diagnose() {
        return engine.diagnose();
    }

    /**
     * Whether this engine currently holds the leader lock. Two engines may both report {@code true} for up to
     * {@code leaderCheckInterval} after the old leader's connection died.
     *
     * @return true while leading
     */
    public boolean isLeader() {
        return engine.isLeader();
    }

    /**
     * Whether {@link #stop(Duration)} has completed.
     *
     * @return true once stopped
     */
    public boolean isDisposed() {
        return engine.isDisposed();
    }
}
