package io.awareactive.core;

import static io.awareactive.core.internal.Validation.requireBetween;
import static io.awareactive.core.internal.Validation.requireLockTimeout;
import static io.awareactive.core.internal.Validation.requireNonNull;
import static io.awareactive.core.internal.Validation.requireNotNegative;
import static io.awareactive.core.internal.Validation.requirePositive;
import static io.awareactive.core.internal.Validation.requireSchemaName;

import io.awareactive.core.internal.Validation;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Immutable configuration of a {@link QueueStorage}: where the schema lives, its ring sizes, the prune lock timeout
 * and the job-lifecycle settings. Build it with {@link #builder()}; a setter rejects a bad single value at once with
 * an {@link IllegalArgumentException}, and {@link Builder#build()} rejects a bad combination with an
 * {@link IllegalStateException}. Each message names the option, the rule and the value. Instances are thread-safe.
 */
public final class QueueStorageConfig {

    /** Default schema name. */
    public static final String DEFAULT_SCHEMA = "awa_reactive";
    /** Default queue ring slot count. */
    public static final int DEFAULT_QUEUE_SLOT_COUNT = Ring.QUEUE.defaultSlotCount();
    /** Default lease ring slot count. */
    public static final int DEFAULT_LEASE_SLOT_COUNT = Ring.LEASE.defaultSlotCount();
    /** Default claim ring slot count. */
    public static final int DEFAULT_CLAIM_SLOT_COUNT = Ring.CLAIM.defaultSlotCount();
    /** Default prune lock timeout. */
    public static final Duration DEFAULT_PRUNE_LOCK_TIMEOUT = Duration.ofMillis(10);
    /** Default interval between a worker's heartbeats. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(5);
    /** Default age of the last heartbeat after which rescue takes an attempt back. */
    public static final Duration DEFAULT_LEASE_STALE_AFTER = Duration.ofSeconds(30);
    /** Default delay before the first retry. */
    public static final Duration DEFAULT_RETRY_BACKOFF_BASE = Duration.ofSeconds(1);
    /** Default growth factor of the retry delay per attempt. */
    public static final double DEFAULT_RETRY_BACKOFF_FACTOR = 2.0;
    /** Default cap of the retry delay. */
    public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofHours(1);
    /** Default random spread of the retry delay (0.2 = plus or minus 20 %). */
    public static final double DEFAULT_RETRY_BACKOFF_JITTER = 0.2;
    /** Default largest JSON argument size, in bytes (1 MiB). */
    public static final int DEFAULT_MAX_ARGS_BYTES = 1024 * 1024;
    /** Default retention of terminally failed jobs in the dead-letter table. */
    public static final Duration DEFAULT_DEAD_LETTER_RETENTION = Duration.ofHours(72);
    /** Default of the most claim statements per queue, and completion statements, one storage runs at once. */
    public static final int DEFAULT_MAX_STATEMENTS_IN_FLIGHT = 1;

    private final ConnectionFactory connectionFactory;
    private final String schema;
    private final int queueSlotCount;
    private final int leaseSlotCount;
    private final int claimSlotCount;
    private final Duration pruneLockTimeout;
    private final Duration heartbeatInterval;
    private final Duration leaseStaleAfter;
    private final Duration retryBackoffBase;
    private final double retryBackoffFactor;
    private final Duration retryBackoffMax;
    private final double retryBackoffJitter;
    private final int maxArgsBytes;
    private final Duration deadLetterRetention;
    private final int maxStatementsInFlight;

    private QueueStorageConfig(Builder builder, ConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
        this.schema = builder.schema;
        this.queueSlotCount = builder.queueSlotCount;
        this.leaseSlotCount = builder.leaseSlotCount;
        this.claimSlotCount = builder.claimSlotCount;
        this.pruneLockTimeout = builder.pruneLockTimeout;
        this.heartbeatInterval = builder.heartbeatInterval;
        this.leaseStaleAfter = builder.leaseStaleAfter;
        this.retryBackoffBase = builder.retryBackoffBase;
        this.retryBackoffFactor = builder.retryBackoffFactor;
        this.retryBackoffMax = builder.retryBackoffMax;
        this.retryBackoffJitter = builder.retryBackoffJitter;
        this.maxArgsBytes = builder.maxArgsBytes;
        this.deadLetterRetention = builder.deadLetterRetention;
        this.maxStatementsInFlight = builder.maxStatementsInFlight;
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
     * A new builder holding this configuration's values, to copy and change.
     *
     * @return a builder
     */
    public Builder mutate() {
        Builder b = new Builder().connectionFactory(connectionFactory).schema(schema);
        b.queueSlotCount = queueSlotCount;
        b.leaseSlotCount = leaseSlotCount;
        b.claimSlotCount = claimSlotCount;
        b.pruneLockTimeout = pruneLockTimeout;
        b.heartbeatInterval = heartbeatInterval;
        b.leaseStaleAfter = leaseStaleAfter;
        b.retryBackoffBase = retryBackoffBase;
        b.retryBackoffFactor = retryBackoffFactor;
        b.retryBackoffMax = retryBackoffMax;
        b.retryBackoffJitter = retryBackoffJitter;
        b.maxArgsBytes = maxArgsBytes;
        b.deadLetterRetention = deadLetterRetention;
        b.maxStatementsInFlight = maxStatementsInFlight;
        return b;
    }

    /**
     * The R2DBC connection factory (typically an r2dbc-pool {@code ConnectionPool}) used for every operation.
     *
     * @return the connection factory
     */
    public ConnectionFactory connectionFactory() {
        return connectionFactory;
    }

    /**
     * The schema holding the installation.
     *
     * @return the schema name, unquoted
     */
    public String schema() {
        return schema;
    }

    /**
     * The configured slot count of a ring; it must equal the installed count.
     *
     * @param ring the ring
     * @return the slot count
     */
    public int slotCount(Ring ring) {
        return switch (ring) {
            case QUEUE -> queueSlotCount;
            case LEASE -> leaseSlotCount;
            case CLAIM -> claimSlotCount;
        };
    }

    /**
     * The prune lock timeout as configured.
     *
     * @return the requested timeout
     */
    public Duration pruneLockTimeout() {
        return pruneLockTimeout;
    }

    /**
     * The prune lock timeout sent to PostgreSQL: whole milliseconds, a fraction rounded up, at least 1 ms.
     *
     * @return the effective timeout
     */
    public Duration effectivePruneLockTimeout() {
        return Validation.effectiveLockTimeout(pruneLockTimeout);
    }

    /**
     * How often a worker refreshes the heartbeat of its running attempts.
     *
     * @return the heartbeat interval
     */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /**
     * The heartbeat age after which rescue takes an attempt back.
     *
     * @return the stale-lease threshold
     */
    public Duration leaseStaleAfter() {
        return leaseStaleAfter;
    }

    /**
     * The delay before the first retry.
     *
     * @return the base delay
     */
    public Duration retryBackoffBase() {
        return retryBackoffBase;
    }

    /**
     * The growth factor of the retry delay per attempt.
     *
     * @return the factor, at least 1
     */
    public double retryBackoffFactor() {
        return retryBackoffFactor;
    }

    /**
     * The cap of the retry delay.
     *
     * @return the largest delay
     */
    public Duration retryBackoffMax() {
        return retryBackoffMax;
    }

    /**
     * The random spread of the retry delay.
     *
     * @return the jitter fraction, {@code 0 <= jitter < 1}
     */
    public double retryBackoffJitter() {
        return retryBackoffJitter;
    }

    /**
     * The largest accepted JSON argument size.
     *
     * @return the limit in bytes (UTF-8)
     */
    public int maxArgsBytes() {
        return maxArgsBytes;
    }

    /**
     * How long terminally failed jobs stay in the dead-letter table; zero disables recording.
     *
     * @return the retention
     */
    public Duration deadLetterRetention() {
        return deadLetterRetention;
    }

    /**
     * The most claim statements per queue, and the most completion statements, this storage runs at once; further
     * claims (completions) wait and share one statement (see {@link QueueStorage#claim(String, int, String)} and
     * {@link QueueStorage#completeAll(java.util.Collection)}).
     *
     * @return the limit, at least 1
     */
    public int maxStatementsInFlight() {
        return maxStatementsInFlight;
    }

    @Override
    public String toString() {
        return "QueueStorageConfig{schema=" + schema + ", queueSlotCount=" + queueSlotCount + ", leaseSlotCount="
                + leaseSlotCount + ", claimSlotCount=" + claimSlotCount + ", pruneLockTimeout="
                + effectivePruneLockTimeout().toMillis() + "ms, heartbeatInterval=" + heartbeatInterval
                + ", leaseStaleAfter=" + leaseStaleAfter + ", retryBackoffBase=" + retryBackoffBase
                + ", retryBackoffFactor=" + retryBackoffFactor + ", retryBackoffMax=" + retryBackoffMax
                + ", retryBackoffJitter=" + retryBackoffJitter + ", maxArgsBytes=" + maxArgsBytes
                + ", deadLetterRetention=" + deadLetterRetention + ", maxStatementsInFlight=" + maxStatementsInFlight
                + "}";
    }

    /** Fluent, mutable builder of {@link QueueStorageConfig}; not thread-safe. */
    public static final class Builder {

        private @Nullable ConnectionFactory connectionFactory;
        private String schema = DEFAULT_SCHEMA;
        private int queueSlotCount = DEFAULT_QUEUE_SLOT_COUNT;
        private int leaseSlotCount = DEFAULT_LEASE_SLOT_COUNT;
        private int claimSlotCount = DEFAULT_CLAIM_SLOT_COUNT;
        private Duration pruneLockTimeout = DEFAULT_PRUNE_LOCK_TIMEOUT;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration leaseStaleAfter = DEFAULT_LEASE_STALE_AFTER;
        private Duration retryBackoffBase = DEFAULT_RETRY_BACKOFF_BASE;
        private double retryBackoffFactor = DEFAULT_RETRY_BACKOFF_FACTOR;
        private Duration retryBackoffMax = DEFAULT_RETRY_BACKOFF_MAX;
        private double retryBackoffJitter = DEFAULT_RETRY_BACKOFF_JITTER;
        private int maxArgsBytes = DEFAULT_MAX_ARGS_BYTES;
        private Duration deadLetterRetention = DEFAULT_DEAD_LETTER_RETENTION;
        private int maxStatementsInFlight = DEFAULT_MAX_STATEMENTS_IN_FLIGHT;

        private Builder() {
        }

        /**
         * The R2DBC connection factory for every operation; required. Pass an r2dbc-pool {@code ConnectionPool} in
         * production, configured to hand out its most recently released idle connection first (reactor-pool's
         * {@code idleResourceReuseMruOrder()}): each ring turn makes every connection that uses the reused slot replan
         * its statements there, so the fewer connections take turns with the work, the fewer claims pay for it
         * ({@code docs/operations.md}). awa-reactive never sets session-level state on its connections.
         *
         * @param connectionFactory the factory
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder connectionFactory(ConnectionFactory connectionFactory) {
            this.connectionFactory = requireNonNull(connectionFactory, "connectionFactory");
            return this;
        }

        /**
         * The schema of the installation. Defaults to {@value QueueStorageConfig#DEFAULT_SCHEMA}. Only plain
         * lower-case identifiers are accepted ({@code [a-z_][a-z0-9_]*}, 1 to 63 bytes, not {@code pg_*} or
         * {@code information_schema}); the name is quoted in SQL anyway. Never share a schema with another tool.
         *
         * @param schema the schema name
         * @return this builder
         * @throws IllegalArgumentException when the name breaks a rule
         */
        public Builder schema(String schema) {
            this.schema = requireSchemaName(schema, "schema");
            return this;
        }

        /**
         * Queue ring slots. Defaults to 16; 4 to 64. Fixed once installed.
         *
         * @param slots the slot count
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder queueSlotCount(int slots) {
            this.queueSlotCount = requireBetween(slots, Ring.QUEUE.minSlotCount(), Ring.MAX_SLOT_COUNT,
                    "queueSlotCount");
            return this;
        }

        /**
         * Lease ring slots. Defaults to 8; 2 to 64. Fixed once installed.
         *
         * @param slots the slot count
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder leaseSlotCount(int slots) {
            this.leaseSlotCount = requireBetween(slots, Ring.LEASE.minSlotCount(), Ring.MAX_SLOT_COUNT,
                    "leaseSlotCount");
            return this;
        }

        /**
         * Claim ring slots. Defaults to 8; 2 to 64. Fixed once installed.
         *
         * @param slots the slot count
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder claimSlotCount(int slots) {
            this.claimSlotCount = requireBetween(slots, Ring.CLAIM.minSlotCount(), Ring.MAX_SLOT_COUNT,
                    "claimSlotCount");
            return this;
        }

        /**
         * The longest a prune or rollup waits for any one lock, set transaction-locally as the first statement of
         * every prune and rollup transaction. Defaults to 10 ms. Must be positive and at most 2,147,483,647 ms
         * (PostgreSQL's maximum); a positive value under 1 ms becomes 1 ms and a fraction of a millisecond is
         * rounded up ({@link QueueStorageConfig#effectivePruneLockTimeout()}).
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
         * How often workers refresh the heartbeat of running attempts. Defaults to 5 s; must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = requirePositive(interval, "heartbeatInterval");
            return this;
        }

        /**
         * The heartbeat age after which rescue retries or fails an attempt. Defaults to 30 s; must be positive and
         * at least three heartbeat intervals (checked by {@link #build()}).
         *
         * @param staleAfter the threshold
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder leaseStaleAfter(Duration staleAfter) {
            this.leaseStaleAfter = requirePositive(staleAfter, "leaseStaleAfter");
            return this;
        }

        /**
         * The delay before the first retry; zero retries at once. Defaults to 1 s.
         *
         * @param base the base delay
         * @return this builder
         * @throws IllegalArgumentException when null or negative
         */
        public Builder retryBackoffBase(Duration base) {
            this.retryBackoffBase = requireNotNegative(base, "retryBackoffBase");
            return this;
        }

        /**
         * The growth factor of the retry delay per attempt. Defaults to 2; must be at least 1.
         *
         * @param factor the factor
         * @return this builder
         * @throws IllegalArgumentException when below 1 or not a number
         */
        public Builder retryBackoffFactor(double factor) {
            if (!(factor >= 1.0) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException("retryBackoffFactor must be at least 1, was " + factor);
            }
            this.retryBackoffFactor = factor;
            return this;
        }

        /**
         * The cap of the retry delay. Defaults to 1 h; must not be negative and at least the base (checked by
         * {@link #build()}).
         *
         * @param max the largest delay
         * @return this builder
         * @throws IllegalArgumentException when null or negative
         */
        public Builder retryBackoffMax(Duration max) {
            this.retryBackoffMax = requireNotNegative(max, "retryBackoffMax");
            return this;
        }

        /**
         * The random spread of the retry delay: each delay is multiplied by a factor in {@code [1 - jitter, 1 +
         * jitter]}. Defaults to 0.2; {@code 0 <= jitter < 1}.
         *
         * @param jitter the spread
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder retryBackoffJitter(double jitter) {
            if (!(jitter >= 0.0 && jitter < 1.0)) {
                throw new IllegalArgumentException("retryBackoffJitter must be at least 0 and below 1, was " + jitter);
            }
            this.retryBackoffJitter = jitter;
            return this;
        }

        /**
         * The largest JSON argument text accepted by enqueue, in UTF-8 bytes; larger is rejected before any SQL.
         * Defaults to 1 MiB; must be positive.
         *
         * @param bytes the limit
         * @return this builder
         * @throws IllegalArgumentException when not positive
         */
        public Builder maxArgsBytes(int bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxArgsBytes must be greater than 0, was " + bytes);
            }
            this.maxArgsBytes = bytes;
            return this;
        }

        /**
         * How long terminally failed jobs stay in the dead-letter table. Defaults to 72 h; zero disables
         * recording; must not be negative.
         *
         * @param retention the retention
         * @return this builder
         * @throws IllegalArgumentException when null or negative
         */
        public Builder deadLetterRetention(Duration retention) {
            this.deadLetterRetention = requireNotNegative(retention, "deadLetterRetention");
            return this;
        }

        /**
         * The most claim statements per queue, and the most completion statements, this storage runs at once
         * (workers' and direct calls alike). A claim of a queue that already has this many claim statements running
         * waits; when one ends, the claims that waited share one statement, up to 1,000 jobs between them. Completions
         * ({@link QueueStorage#complete(Job)}, {@link QueueStorage#completeAll(java.util.Collection)} and workers'
         * group commits) wait and share the same way, up to 1,000 attempts per statement. Fewer statements mean fewer
         * round trips and commits, and fewer claims that find nothing when workers outpace producers; more mean less
         * waiting, and calls that go on beside a statement that stalls. Defaults to 1; must be at least 1.
         *
         * @param statements the limit
         * @return this builder
         * @throws IllegalArgumentException when below 1
         */
        public Builder maxStatementsInFlight(int statements) {
            if (statements < 1) {
                throw new IllegalArgumentException("maxStatementsInFlight must be at least 1, was " + statements);
            }
            this.maxStatementsInFlight = statements;
            return this;
        }

        /**
         * Checks the cross-option rules and builds the configuration.
         *
         * @return the configuration
         * @throws IllegalStateException when {@code connectionFactory} is missing, {@code leaseStaleAfter} is below
         *     three {@code heartbeatInterval}s, or {@code retryBackoffMax} is below {@code retryBackoffBase}
         */
        public QueueStorageConfig build() {
            if (connectionFactory == null) {
                throw new IllegalStateException("connectionFactory must be set");
            }
            if (leaseStaleAfter.compareTo(heartbeatInterval.multipliedBy(3)) < 0) {
                throw new IllegalStateException("leaseStaleAfter must be at least 3 x heartbeatInterval, was "
                        + leaseStaleAfter + " with heartbeatInterval " + heartbeatInterval);
            }
            if (retryBackoffMax.compareTo(retryBackoffBase) < 0) {
                throw new IllegalStateException("retryBackoffMax must be at least retryBackoffBase, was "
                        + retryBackoffMax + " with retryBackoffBase " + retryBackoffBase);
            }
            return new QueueStorageConfig(this, connectionFactory);
        }
    }
}
