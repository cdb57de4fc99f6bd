package io.awareactive.maintenance;

import static io.awareactive.core.internal.Validation.requireNonNull;
import static io.awareactive.core.internal.Validation.requirePositive;

import io.awareactive.maintenance.internal.MaintenanceMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Immutable configuration of a {@link RingMaintenance} engine: the cadence and options of every task, leader
 * election, and where it reports. Each task's options are grouped under the task
 * ({@code .task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofMillis(500)).batchSize(200))}); the tasks and their
 * defaults are {@link MaintenanceTask#values()}. The storage it maintains, with its
 * connections and prune lock timeout, is passed to
 * {@link RingMaintenance#create(io.awareactive.core.QueueStorage, RingMaintenanceConfig)}. Build it with
 * {@link #builder()}; every setter rejects a bad value at once, before any SQL, with an
 * {@link IllegalArgumentException} whose message names the option ({@code promote.batchSize} for a task's option),
 * the rule and the value. Instances are thread-safe.
 */
public final class RingMaintenanceConfig {

    /** Default interval at which a follower retries the leader election: 10 s. */
    public static final Duration DEFAULT_LEADER_ELECTION_INTERVAL = Duration.ofSeconds(10);
    /** Default interval at which the leader checks its leader connection: 5 s. */
    public static final Duration DEFAULT_LEADER_CHECK_INTERVAL = Duration.ofSeconds(5);
    /** Default last-resort bound of every task step: 60 s. */
    public static final Duration DEFAULT_TASK_TIMEOUT = Duration.ofSeconds(60);

    private final Map<MaintenanceTask<?>, TaskOptions<?>> tasks;
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
        this.tasks = new LinkedHashMap<>(b.tasks);
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
     * The options a task runs with: its {@link MaintenanceTask#defaults() defaults} unless
     * {@link Builder#task(MaintenanceTask, UnaryOperator)} changed them.
     *
     * @param task the task
     * @param <O> the task's options type
     * @return the options
     * @throws IllegalArgumentException when {@code task} is null
     */
    @SuppressWarnings("unchecked") // the builder stores an O for each MaintenanceTask<O>
    public <O extends TaskOptions<O>> O task(MaintenanceTask<O> task) {
        return (O) tasks.get(requireNonNull(task, "task"));
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
        return "RingMaintenanceConfig{tasks=" + tasks + ", leaderElectionInterval="
                + leaderElectionInterval + ", leaderCheckInterval=" + leaderCheckInterval + ", taskTimeout="
                + taskTimeout + ", meterRegistry="
                + (meterRegistry == null ? "none" : meterRegistry.getClass().getSimpleName()) + ", meterTags="
                + meterTags + ", blockerDiagnostics=" + blockerDiagnostics + "}";
    }

    /** Fluent, mutable builder of {@link RingMaintenanceConfig}; not thread-safe. */
    public static final class Builder {

        private final Map<MaintenanceTask<?>, TaskOptions<?>> tasks = new LinkedHashMap<>();
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
            for (MaintenanceTask<?> task : MaintenanceTask.values()) {
                tasks.put(task, task.defaults());
            }
        }

        /**
         * Sets options of one task, for example
         * {@code .task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofMillis(500)).batchSize(200))}. The
         * function gets the task's current options (its {@link MaintenanceTask#defaults() defaults} at first) and
         * returns the new ones; options it does not set keep their value, and calls add up. Each task's options, their
         * defaults and rules are documented on {@link MaintenanceTask} and {@link TaskOptions}.
         *
         * @param task the task
         * @param options returns the new options from the current ones
         * @param <O> the task's options type
         * @return this builder
         * @throws IllegalArgumentException when an argument or the result is null, or a value breaks its rule (the
         *     message names the option after the task's label, for example
         *     {@code dlq_purge.batchSize must be between 1 and 10000, was 0})
         */
        public <O extends TaskOptions<O>> Builder task(MaintenanceTask<O> task, UnaryOperator<O> options) {
            requireNonNull(task, "task");
            requireNonNull(options, "options");
            @SuppressWarnings("unchecked") // this map holds an O for each MaintenanceTask<O>
            O current = (O) tasks.get(task);
            O updated;
            try {
                updated = options.apply(current);
            } catch (IllegalArgumentException invalid) {
                // The message is complete; no cause, so the root cause of a failed startup carries the task's name.
                throw new IllegalArgumentException(task.label() + "." + invalid.getMessage());
            }
            tasks.put(task, requireNonNull(updated, task.label() + " options"));
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
