package io.awareactive.maintenance;

import io.awareactive.core.Ring;
import io.awareactive.maintenance.TaskOptions.Batch;
import io.awareactive.maintenance.TaskOptions.Rollup;
import io.awareactive.maintenance.TaskOptions.Tick;
import io.awareactive.maintenance.internal.ScheduledTask;
import io.awareactive.maintenance.internal.TaskSteps;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import reactor.core.publisher.Mono;

/**
 * The maintenance engine's periodic tasks, each described once, here: its {@link #label()} (its
 * {@code awa.maintenance.task} tag value on every meter and the prefix of its options in error messages), its
 * {@link #defaults() default options} (interval and the rest of its option group) and its body (what one run does,
 * as a function of the engine's steps and the configured options). {@link RingMaintenanceConfig}, the engine, its
 * meters and {@link ManualMaintenance} derive everything from {@link #values()}; none of them names a task.
 *
 * <p>Adding a task is one constant here plus its entry in {@link #values()}, and its test: for example the
 * dead-letter purge is {@code new MaintenanceTask<>("dlq_purge", new Batch(Duration.ofSeconds(60), 500),
 * (steps, options) -> steps.step(ops -> ops.purgeFailedJobs(options.batchSize())))}. Users set its options with
 * {@code RingMaintenanceConfig.builder().task(MaintenanceTask.DLQ_PURGE, p -> p.batchSize(200))}.
 *
 * <p>Instances are immutable and thread-safe; equality is identity.
 *
 * @param <O> the type of the task's options
 */
public final class MaintenanceTask<O extends TaskOptions<O>> {

    /** The queue ring's tick: rotate, then prune; every 1 s by default. */
    public static final MaintenanceTask<Tick> RING_QUEUE = ringTick(Ring.QUEUE);
    /** The lease ring's tick: rotate, then prune; every 1 s by default. */
    public static final MaintenanceTask<Tick> RING_LEASE = ringTick(Ring.LEASE);
    /** The claim ring's tick: rotate, then prune; every 1 s by default. */
    public static final MaintenanceTask<Tick> RING_CLAIM = ringTick(Ring.CLAIM);

    /**
     * Terminal-count rollup of up to {@code maxSlots} sealed queue slots, then fold and ledger trim (both skipped
     * while the MVCC horizon is pinned); every 30 s, 4 slots, pinned by a 5 s snapshot or a 10,000-xid age by
     * default.
     */
    public static final MaintenanceTask<Rollup> ROLLUP = new MaintenanceTask<>("rollup",
            new Rollup(Duration.ofSeconds(30), 4, Duration.ofSeconds(5), 10_000),
            TaskSteps::rollup);

    /** Promotion of up to {@code batchSize} due deferred jobs; every 250 ms (250 ms to 1 s is sensible), 500 jobs. */
    public static final MaintenanceTask<Batch> PROMOTE = new MaintenanceTask<>("promote",
            new Batch(Duration.ofMillis(250), 500),
            (steps, options) -> steps.step(ops -> ops.promote(options.batchSize())));

    /** Rescue of up to {@code batchSize} stale attempts; every 10 s (5 to 30 s is sensible), 500 attempts. */
    public static final MaintenanceTask<Batch> RESCUE = new MaintenanceTask<>("rescue",
            new Batch(Duration.ofSeconds(10), 500),
            (steps, options) -> steps.step(ops -> ops.rescue(options.batchSize())));

    /**
     * Deletion of dead-letter rows older than the storage's {@code deadLetterRetention}, oldest first, in
     * transactions of {@code batchSize} rows (each under a transaction-local lock timeout) until one comes back short;
     * every 60 s, 500 rows per transaction.
     */
    public static final MaintenanceTask<Batch> DLQ_PURGE = new MaintenanceTask<>("dlq_purge",
            new Batch(Duration.ofSeconds(60), 500),
            (steps, options) -> steps.step(ops -> ops.purgeFailedJobs(options.batchSize())));

    private static final List<MaintenanceTask<?>> VALUES = List.of(RING_QUEUE, RING_LEASE, RING_CLAIM, ROLLUP, PROMOTE,
            RESCUE, DLQ_PURGE);

    private final String label;
    private final O defaults;
    private final BiFunction<TaskSteps, O, Mono<Void>> body;

    private MaintenanceTask(String label, O defaults, BiFunction<TaskSteps, O, Mono<Void>> body) {
        this.label = label;
        this.defaults = defaults;
        this.body = body;
    }

    private static MaintenanceTask<Tick> ringTick(Ring ring) {
        return new MaintenanceTask<>("ring_" + ring.label(), new Tick(Duration.ofSeconds(1)),
                (steps, options) -> steps.ringTick(ring));
    }

    /**
     * Every task, in the order {@link ManualMaintenance#runOnce()} runs them: the queue, lease and claim ring ticks,
     * the rollup, promotion, rescue and the dead-letter purge.
     *
     * @return the tasks, immutable
     */
    public static List<MaintenanceTask<?>> values() {
        return VALUES;
    }

    /**
     * The {@code awa.maintenance.task} tag value of this task on every meter, also the prefix of its options in
     * error messages ({@code dlq_purge.batchSize}).
     *
     * @return the label, for example {@code dlq_purge}
     */
    public String label() {
        return label;
    }

    /**
     * The options this task runs with unless {@link RingMaintenanceConfig.Builder#task} changes them.
     *
     * @return the default options
     */
    public O defaults() {
        return defaults;
    }

    /** The task as the engine runs it under {@code config}: label, configured interval and bound body. */
    ScheduledTask scheduled(RingMaintenanceConfig config) {
        O options = config.task(this);
        return new ScheduledTask(label, options.interval(), steps -> body.apply(steps, options));
    }

    /** Every task as the engine runs it under {@code config}, in {@link #values()} order. */
    static List<ScheduledTask> scheduledAll(RingMaintenanceConfig config) {
        return VALUES.stream().map(task -> task.scheduled(config)).toList();
    }

    /**
     * The label.
     *
     * @return {@link #label()}
     */
    @Override
    public String toString() {
        return label;
    }
}
