package io.awareactive.maintenance;

import static io.awareactive.core.internal.Validation.requireBetween;
import static io.awareactive.core.internal.Validation.requireNonNull;
import static io.awareactive.core.internal.Validation.requirePositive;

import io.awareactive.core.Ring;
import io.awareactive.maintenance.TaskOptions.Batch;
import io.awareactive.maintenance.TaskOptions.BatchSpec;
import io.awareactive.maintenance.TaskOptions.Rollup;
import io.awareactive.maintenance.TaskOptions.RollupSpec;
import io.awareactive.maintenance.TaskOptions.Tick;
import io.awareactive.maintenance.TaskOptions.TickSpec;
import io.awareactive.maintenance.internal.MaintenanceMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Immutable configuration of a {@link RingMaintenance} engine: the cadence and options of every task, leader
 * election, and where it reports. Each task's options are grouped under the task
 * ({@code .promote(p -> p.interval(Duration.ofMillis(500)).batchSize(200))}). The storage it maintains, with its
 * connections and prune lock timeout, is passed to
 * {@link RingMaintenance#create(io.awareactive.core.QueueStorage, RingMaintenanceConfig)}. Build it with
 * {@link #builder()}; every setter rejects a bad value at once, before any SQL, with an
 * {@link IllegalArgumentException} whose message names the option ({@code promote.batchSize} for a task's option),
 * the rule and the value. Instances are thread-safe.
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

    private final Map<Ring, Tick> rotate;
    private final Rollup rollup;
    private final Batch promote;
    private final Batch rescue;
    private final Batch dlqPurge;
    private final Duration leaderElectionInterval;
    private final Duration leaderCheckInterval;
    private final Duration taskTimeout;
    private final @Nullable ConnectionFactory leaderConnectionFactory;
    private final Scheduler scheduler;
    private final Clock clock;
    private final Scheduler outcomeScheduler;
    private final @Nullable MeterRegistry meterRegistry;
    private final Tags meterTags;
    private final boolean blockerDiagnostics;

    private RingMaintenanceConfig(Builder b) {
        Map<Ring, Tick> ticks = new EnumMap<>(Ring.class);
        b.rotate.forEach((ring, spec) -> ticks.put(ring, spec.build()));
        this.rotate = ticks;
        this.rollup = b.rollup.build();
        this.promote = b.promote.build();
        this.rescue = b.rescue.build();
        this.dlqPurge = b.dlqPurge.build();
        this.leaderElectionInterval = b.leaderElectionInterval;
        this.leaderCheckInterval = b.leaderCheckInterval;
        this.taskTimeout = b.taskTimeout;
        this.leaderConnectionFactory = b.leaderConnectionFactory;
        this.scheduler = b.scheduler;
        this.clock = b.clock;
        this.outcomeScheduler = b.outcomeScheduler;
        this.meterRegistry = b.meterRegistry;
        this.meterTags = b.meterTags;
        this.blockerDiagnostics = b.blockerDiagnostics;
    }

    /**
     * A new builder with every option at its default.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The options of a ring's tick (rotate, already-pruned check, backoff gate, prune).
     *
     * @param ring the ring
     * @return the tick options
     */
    public Tick rotate(Ring ring) {
        return rotate.get(ring);
    }

    /**
     * The options of the terminal-count rollup task (rollup, fold, ledger trim).
     *
     * @return the rollup options
     */
    public Rollup rollup() {
        return rollup;
    }

    /**
     * The options of the deferred-job promotion task: due jobs moved per tick.
     *
     * @return the promotion options
     */
    public Batch promote() {
        return promote;
    }

    /**
     * The options of the rescue task: stale attempts handled per tick.
     *
     * @return the rescue options
     */
    public Batch rescue() {
        return rescue;
    }

    /**
     * The options of the dead-letter purge task, which deletes dead-letter rows older than the storage's
     * {@code QueueStorageConfig.deadLetterRetention()}; a tick runs transactions of {@code batchSize} rows until one
     * comes back short.
     *
     * @return the purge options
     */
    public Batch dlqPurge() {
        return dlqPurge;
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
     * The non-pooling factory of the one physical connection that holds the leader lock, when one was set.
     *
     * @return the factory, or {@code null} for the storage's factory (unwrapped when it is an r2dbc-pool)
     */
    public @Nullable ConnectionFactory leaderConnectionFactory() {
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
        return "RingMaintenanceConfig{rotate=" + rotate + ", rollup=" + rollup + ", promote=" + promote
                + ", rescue=" + rescue + ", dlqPurge=" + dlqPurge + ", leaderElectionInterval="
                + leaderElectionInterval + ", leaderCheckInterval=" + leaderCheckInterval + ", taskTimeout="
                + taskTimeout + ", meterRegistry="
                + (meterRegistry == null ? "none" : meterRegistry.getClass().getSimpleName()) + ", meterTags="
                + meterTags + ", blockerDiagnostics=" + blockerDiagnostics + "}";
    }

    /** Fluent, mutable builder of {@link RingMaintenanceConfig}; not thread-safe. */
    public static final class Builder {

        private final Map<Ring, TickSpec> rotate = new EnumMap<>(Ring.class);
        private final RollupSpec rollup = new RollupSpec();
        private final BatchSpec promote = new BatchSpec("promote", DEFAULT_PROMOTE_INTERVAL,
                DEFAULT_PROMOTE_BATCH_SIZE);
        private final BatchSpec rescue = new BatchSpec("rescue", DEFAULT_RESCUE_INTERVAL, DEFAULT_RESCUE_BATCH_SIZE);
        private final BatchSpec dlqPurge = new BatchSpec("dlqPurge", DEFAULT_DLQ_PURGE_INTERVAL,
                DEFAULT_DLQ_PURGE_BATCH_SIZE);
        private Duration leaderElectionInterval = DEFAULT_LEADER_ELECTION_INTERVAL;
        private Duration leaderCheckInterval = DEFAULT_LEADER_CHECK_INTERVAL;
        private Duration taskTimeout = DEFAULT_TASK_TIMEOUT;
        private @Nullable ConnectionFactory leaderConnectionFactory;
        private Scheduler scheduler = Schedulers.parallel();
        private Clock clock = Clock.systemUTC();
        private Scheduler outcomeScheduler = Schedulers.boundedElastic();
        private @Nullable MeterRegistry meterRegistry;
        private Tags meterTags = Tags.empty();
        private boolean blockerDiagnostics;

        private Builder() {
            for (Ring ring : Ring.values()) {
                rotate.put(ring, new TickSpec(ring));
            }
        }

        /**
         * Sets options of a ring's tick (rotate, then prune): {@code interval} defaults to 1 s. Options not set keep
         * their current value; calls add up.
         *
         * @param ring the ring
         * @param options sets the options, for example {@code t -> t.interval(Duration.ofMillis(500))}
         * @return this builder
         * @throws IllegalArgumentException when {@code ring} or {@code options} is null, or a value breaks its rule
         */
        public Builder rotate(Ring ring, Consumer<TickSpec> options) {
            requireNonNull(options, "options").accept(rotate.get(requireNonNull(ring, "ring")));
            return this;
        }

        /**
         * Sets options of the terminal-count rollup (rollup, fold, ledger trim): {@code interval} 30 s,
         * {@code maxSlots} 4, {@code mvccPinMinAge} 5 s and {@code mvccPinMinXids} 10,000 by default.
         *
         * @param options sets the options
         * @return this builder
         * @throws IllegalArgumentException when {@code options} is null or a value breaks its rule
         */
        public Builder rollup(Consumer<RollupSpec> options) {
            requireNonNull(options, "options").accept(rollup);
            return this;
        }

        /**
         * Sets options of the deferred-job promotion: {@code interval} 250 ms (250 ms to 1 s is sensible) and
         * {@code batchSize} 500 by default.
         *
         * @param options sets the options
         * @return this builder
         * @throws IllegalArgumentException when {@code options} is null or a value breaks its rule
         */
        public Builder promote(Consumer<BatchSpec> options) {
            requireNonNull(options, "options").accept(promote);
            return this;
        }

        /**
         * Sets options of the rescue of stale attempts: {@code interval} 10 s (5 to 30 s is sensible) and
         * {@code batchSize} 500 by default.
         *
         * @param options sets the options
         * @return this builder
         * @throws IllegalArgumentException when {@code options} is null or a value breaks its rule
         */
        public Builder rescue(Consumer<BatchSpec> options) {
            requireNonNull(options, "options").accept(rescue);
            return this;
        }

        /**
         * Sets options of the dead-letter purge, which deletes rows older than the storage's
         * {@code deadLetterRetention}, each batch in its own transaction under a transaction-local lock timeout:
         * {@code interval} 60 s and {@code batchSize} (rows per transaction) 500 by default.
         *
         * @param options sets the options
         * @return this builder
         * @throws IllegalArgumentException when {@code options} is null or a value breaks its rule
         */
        public Builder dlqPurge(Consumer<BatchSpec> options) {
            requireNonNull(options, "options").accept(dlqPurge);
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
         * Defaults to 60 s; must be positive and greater than the storage's prune lock timeout (checked by
         * {@link RingMaintenance#create(io.awareactive.core.QueueStorage, RingMaintenanceConfig)}).
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
         * Builds the configuration (every single value was checked by its setter).
         *
         * @return the configuration
         */
        public RingMaintenanceConfig build() {
            return new RingMaintenanceConfig(this);
        }
    }
}
