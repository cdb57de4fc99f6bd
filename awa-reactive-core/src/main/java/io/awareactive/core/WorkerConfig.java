package io.awareactive.core;

import static io.awareactive.core.internal.Validation.requireBetween;
import static io.awareactive.core.internal.Validation.requireNonNull;
import static io.awareactive.core.internal.Validation.requireNotNegative;
import static io.awareactive.core.internal.Validation.requirePositive;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Immutable configuration of a {@link Worker}. Build it with {@link #builder(String, Function)}; setters reject a bad
 * value at once with an {@link IllegalArgumentException} naming the option, the rule and the value.
 */
public final class WorkerConfig {

    /** Default number of attempts running at once. */
    public static final int DEFAULT_CONCURRENCY = 10;
    /** Default largest claim batch. */
    public static final int DEFAULT_BATCH_SIZE = 10;
    /** Default polling fallback interval. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(2);
    /** Default largest group of completions committed together. */
    public static final int DEFAULT_ACK_BATCH_SIZE = 128;
    /** Default longest wait of a completion while another group commit is in flight. */
    public static final Duration DEFAULT_ACK_MAX_DELAY = Duration.ofMillis(1);
    /** Default per-attempt timeout for jobs without their own: none. */
    public static final Duration DEFAULT_JOB_TIMEOUT = Duration.ZERO;

    private static final AtomicLong IDS = new AtomicLong();

    private final String queue;
    private final Function<Job, Mono<?>> handler;
    private final int concurrency;
    private final int batchSize;
    private final Duration pollInterval;
    private final int ackBatchSize;
    private final Duration ackMaxDelay;
    private final Duration jobTimeout;
    private final String workerId;
    private final boolean listen;
    private final Scheduler scheduler;
    private final ClaimListener claimListener;

    /**
     * Told of every claim a worker makes, for metrics: the queue, how many jobs it returned (0 when it found none)
     * and how long the claim took, from its start to its result. Called on the thread that received the result, after
     * the claim succeeded; it must be quick and must not block. What it throws is logged as a warning and does not
     * affect the worker.
     */
    @FunctionalInterface
    public interface ClaimListener {
        /**
         * One claim finished.
         *
         * @param queue the worker's queue
         * @param jobs the jobs the claim returned
         * @param latency the claim's round trip
         */
        void claimed(String queue, int jobs, Duration latency);
    }

    private WorkerConfig(Builder b) {
        this.queue = b.queue;
        this.handler = b.handler;
        this.concurrency = b.concurrency;
        this.batchSize = b.batchSize;
        this.pollInterval = b.pollInterval;
        this.ackBatchSize = b.ackBatchSize;
        this.ackMaxDelay = b.ackMaxDelay;
        this.jobTimeout = b.jobTimeout;
        this.workerId = b.workerId != null ? b.workerId
                : "worker-" + ProcessHandle.current().pid() + "-" + IDS.incrementAndGet();
        this.listen = b.listen;
        this.scheduler = b.scheduler;
        this.claimListener = b.claimListener;
    }

    /**
     * A builder for a worker of {@code queue} running {@code handler}.
     *
     * @param queue the queue: 1 to 63 characters of {@code [a-z0-9_.-]}
     * @param handler runs one attempt: its {@code Mono} completing (empty or with a value) completes the attempt,
     *     an error (or a thrown exception) fails it; it must not block
     * @return a builder
     * @throws IllegalArgumentException when the queue breaks its rule or the handler is null
     */
    public static Builder builder(String queue, Function<Job, Mono<?>> handler) {
        return new Builder(JobRequest.requireQueue(queue), requireNonNull(handler, "handler"));
    }

    /**
     * The queue.
     *
     * @return the queue name
     */
    public String queue() {
        return queue;
    }

    /**
     * The handler.
     *
     * @return the handler
     */
    public Function<Job, Mono<?>> handler() {
        return handler;
    }

    /**
     * The most attempts running at once.
     *
     * @return the concurrency
     */
    public int concurrency() {
        return concurrency;
    }

    /**
     * The largest claim batch.
     *
     * @return the batch size
     */
    public int batchSize() {
        return batchSize;
    }

    /**
     * The polling fallback interval.
     *
     * @return the interval
     */
    public Duration pollInterval() {
        return pollInterval;
    }

    /**
     * The largest group of completions the worker commits together (group commit).
     *
     * @return the group size; 1 commits each completion alone
     */
    public int ackBatchSize() {
        return ackBatchSize;
    }

    /**
     * How long a completion waits for more to join it while another group commit is in flight.
     *
     * @return the delay
     */
    public Duration ackMaxDelay() {
        return ackMaxDelay;
    }

    /**
     * The per-attempt timeout of jobs without their own; zero for none.
     *
     * @return the timeout
     */
    public Duration jobTimeout() {
        return jobTimeout;
    }

    /**
     * The worker id recorded on leases.
     *
     * @return the id
     */
    public String workerId() {
        return workerId;
    }

    /**
     * Whether the worker listens for wake-ups.
     *
     * @return true to {@code LISTEN}
     */
    public boolean listen() {
        return listen;
    }

    /**
     * Where handlers and timers run.
     *
     * @return the scheduler
     */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * The listener told of every claim.
     *
     * @return the listener; by default one that does nothing
     */
    public ClaimListener claimListener() {
        return claimListener;
    }

    @Override
    public String toString() {
        return "WorkerConfig{queue=" + queue + ", workerId=" + workerId + ", concurrency=" + concurrency
                + ", batchSize=" + batchSize + ", pollInterval=" + pollInterval + ", ackBatchSize=" + ackBatchSize
                + ", ackMaxDelay=" + ackMaxDelay + ", jobTimeout=" + jobTimeout
                + ", listen=" + listen + "}";
    }

    /** Fluent, mutable builder of {@link WorkerConfig}; not thread-safe. */
    public static final class Builder {

        private final String queue;
        private final Function<Job, Mono<?>> handler;
        private int concurrency = DEFAULT_CONCURRENCY;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private int ackBatchSize = DEFAULT_ACK_BATCH_SIZE;
        private Duration ackMaxDelay = DEFAULT_ACK_MAX_DELAY;
        private Duration jobTimeout = DEFAULT_JOB_TIMEOUT;
        private @Nullable String workerId;
        private boolean listen = true;
        private Scheduler scheduler = Schedulers.parallel();
        private ClaimListener claimListener = (queue, jobs, latency) -> { };

        private Builder(String queue, Function<Job, Mono<?>> handler) {
            this.queue = queue;
            this.handler = handler;
        }

        /**
         * The most attempts running at once. Defaults to 10; 1 to 10,000.
         *
         * @param concurrency the concurrency
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1 || concurrency > 10_000) {
                throw new IllegalArgumentException("concurrency must be between 1 and 10000, was " + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /**
         * The largest claim batch; a claim never asks for more than the free capacity. Defaults to 10; 1 to 1,000.
         *
         * @param batchSize the batch size
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > 1000) {
                throw new IllegalArgumentException("batchSize must be between 1 and 1000, was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * The polling fallback: an idle worker claims at most once per interval unless notified. Defaults to 2 s;
         * must be positive.
         *
         * @param interval the interval
         * @return this builder
         * @throws IllegalArgumentException when null or not positive
         */
        public Builder pollInterval(Duration interval) {
            this.pollInterval = requirePositive(interval, "pollInterval");
            return this;
        }

        /**
         * Group commit of completions: a completion is committed at once when no commit of this worker is in
         * flight; otherwise it waits for more to join it, and a group is committed as soon as it holds
         * {@code ackBatchSize} completions or its first has waited {@link #ackMaxDelay(Duration)}, whichever comes
         * first. One statement and one transaction per group ({@link QueueStorage#completeAll}). Defaults to 128; 1
         * to 1,000 (1: every completion is its own transaction). Failures and releases are not grouped.
         *
         * @param ackBatchSize the largest group
         * @return this builder
         * @throws IllegalArgumentException when out of range
         */
        public Builder ackBatchSize(int ackBatchSize) {
            this.ackBatchSize = requireBetween(ackBatchSize, 1, QueueStorage.COMPLETE_BATCH, "ackBatchSize");
            return this;
        }

        /**
         * How long a completion may wait for others to join its group while another group commit is in flight (see
         * {@link #ackBatchSize(int)}). Defaults to 1 ms; must be positive and at most 1 s.
         *
         * @param delay the delay
         * @return this builder
         * @throws IllegalArgumentException when null, not positive or above 1 s
         */
        public Builder ackMaxDelay(Duration delay) {
            requirePositive(delay, "ackMaxDelay");
            if (delay.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("ackMaxDelay must be at most 1s, was " + delay);
            }
            this.ackMaxDelay = delay;
            return this;
        }

        /**
         * The per-attempt timeout of jobs without their own: the attempt's deadline and the handler's time limit.
         * Defaults to zero: none. Must not be negative.
         *
         * @param timeout the timeout
         * @return this builder
         * @throws IllegalArgumentException when null or negative
         */
        public Builder jobTimeout(Duration timeout) {
            this.jobTimeout = requireNotNegative(timeout, "jobTimeout");
            return this;
        }

        /**
         * The worker id recorded on leases. Defaults to {@code worker-<pid>-<n>}.
         *
         * @param workerId the id, not blank
         * @return this builder
         * @throws IllegalArgumentException when null or blank
         */
        public Builder workerId(String workerId) {
            if (workerId == null || workerId.isBlank()) {
                throw new IllegalArgumentException("workerId must not be blank, was "
                        + (workerId == null ? "null" : "\"" + workerId + "\""));
            }
            this.workerId = workerId;
            return this;
        }

        /**
         * Whether to {@code LISTEN} for wake-ups on a dedicated connection. Defaults to true; turn off behind a
         * transaction-mode pooler (PgBouncer), where only polling works.
         *
         * @param listen true to listen
         * @return this builder
         */
        public Builder listen(boolean listen) {
            this.listen = listen;
            return this;
        }

        /**
         * Where handlers and timers run. Defaults to {@code Schedulers.parallel()}; never disposed by the worker.
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
         * A listener told of every claim (its job count and latency), for example to time claims in a meter
         * registry. Defaults to none.
         *
         * @param listener the listener; quick and non-blocking
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder claimListener(ClaimListener listener) {
            this.claimListener = requireNonNull(listener, "claimListener");
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         */
        public WorkerConfig build() {
            return new WorkerConfig(this);
        }
    }
}
