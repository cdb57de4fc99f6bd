package io.awareactive.maintenance;

import static io.awareactive.core.internal.Validation.requireBetween;
import static io.awareactive.core.internal.Validation.requirePositive;

import io.awareactive.core.Ring;
import java.time.Duration;

/**
 * The options of one maintenance task ({@link MaintenanceTask}): immutable, valid by construction, and changed by
 * copying, so {@code RingMaintenanceConfig.builder().task(MaintenanceTask.PROMOTE, p -> p.interval(...)
         .batchSize(...))}
 * reads as a list of settings. Every task has an interval; {@link Tick}, {@link Batch} and {@link Rollup} add the
 * rest. A new task with an interval and a batch size reuses {@link Batch}. Instances are thread-safe.
 *
 * @param <O> the concrete options type, returned by the copying setters
 */
public interface TaskOptions<O extends TaskOptions<O>> {

    /**
     * How often the task runs.
     *
     * @return the interval, positive
     */
    Duration interval();

    /**
     * A copy with another interval.
     *
     * @param interval how often the task runs; must be positive
     * @return the copy
     * @throws IllegalArgumentException when null or not positive (the message names {@code interval})
     */
    O interval(Duration interval);

    /**
     * The options of a ring's tick (rotate, then prune).
     *
     * @param interval how often the ring is rotated and pruned; positive
     */
    record Tick(Duration interval) implements TaskOptions<Tick> {

        /**
         * Checks the values.
         *
         * @param interval see the record
         * @throws IllegalArgumentException when a value breaks its rule
         */
        public Tick {
            requirePositive(interval, "interval");
        }

        @Override
        public Tick interval(Duration interval) {
            return new Tick(interval);
        }
    }

    /**
     * The options of a task that handles at most {@code batchSize} rows per tick (or per transaction, for the
     * dead-letter purge).
     *
     * @param interval how often the task runs; positive
     * @param batchSize the most rows per tick, 1 to {@value #MAX_BATCH_SIZE}
     */
    record Batch(Duration interval, int batchSize) implements TaskOptions<Batch> {

        /** The largest batch size: 10,000. */
        public static final int MAX_BATCH_SIZE = 10_000;

        /**
         * Checks the values.
         *
         * @param interval see the record
         * @param batchSize see the record
         * @throws IllegalArgumentException when a value breaks its rule
         */
        public Batch {
            requirePositive(interval, "interval");
            requireBetween(batchSize, 1, MAX_BATCH_SIZE, "batchSize");
        }

        @Override
        public Batch interval(Duration interval) {
            return new Batch(interval, batchSize);
        }

        /**
         * A copy with another batch size.
         *
         * @param batchSize the most rows per tick (per transaction for the dead-letter purge), 1 to 10,000
         * @return the copy
         * @throws IllegalArgumentException when out of range (the message names {@code batchSize})
         */
        public Batch batchSize(int batchSize) {
            return new Batch(interval, batchSize);
        }
    }

    /**
     * The options of the terminal-count rollup task.
     *
     * @param interval how often the rollup runs; positive
     * @param maxSlots the most sealed queue slots one tick folds, 1 to 64
     * @param mvccPinMinAge a snapshot older than this, held by another session, pins the MVCC horizon and skips the
     *     rollup; positive
     * @param mvccPinMinXids without {@code pg_read_all_stats}, a session whose {@code age(backend_xmin)} or
     *     {@code age(backend_xid)} exceeds this pins the horizon; positive
     */
    record Rollup(Duration interval, int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids)
            implements TaskOptions<Rollup> {

        /**
         * Checks the values.
         *
         * @param interval see the record
         * @param maxSlots see the record
         * @param mvccPinMinAge see the record
         * @param mvccPinMinXids see the record
         * @throws IllegalArgumentException when a value breaks its rule
         */
        public Rollup {
            requirePositive(interval, "interval");
            requireBetween(maxSlots, 1, Ring.MAX_SLOT_COUNT, "maxSlots");
            requirePositive(mvccPinMinAge, "mvccPinMinAge");
            requirePositive(mvccPinMinXids, "mvccPinMinXids");
        }

        @Override
        public Rollup interval(Duration interval) {
            return new Rollup(interval, maxSlots, mvccPinMinAge, mvccPinMinXids);
        }

        /**
         * A copy with another slot limit.
         *
         * @param maxSlots the most sealed queue slots one tick folds, 1 to 64
         * @return the copy
         * @throws IllegalArgumentException when out of range
         */
        public Rollup maxSlots(int maxSlots) {
            return new Rollup(interval, maxSlots, mvccPinMinAge, mvccPinMinXids);
        }

        /**
         * A copy with another snapshot age that pins the horizon.
         *
         * @param mvccPinMinAge a snapshot older than this pins the horizon; positive
         * @return the copy
         * @throws IllegalArgumentException when null or not positive
         */
        public Rollup mvccPinMinAge(Duration mvccPinMinAge) {
            return new Rollup(interval, maxSlots, mvccPinMinAge, mvccPinMinXids);
        }

        /**
         * A copy with another transaction-id age that pins the horizon when activity is unreadable.
         *
         * @param mvccPinMinXids the transaction-id age; positive
         * @return the copy
         * @throws IllegalArgumentException when not positive
         */
        public Rollup mvccPinMinXids(long mvccPinMinXids) {
            return new Rollup(interval, maxSlots, mvccPinMinAge, mvccPinMinXids);
        }
    }
}
