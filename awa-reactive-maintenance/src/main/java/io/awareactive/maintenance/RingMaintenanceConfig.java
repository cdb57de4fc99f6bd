package io.awareactive.maintenance;

import static io.awareactive.core.internal.Validation.requireBetween;
import static io.awareactive.core.internal.Validation.requireLockTimeout;
import static io.awareactive.core.internal.Validation.requireNonNull;
import static io.awareactive.core.internal.Validation.requirePositive;

import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.maintenance.internal.MaintenanceMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Immutable configuration of a {@link RingMaintenance} engine: the storage it maintains, the cadence of every task,
 * leader election, and where it reports. Build it with {@link #builder()}; a setter rejects a bad single value at once
 * with an {@link IllegalArgumentException}, and {@link Builder#build()} rejects a bad combination with an
 * {@link IllegalStateException}. Each message names the option(s), the rule and the value. Instances are thread-safe.
 */
public final class RingMaintenanceConfig {

    /** Default interval of each ring's tick (rotate, then prune): 1 s. */
    public static final Duration DEFAULT_ROTATE_INTERVAL = Duration.ofSeconds(1);
    /** Default interval of the terminal-count rollup tick: 30 s. */
    public static final Duration DEFAULT_ROLLUP_INTERVAL = Duration.ofSeconds(30);
    /** Default number of slots one rollup tick folds at most: 4. */
    public static final int DEFAULT_ROLLUP_MAX_SLOTS = 4;
    /** Default interval of the deferred-job promotion tick: 250 ms. */
    public static final Duration DEFAULT_PROMOTE_INTERVAL = Duration.ofMillis(250);
    /** Default number of due jobs one promotion tick moves at most: 500. */
    public static final int DEFAULT_PROMOTE_BATCH_SIZE = 500;
    /** Default interval of the rescue tick: 10 s. */
    public static final Duration DEFAULT_RESCUE_INTERVAL = Duration.ofSeconds(10);
    /** Default number of stale attempts one rescue tick handles at most: 500. */
    public static final int DEFAULT_RESCUE_BATCH_SIZE = 500;
    /** Default interval of the dead-letter purge tick: 60 s. */
    public static final Duration DEFAULT_DLQ_PURGE_INTERVAL = Duration.ofSeconds(60);
    /** Default number of dead-letter rows one purge transaction deletes at most: 500. */
    public static final int DEFAULT_DLQ_PURGE_BATCH_SIZE = 500;
    /** Default interval at which a follower retries the leader election: 10 s. */
    public static final Duration DEFAULT_LEADER_ELECTION_INTERVAL = Duration.ofSeconds(10);
    /** Default interval at which the leader checks its leader connection: 5 s. */
    public static final Duration DEFAULT_LEADER_CHECK_INTERVAL = Duration.ofSeconds(5);
    /** Default last-resort bound of every task step: 60 s. */
    public static final Duration DEFAULT_TASK_TIMEOUT = Duration.ofSeconds(60);
    /** Default age above which another session's snapshot pins the MVCC horizon for the rollup: 5 s. */
    public static final Duration DEFAULT_MVCC_PIN_MIN_AGE = Duration.ofSeconds(5);
    /** Default transaction-id age above which a session pins the horizon when activity is unreadable: 10,000. */
    public static final long DEFAULT_MVCC_PIN_MIN_XIDS = 10_000;
    /** Largest {@code promoteBatchSize}, {@code rescueBatchSize} and {@code dlqPurgeBatchSize}. */
    public static final int MAX_BATCH_SIZE = 10_000;

    private final QueueStorageConfig queueStorage;
    private final Duration queueRotateInterval;
    private final Duration leaseRotateInterval;
    private final Duration claimRotateInterval;
    private final Duration rollupInterval;
    private final int rollupMaxSlots;
    private final Duration promoteInterval;
    private final int promoteBatchSize;
    private final Duration rescueInterval;
    private final int rescueBatchSize;
    private final Duration dlqPurgeInterval;
    private final int dlqPurgeBatchSize;
    private final Duration leaderElectionInterval;
    private final Duration leaderCheckInterval;
    private final Duration taskTimeout;
    private final Duration mvccPinMinAge;
    private final long mvccPinMinXids;
    private final ConnectionFactory leaderConnectionFactory;
    private final Scheduler scheduler;
    private final Clock clock;
    private final Scheduler outcomeScheduler;
    private final @Nullable MeterRegistry meterRegistry;
    private final Tags meterTags;
    private final boolean blockerDiagnostics;

    private RingMaintenanceConfig(Builder b, QueueStorageConfig queueStorage, ConnectionFactory leaderFactory) {
        this.queueStorage = queueStorage;
        this.queueRotateInterval = b.queueRotateInterval;
        this.leaseRotateInterval = b.leaseRotateInterval;
        this.claimRotateInterval = b.claimRotateInterval;
        this.rollupInterval = b.rollupInterval;
        this.rollupMaxSlots = b.rollupMaxSlots;
        this.promoteInterval = b.promoteInterval;
        this.promoteBatchSize = b.promoteBatchSize;
        this.rescueInterval = b.rescueInterval;
        this.rescueBatchSize = b.rescueBatchSize;
        this.dlqPurgeInterval = b.dlqPurgeInterval;
        this.dlqPurgeBatchSize = b.dlqPurgeBatchSize;
        this.leaderElectionInterval = b.leaderElectionInterval;
        this.leaderCheckInterval = b.leaderCheckInterval;
        this.taskTimeout = b.taskTimeout;
        this.mvccPinMinAge = b.mvccPinMinAge;
        this.mvccPinMinXids = b.mvccPinMinXids;
        this.leaderConnectionFactory = leaderFactory;
        this.scheduler = b.scheduler;
        this.clock = b.clock;
        this.outcomeScheduler = b.outcomeScheduler;
        this.meterRegistry = b.meterRegistry;
        this.meterTags = b.meterTags;
        this.blockerDiagnostics = b.blockerDiagnostics;
    }

    /**
     * A new builder with every option at its default; {@link Builder#queueStorage(QueueStorageConfig)} is required.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The storage configuration the engine uses, with the maintenance {@link Builder#pruneLockTimeout(Duration)
     * override} applied when one was set.
     *
     * @return the effective storage configuration
     */
    public QueueStorageConfig queueStorage() {
        return queueStorage;
    }

    /**
     * The prune lock timeout every prune and rollup transaction sets first (override, else the storage's), in whole
     * milliseconds.
     *
     * @return the effective timeout
     */
    public Duration effectivePruneLockTimeout() {
        return queueStorage.effectivePruneLockTimeout();
    }

    /**
     * The interval of a ring's tick (rotate, already-pruned check, backoff gate, prune).
     *
     * @param ring the ring
     * @return the interval
     */
    public Duration rotateInterval(Ring ring) {
        return switch (ring) {
            case QUEUE -> queueRotateInterval;
            case LEASE -> leaseRotateInterval;
            case CLAIM -> claimRotateInterval;
        };
    }

    /**
     * The interval of the terminal-count rollup tick.
     *
     * @return the interval
     */
    public Duration rollupInterval() {
        return rollupInterval;
    }

    /**
     * The most sealed queue slots one rollup tick folds.
     *
     * @return 1 to 64
     */
    public int rollupMaxSlots() {
        return rollupMaxSlots;
    }

    /**
     * The interval of the deferred-job promotion tick.
     *
     * @return the interval
     */
    public Duration promoteInterval() {
        return promoteInterval;
    }

    /**
     * The most due jobs one promotion tick moves.
     *
     * @return 1 to 10,000
     */
    public int promoteBatchSize() {
        return promoteBatchSize;
    }

    /**
     * The interval of the rescue tick.
     *
     * @return the interval
     */
    public Duration rescueInterval() {
        return rescueInterval;
    }

    /**
     * The most stale attempts one rescue tick handles.
     *
     * @return 1 to 10,000
     */
    public int rescueBatchSize() {
        return rescueBatchSize;
    }

    /**
     * The interval of the dead-letter purge tick, which deletes dead-letter rows older than the storage's
     * {@link QueueStorageConfig#deadLetterRetention()} ({@code QueueStorage.purgeFailedJobs}).
     *
     * @return the interval
     */
    public Duration dlqPurgeInterval() {
        return dlqPurgeInterval;
    }

    /**
     * The most dead-letter rows one purge transaction deletes; a tick runs transactions until one comes back short.
     *
     * @return 1 to 10,000
     */
    public int dlqPurgeBatchSize() {
        return dlqPurgeBatchSize;
    }

    /**
     * How often a follower retries the leader election.
     *
     * @return the interval
     */
    public Duration leaderElectionInterval() {
        return leaderElectionInterval;
    }

    /**
     * How often the leader checks its leader connection.
     *
     * @return the interval
     */
    public Duration leaderCheckInterval() {
        return leaderCheckInterval;
    }

    /**
     * The last-resort bound of every task step; a step still running after it is cancelled (its transaction rolls
     * back).
     *
     * @return the timeout
     */
    public Duration taskTimeout() {
        return taskTimeout;
    }

    /**
     * A snapshot older than this pins the MVCC horizon and skips the rollup.
     *
     * @return the age
     */
    public Duration mvccPinMinAge() {
        return mvccPinMinAge;
    }

    /**
     * Without {@code pg_read_all_stats}, a transaction-id age above this pins the horizon.
     *
     * @return the xid age
     */
    public long mvccPinMinXids() {
        return mvccPinMinXids;
    }

    /**
     * The non-pooling factory of the one physical connection that holds the leader lock.
     *
     * @return the factory
     */
    public ConnectionFactory leaderConnectionFactory() {
        return leaderConnectionFactory;
    }

    /**
     * The scheduler of the ticks, task timeouts and the stop grace.
     *
     * @return the scheduler
     */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * The clock that timestamps events and rate-limits logs.
     *
     * @return the clock
     */
    public Clock clock() {
        return clock;
    }

    /**
     * The scheduler each {@link RingMaintenance#outcomes()} subscriber is drained on.
     *
     * @return the scheduler
     */
    public Scheduler outcomeScheduler() {
        return outcomeScheduler;
    }

    /**
     * The registry the engine's meters are registered with.
     *
     * @return the registry, or {@code null} when metrics are off
     */
    public @Nullable MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /**
     * Fixed tags added to every meter of the engine.
     *
     * @return the tags, empty by default
     */
    public Tags meterTags() {
        return meterTags;
    }

    /**
     * Whether a {@code blocked} prune looks up the sessions holding the conflicting locks.
     *
     * @return true when on
     */
    public boolean blockerDiagnostics() {
        return blockerDiagnostics;
    }

    @Override
    public String toString() {
        return "RingMaintenanceConfig{schema=" + queueStorage.schema() + ", pruneLockTimeout="
                + effectivePruneLockTimeout().toMillis() + "ms, queueRotateInterval=" + queueRotateInterval
                + ", leaseRotateInterval=" + leaseRotateInterval + ", claimRotateInterval=" + claimRotateInterval
                + ", rollupInterval=" + rollupInterval + ", rollupMaxSlots=" + rollupMaxSlots + ", promoteInterval="
                + promoteInterval + ", promoteBatchSize=" + promoteBatchSize + ", rescueInterval=" + rescueInterval
                + ", rescueBatchSize=" + rescueBatchSize + ", dlqPurgeInterval=" + dlqPurgeInterval
                + ", dlqPurgeBatchSize=" + dlqPurgeBatchSize + ", leaderElectionInterval=" + leaderElectionInterval
                + ", leaderCheckInterval=" + leaderCheckInterval + ", taskTimeout=" + taskTimeout
                + ", mvccPinMinAge=" + mvccPinMinAge + ", mvccPinMinXids=" + mvccPinMinXids + ", meterRegistry="
                + (meterRegistry == null ? "none" : meterRegistry.getClass().getSimpleName()) + ", meterTags="
                + meterTags + ", blockerDiagnostics=" + blockerDiagnostics + "}";
    }

    /**
     * Fluent, mutable builder of {@link RingMaintenanceConfig}; not thread-safe. The
     * {@link #pruneLockTimeout(Duration)} override is kept in its own field and resolved in {@link #build()}, so it
     * wins whichever order it and {@link #queueStorage(QueueStorageConfig)} are called in.
     */
    public static final class Builder {

        private @Nullable QueueStorageConfig queueStorage;
        private @Nullable Duration pruneLockTimeout;
        private Duration queueRotateInterval = DEFAULT_ROTATE_INTERVAL;
        private Duration leaseRotateInterval = DEFAULT_ROTATE_INTERVAL;
        private Duration claimRotateInterval = DEFAULT_ROTATE_INTERVAL;
        private Duration rollupInterval = DEFAULT_ROLLUP_INTERVAL;
        private int rollupMaxSlots = DEFAULT_ROLLUP_MAX_SLOTS;
        private Duration promoteInterval = DEFAULT_PROMOTE_INTERVAL;
        private int promoteBatchSize = DEFAULT_PROMOTE_BATCH_SIZE;
        private Duration rescueInterval = DEFAULT_RESCUE_INTERVAL;
        private int rescueBatchSize = DEFAULT_RESCUE_BATCH_SIZE;
        private Duration dlqPurgeInterval = DEFAULT_DLQ_PURGE_INTERVAL;
        private int dlqPurgeBatchSize = DEFAULT_DLQ_PURGE_BATCH_SIZE;
        private Duration leaderElectionInterval = DEFAULT_LEADER_ELECTION_INTERVAL;
        private Duration leaderCheckInterval = DEFAULT_LEADER_CHECK_INTERVAL;
        private Duration taskTimeout = DEFAULT_TASK_TIMEOUT;
        private Duration mvccPinMinAge = DEFAULT_MVCC_PIN_MIN_AGE;
        private long mvccPinMinXids = DEFAULT_MVCC_PIN_MIN_XIDS;
        private @Nullable ConnectionFactory leaderConnectionFactory;
        private Scheduler scheduler = Schedulers.parallel();
        private Clock clock = Clock.systemUTC();
        private Scheduler outcomeScheduler = Schedulers.boundedElastic();
        private @Nullable MeterRegistry meterRegistry;
        private Tags meterTags = Tags.empty();
        private boolean blockerDiagnostics;

        private Builder() {
        }

        /**
         * The storage to maintain; required. Its schema must be installed ({@link RingMaintenance#start()} checks
         * the slot counts).
         *
         * @param config the storage configuration
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder queueStorage(QueueStorageConfig config) {
            this.queueStorage = requireNonNull(config, "queueStorage");
            return this;
        }

        /**
         * Overrides the storage's prune lock timeout for this engine. Unset by default (the storage's value, 10 ms
         * unless configured, applies). Same rules as {@link QueueStorageConfig.Builder#pruneLockTimeout(Duration)}:
         * positive, at most 2,147,483,647 ms, a fraction of a millisecond rounded up. Wins in either call order
         * relative to {@link #queueStorage(QueueStorageConfig)}.
         *
         * @param timeout the timeout
         * @return this builder
         * @throws IllegalArgumentException when null, zero, negative or above the maximum
         */
        public Builder pruneLockTimeout(Duration timeout) {
            this.pruneLockTimeout = requireLockTimeout(timeout, "pruneLockTimeout");
            return this;
        }

        /**
         * Interval of the queue ring's tick (rotate, then prune). Defaults to 1 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder queueRotateInterval(Duration interval) {
            this.queueRotateInterval = requirePositive(interval, "queueRotateInterval");
            return this;
        }

        /**
         * Interval of the lease ring's tick. Defaults to 1 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder leaseRotateInterval(Duration interval) {
            this.leaseRotateInterval = requirePositive(interval, "leaseRotateInterval");
            return this;
        }

        /**
         * Interval of the claim ring's tick. Defaults to 1 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder claimRotateInterval(Duration interval) {
            this.claimRotateInterval = requirePositive(interval, "claimRotateInterval");
            return this;
        }

        /**
         * Interval of the terminal-count rollup tick (rollup, fold, ledger trim). Defaults to 30 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder rollupInterval(Duration interval) {
            this.rollupInterval = requirePositive(interval, "rollupInterval");
            return this;
        }

        /**
         * The most sealed queue slots one rollup tick folds. Defaults to 4; 1 to 64.
         *
         * @param slots the slot count
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder rollupMaxSlots(int slots) {
            this.rollupMaxSlots = requireBetween(slots, 1, Ring.MAX_SLOT_COUNT, "rollupMaxSlots");
            return this;
        }

        /**
         * Interval of the deferred-job promotion tick. Defaults to 250 ms (250 ms to 1 s is sensible); must be
         * positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder promoteInterval(Duration interval) {
            this.promoteInterval = requirePositive(interval, "promoteInterval");
            return this;
        }

        /**
         * The most due jobs one promotion tick moves. Defaults to 500; 1 to 10,000.
         *
         * @param size the batch size
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder promoteBatchSize(int size) {
            this.promoteBatchSize = requireBetween(size, 1, MAX_BATCH_SIZE, "promoteBatchSize");
            return this;
        }

        /**
         * Interval of the rescue tick. Defaults to 10 s (5 to 30 s is sensible); must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder rescueInterval(Duration interval) {
            this.rescueInterval = requirePositive(interval, "rescueInterval");
            return this;
        }

        /**
         * The most stale attempts one rescue tick handles. Defaults to 500; 1 to 10,000.
         *
         * @param size the batch size
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder rescueBatchSize(int size) {
            this.rescueBatchSize = requireBetween(size, 1, MAX_BATCH_SIZE, "rescueBatchSize");
            return this;
        }

        /**
         * Interval of the dead-letter purge tick, which deletes rows older than the storage's
         * {@code deadLetterRetention}, each batch in its own transaction under a transaction-local lock timeout.
         * Defaults to 60 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder dlqPurgeInterval(Duration interval) {
            this.dlqPurgeInterval = requirePositive(interval, "dlqPurgeInterval");
            return this;
        }

        /**
         * The most dead-letter rows one purge transaction deletes. Defaults to 500; 1 to 10,000.
         *
         * @param size the batch size
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder dlqPurgeBatchSize(int size) {
            this.dlqPurgeBatchSize = requireBetween(size, 1, MAX_BATCH_SIZE, "dlqPurgeBatchSize");
            return this;
        }

        /**
         * How often a follower retries the leader election. Defaults to 10 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder leaderElectionInterval(Duration interval) {
            this.leaderElectionInterval = requirePositive(interval, "leaderElectionInterval");
            return this;
        }

        /**
         * How often the leader runs {@code SELECT 1} on its leader connection; on failure it gives leadership up
         * and re-enters the election. Defaults to 5 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder leaderCheckInterval(Duration interval) {
            this.leaderCheckInterval = requirePositive(interval, "leaderCheckInterval");
            return this;
        }

        /**
         * The last-resort bound of every task step (a rotation, a prune, a rollup, a promotion batch, ...). A step
         * still running after it is cancelled and its transaction rolls back; a prune then reports {@code error}.
         * Defaults to 60 s; must be positive and greater than the effective prune lock timeout (checked by
         * {@link #build()}).
         *
         * @param timeout the timeout
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder taskTimeout(Duration timeout) {
            this.taskTimeout = requirePositive(timeout, "taskTimeout");
            return this;
        }

        /**
         * A snapshot older than this, held by another session, pins the MVCC horizon and skips the rollup.
         * Defaults to 5 s; must be positive.
         *
         * @param age the age
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder mvccPinMinAge(Duration age) {
            this.mvccPinMinAge = requirePositive(age, "mvccPinMinAge");
            return this;
        }

        /**
         * Without {@code pg_read_all_stats}, a session whose {@code age(backend_xmin)} or {@code age(backend_xid)}
         * exceeds this pins the horizon. Defaults to 10,000; must be positive.
         *
         * @param xids the transaction-id age
         * @return this builder
         * @throws IllegalArgumentException when not positive
         */
        public Builder mvccPinMinXids(long xids) {
            if (xids <= 0) {
                throw new IllegalArgumentException("mvccPinMinXids must be greater than 0, was " + xids);
            }
            this.mvccPinMinXids = xids;
            return this;
        }

        /**
         * The factory of the one dedicated physical connection that holds the session-level leader lock for the
         * whole leadership. It must not pool: a pooled connection would carry the lock back into the pool. Defaults
         * to the storage's factory, unwrapped with {@link ConnectionPool#unwrap()} when it is an r2dbc-pool.
         *
         * @param factory a non-pooling factory
         * @return this builder
         * @throws IllegalArgumentException when null or an r2dbc-pool {@link ConnectionPool}
         */
        public Builder leaderConnectionFactory(ConnectionFactory factory) {
            requireNonNull(factory, "leaderConnectionFactory");
            if (factory instanceof ConnectionPool) {
                throw new IllegalArgumentException("leaderConnectionFactory must not pool connections (pass"
                        + " ConnectionPool.unwrap()), was " + factory.getClass().getName());
            }
            this.leaderConnectionFactory = factory;
            return this;
        }

        /**
         * The scheduler of the ticks ({@code Flux.interval}), task timeouts, the leader check and the stop grace.
         * Defaults to {@link Schedulers#parallel()}; inject a {@code VirtualTimeScheduler} in tests. The engine
         * never disposes it.
         *
         * @param scheduler the scheduler
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * The clock of event timestamps and log rate limits. Defaults to the UTC system clock; inject one matching
         * a virtual-time scheduler in tests.
         *
         * @param clock the clock
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder clock(Clock clock) {
            this.clock = requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The scheduler each {@link RingMaintenance#outcomes()} subscriber is drained on, so a slow subscriber never
         * runs on the maintenance thread. Defaults to {@link Schedulers#boundedElastic()}; never disposed by the
         * engine.
         *
         * @param scheduler the scheduler
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder outcomeScheduler(Scheduler scheduler) {
            this.outcomeScheduler = requireNonNull(scheduler, "outcomeScheduler");
            return this;
        }

        /**
         * The registry for the engine's meters ({@link MaintenanceMeters}), all registered eagerly at zero when the
         * engine is created and removed when it stops. Unset by default (no metrics).
         *
         * @param registry the registry
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = requireNonNull(registry, "meterRegistry");
            return this;
        }

        /**
         * Fixed tags added to every meter, for example {@code awa.schema}. Empty by default. Bounded values only;
         * the engine's own tag keys ({@code awa.ring}, {@code awa.ring.outcome}, ...) are reserved.
         *
         * @param tags the tags
         * @return this builder
         * @throws IllegalArgumentException when null or using a reserved key
         */
        public Builder meterTags(Iterable<Tag> tags) {
            Tags copy = Tags.of(requireNonNull(tags, "meterTags"));
            for (Tag tag : copy) {
                if (MaintenanceMetrics.RESERVED_TAG_KEYS.contains(tag.getKey())) {
                    throw new IllegalArgumentException("meterTags must not use the reserved tag key "
                            + tag.getKey() + ", was " + copy);
                }
            }
            this.meterTags = copy;
            return this;
        }

        /**
         * Whether a {@code blocked} prune looks up the sessions holding the conflicting locks (one query joining
         * {@code pg_locks} to {@code pg_stat_activity}), attaches them to the {@link PruneEvent} and logs them in a
         * rate-limited WARN. Off by default.
         *
         * @param enabled true to turn it on
         * @return this builder
         */
        public Builder blockerDiagnostics(boolean enabled) {
            this.blockerDiagnostics = enabled;
            return this;
        }

        /**
         * Applies the lock-timeout override, derives the leader connection factory, checks the cross-option rules and
         * builds the configuration.
         *
         * @return the configuration
         * @throws IllegalStateException when {@code queueStorage} is missing, or {@code taskTimeout} is not greater
         *     than the effective {@code pruneLockTimeout}
         */
        public RingMaintenanceConfig build() {
            if (queueStorage == null) {
                throw new IllegalStateException("queueStorage must be set");
            }
            QueueStorageConfig storage = pruneLockTimeout == null
                    ? queueStorage
                    : queueStorage.mutate().pruneLockTimeout(pruneLockTimeout).build();
            Duration lockTimeout = storage.effectivePruneLockTimeout();
            if (taskTimeout.compareTo(lockTimeout) <= 0) {
                throw new IllegalStateException("taskTimeout must be greater than the effective pruneLockTimeout, was "
                        + taskTimeout + " with pruneLockTimeout " + lockTimeout.toMillis() + " ms");
            }
            ConnectionFactory leaderFactory = leaderConnectionFactory;
            if (leaderFactory == null) {
                ConnectionFactory storageFactory = storage.connectionFactory();
                leaderFactory = storageFactory instanceof ConnectionPool pool ? pool.unwrap() : storageFactory;
            }
            return new RingMaintenanceConfig(this, storage, leaderFactory);
        }
    }
}
