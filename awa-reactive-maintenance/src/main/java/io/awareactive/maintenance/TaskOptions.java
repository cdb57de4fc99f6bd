package io.awareactive.maintenance;

import static io.awareactive.core.internal.Validation.requireBetween;
import static io.awareactive.core.internal.Validation.requirePositive;

import io.awareactive.core.Ring;
import java.time.Duration;

/**
 * The option groups of the maintenance tasks ({@link MaintenanceTask}): what a task's options are once built
 * ({@link Tick}, {@link Batch}, {@link Rollup}, read from {@link RingMaintenanceConfig}) and the mutable specs the
 * builder hands to {@code .rotate(ring, t -> ...)}, {@code .rollup(r -> ...)}, {@code .promote(p -> ...)},
 * {@code .rescue(p -> ...)} and {@code .dlqPurge(p -> ...)}. A new task with a batch size reuses {@link BatchSpec}.
 */
public final class TaskOptions {

    private TaskOptions() {
    }

    /**
     * The options of a ring's tick.
     *
     * @param interval how often the ring is rotated and pruned
     */
    public record Tick(Duration interval) {
    }

    /**
     * The options of a task that handles at most {@code batchSize} rows per tick (or per transaction, for the
     * dead-letter purge).
     *
     * @param interval how often the task runs
     * @param batchSize the most rows per tick, 1 to {@value RingMaintenanceConfig#MAX_BATCH_SIZE}
     */
    public record Batch(Duration interval, int batchSize) {
    }

    /**
     * The options of the terminal-count rollup task.
     *
     * @param interval how often the rollup runs
     * @param maxSlots the most sealed queue slots one tick folds, 1 to 64
     * @param mvccPinMinAge a snapshot older than this, held by another session, pins the MVCC horizon and skips the
     *     rollup
     * @param mvccPinMinXids without {@code pg_read_all_stats}, a session whose {@code age(backend_xmin)} or
     *     {@code age(backend_xid)} exceeds this pins the horizon
     */
    public record Rollup(Duration interval, int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
    }

    /**
     * The mutable options of one task while a {@link RingMaintenanceConfig.Builder} runs; each setter checks its
     * value at once and names the option {@code task.option}. Not thread-safe.
     *
     * @param <S> the concrete options type, for chaining
     */
    public abstract static class TaskSpec<S extends TaskSpec<S>> {

        private final String task;
        private Duration interval;

        TaskSpec(String task, Duration interval) {
            this.task = task;
            this.interval = interval;
        }

        /**
         * How often the task runs; must be positive.
         *
         * @param interval the interval
         * @return these options
         * @throws IllegalArgumentException when null or not positive
         */
        public S interval(Duration interval) {
            this.interval = requirePositive(interval, option("interval"));
            return self();
        }

        final String option(String name) {
            return task + "." + name;
        }

        final Duration intervalValue() {
            return interval;
        }

        abstract S self();
    }

    /** The options of a ring's tick; {@code interval} defaults to 1 s. */
    public static final class TickSpec extends TaskSpec<TickSpec> {

        TickSpec(Ring ring) {
            super("rotate." + ring.label(), RingMaintenanceConfig.DEFAULT_ROTATE_INTERVAL);
        }

        @Override
        TickSpec self() {
            return this;
        }

        Tick build() {
            return new Tick(intervalValue());
        }
    }

    /** The options of a batched task ({@code promote}, {@code rescue}, {@code dlqPurge}). */
    public static final class BatchSpec extends TaskSpec<BatchSpec> {

        private int batchSize;

        BatchSpec(String task, Duration interval, int batchSize) {
            super(task, interval);
            this.batchSize = batchSize;
        }

        /**
         * The most rows per tick (per transaction for the dead-letter purge). Defaults to 500; 1 to 10,000.
         *
         * @param size the batch size
         * @return these options
         * @throws IllegalArgumentException when out of range
         */
        public BatchSpec batchSize(int size) {
            this.batchSize = requireBetween(size, 1, RingMaintenanceConfig.MAX_BATCH_SIZE, option("batchSize"));
            return this;
        }

        @Override
        BatchSpec self() {
            return this;
        }

        Batch build() {
            return new Batch(intervalValue(), batchSize);
        }
    }

    /** The options of the terminal-count rollup; {@code interval} defaults to 30 s. */
    public static final class RollupSpec extends TaskSpec<RollupSpec> {

        private int maxSlots = RingMaintenanceConfig.DEFAULT_ROLLUP_MAX_SLOTS;
        private Duration mvccPinMinAge = RingMaintenanceConfig.DEFAULT_MVCC_PIN_MIN_AGE;
        private long mvccPinMinXids = RingMaintenanceConfig.DEFAULT_MVCC_PIN_MIN_XIDS;

        RollupSpec() {
            super("rollup", RingMaintenanceConfig.DEFAULT_ROLLUP_INTERVAL);
        }

        /**
         * The most sealed queue slots one tick folds. Defaults to 4; 1 to 64.
         *
         * @param slots the slot count
         * @return these options
         * @throws IllegalArgumentException when out of range
         */
        public RollupSpec maxSlots(int slots) {
            this.maxSlots = requireBetween(slots, 1, Ring.MAX_SLOT_COUNT, option("maxSlots"));
            return this;
        }

        /**
         * A snapshot older than this, held by another session, pins the MVCC horizon and skips the rollup.
         * Defaults to 5 s; must be positive.
         *
         * @param age the age
         * @return these options
         * @throws IllegalArgumentException when null or not positive
         */
        public RollupSpec mvccPinMinAge(Duration age) {
            this.mvccPinMinAge = requirePositive(age, option("mvccPinMinAge"));
            return this;
        }

        /**
         * Without {@code pg_read_all_stats}, a session whose {@code age(backend_xmin)} or {@code age(backend_xid)}
         * exceeds this pins the horizon. Defaults to 10,000; must be positive.
         *
         * @param xids the transaction-id age
         * @return these options
         * @throws IllegalArgumentException when not positive
         */
        public RollupSpec mvccPinMinXids(long xids) {
            this.mvccPinMinXids = requirePositive(xids, option("mvccPinMinXids"));
            return this;
        }

        @Override
        RollupSpec self() {
            return this;
        }

        Rollup build() {
            return new Rollup(intervalValue(), maxSlots, mvccPinMinAge, mvccPinMinXids);
        }
    }
}
