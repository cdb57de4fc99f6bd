package io.awareactive.core;

import io.awareactive.core.internal.JsonSyntax;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An immutable request to enqueue one job: queue, kind, JSON arguments, priority, attempts, optional {@code runAt}
 * and timeout. Build it with {@link #builder(String, String)}; every setter validates at once and throws an
 * {@link IllegalArgumentException} naming the option, the rule and the value. The argument size limit
 * ({@link QueueStorageConfig#maxArgsBytes()}) is checked by the enqueue call, also before any SQL.
 */
public final class JobRequest {

    /** Highest priority. */
    public static final int HIGHEST_PRIORITY = 1;
    /** Lowest priority. */
    public static final int LOWEST_PRIORITY = 4;
    /** Default priority. */
    public static final int DEFAULT_PRIORITY = 2;
    /** Default number of attempts (the first run plus retries). */
    public static final int DEFAULT_MAX_ATTEMPTS = 25;
    /** Default JSON arguments: an empty object. */
    public static final String DEFAULT_ARGS = "{}";

    private static final Pattern QUEUE_NAME = Pattern.compile("[a-z0-9_.-]{1,63}");

    private final String queue;
    private final String kind;
    private final String args;
    private final int priority;
    private final int maxAttempts;
    private final @Nullable Instant runAt;
    private final @Nullable Duration timeout;

    private JobRequest(Builder b) {
        this.queue = b.queue;
        this.kind = b.kind;
        this.args = b.args;
        this.priority = b.priority;
        this.maxAttempts = b.maxAttempts;
        this.runAt = b.runAt;
        this.timeout = b.timeout;
    }

    /**
     * A builder for a job of {@code kind} on {@code queue}, every other option at its default.
     *
     * @param queue the queue: 1 to 63 characters of {@code [a-z0-9_.-]}
     * @param kind what the job is, for the handler: 1 to 255 characters, not blank
     * @return a builder
     * @throws IllegalArgumentException when the queue or kind breaks its rule
     */
    public static Builder builder(String queue, String kind) {
        return new Builder(requireQueue(queue), requireKind(kind));
    }

    /**
     * A job of {@code kind} on {@code queue} with the given JSON arguments and defaults otherwise.
     *
     * @param queue the queue
     * @param kind the kind
     * @param args the JSON arguments
     * @return the request
     * @throws IllegalArgumentException when an argument breaks its rule
     */
    public static JobRequest of(String queue, String kind, String args) {
        return builder(queue, kind).args(args).build();
    }

    /**
     * Validates a queue name.
     *
     * @param queue the name
     * @return the name
     * @throws IllegalArgumentException when null, blank or not 1 to 63 characters of {@code [a-z0-9_.-]}
     */
    public static String requireQueue(@Nullable String queue) {
        if (queue == null || !QUEUE_NAME.matcher(queue).matches()) {
            throw new IllegalArgumentException("queue must be 1 to 63 characters of [a-z0-9_.-], was "
                    + (queue == null ? "null" : "\"" + queue + "\""));
        }
        return queue;
    }

    private static String requireKind(@Nullable String kind) {
        if (kind == null || kind.isBlank() || kind.length() > 255) {
            throw new IllegalArgumentException("kind must be 1 to 255 characters and not blank, was "
                    + (kind == null ? "null" : "\"" + kind + "\""));
        }
        return kind;
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
     * The kind.
     *
     * @return the kind
     */
    public String kind() {
        return kind;
    }

    /**
     * The JSON arguments, as given.
     *
     * @return the JSON text
     */
    public String args() {
        return args;
    }

    /**
     * The priority, 1 (highest) to 4 (lowest).
     *
     * @return the priority
     */
    public int priority() {
        return priority;
    }

    /**
     * The number of attempts before a failure is terminal.
     *
     * @return at least 1
     */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * When the job becomes available; null for at once.
     *
     * @return the time, or null
     */
    public @Nullable Instant runAt() {
        return runAt;
    }

    /**
     * The hard limit of one attempt; null to use the worker's.
     *
     * @return the timeout, or null
     */
    public @Nullable Duration timeout() {
        return timeout;
    }

    @Override
    public String toString() {
        return "JobRequest{queue=" + queue + ", kind=" + kind + ", priority=" + priority + ", maxAttempts="
                + maxAttempts + ", runAt=" + runAt + ", timeout=" + timeout + ", args=" + args.length() + " chars}";
    }

    /** Fluent, mutable builder of {@link JobRequest}; not thread-safe. */
    public static final class Builder {

        private final String queue;
        private final String kind;
        private String args = DEFAULT_ARGS;
        private int priority = DEFAULT_PRIORITY;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private @Nullable Instant runAt;
        private @Nullable Duration timeout;

        private Builder(String queue, String kind) {
            this.queue = queue;
            this.kind = kind;
        }

        /**
         * The JSON arguments. Defaults to {@code {}}. Must be one valid JSON value (PostgreSQL {@code jsonb}
         * rejects {@code \u0000}, so it is rejected here too).
         *
         * @param json the JSON text
         * @return this builder
         * @throws IllegalArgumentException when null or not valid JSON
         */
        public Builder args(String json) {
            if (json == null) {
                throw new IllegalArgumentException("args must not be null");
            }
            String error = JsonSyntax.firstError(json);
            if (error != null) {
                throw new IllegalArgumentException("args must be valid JSON, was not: " + error);
            }
            this.args = json;
            return this;
        }

        /**
         * The priority: 1 (highest) to 4 (lowest). Defaults to 2.
         *
         * @param priority the priority
         * @return this builder
         * @throws IllegalArgumentException when outside 1 to 4
         */
        public Builder priority(int priority) {
            if (priority < HIGHEST_PRIORITY || priority > LOWEST_PRIORITY) {
                throw new IllegalArgumentException("priority must be between 1 and 4, was " + priority);
            }
            this.priority = priority;
            return this;
        }

        /**
         * The number of attempts (first run plus retries). Defaults to 25; at least 1.
         *
         * @param maxAttempts the attempts
         * @return this builder
         * @throws IllegalArgumentException when below 1
         */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * Schedules the job: it goes to the deferred table and is promoted into the queue once {@code runAt} has
         * passed, by a running maintenance engine (any {@code runAt}, even a past one, waits for promotion).
         * Defaults to none: the job is available at once.
         *
         * @param runAt when the job becomes available
         * @return this builder
         * @throws IllegalArgumentException when null
         */
        public Builder runAt(Instant runAt) {
            if (runAt == null) {
                throw new IllegalArgumentException("runAt must not be null");
            }
            this.runAt = runAt;
            return this;
        }

        /**
         * The hard limit of one attempt: the claim sets the attempt's deadline to claim time plus this, the worker
         * fails the attempt when its handler outlasts it, and rescue takes back attempts past their deadline.
         * Defaults to none (the worker's timeout, if any). Whole milliseconds; must be at least 1 ms.
         *
         * @param timeout the timeout
         * @return this builder
         * @throws IllegalArgumentException when null or below 1 ms
         */
        public Builder timeout(Duration timeout) {
            if (timeout == null || timeout.toMillis() < 1) {
                throw new IllegalArgumentException("timeout must be at least 1 ms, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Builds the request.
         *
         * @return the request
         */
        public JobRequest build() {
            return new JobRequest(this);
        }
    }
}
