package io.awareactive.maintenance;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.ring.RingOperations;
import io.awareactive.maintenance.internal.MaintenanceEngine;
import io.awareactive.maintenance.internal.PostgresEngineSql;
import io.awareactive.maintenance.internal.ScheduledTask;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Maintenance on demand, for applications' own tests (the counterpart of a manual scheduler): runs the same task
 * bodies as {@link RingMaintenance} (ring ticks with rotate and prune, rollup, promotion, rescue, dead-letter
 * purge) when the test asks, on a clock the test drives, with no leader election, no background ticks and no
 * threads of its own.
 *
 * <pre>{@code
 * ManualMaintenance maintenance = ManualMaintenance.create(storage);
 * StepVerifier.create(storage.enqueue(JobRequest.builder("emails", "welcome").runAt(Instant.now()).build())
 *                 .then(maintenance.run(MaintenanceTask.PROMOTE))          // the scheduled job is now available
 *                 .then(maintenance.advance(Duration.ofSeconds(1))))      // every task due within 1 s
 *         .assertNext(events -> assertThat(events).isNotEmpty())          // the prune events of that advance
 *         .verifyComplete();
 * }</pre>
 *
 * <p><b>Time.</b> {@link #advance(Duration)} moves this helper's {@link #clock()} (which also timestamps its
 * {@link PruneEvent}s) and runs every task whose configured interval has elapsed since it last ran; ticks missed
 * within one advance coalesce into one run, as a busy engine drops them. Whether a job is due, a lease is stale or a
 * dead-letter row has expired is decided by PostgreSQL's {@code now()}, not by this clock: schedule test jobs at
 * {@code Instant.now()} (or shortly after) and configure short {@code leaseStaleAfter} or {@code deadLetterRetention}
 * on the storage to exercise rescue and purge.
 *
 * <p><b>Threading.</b> Every method returning a publisher is lazy and non-blocking; tasks run on the storage's
 * driver threads. Run one call at a time (not thread-safe); each result lists the prune events of that call only.
 * Failures are logged and counted as the engine does and never end a call with an error.
 */
public final class ManualMaintenance implements AutoCloseable {

    private final MaintenanceEngine engine;
    private final RingMaintenanceConfig config;
    private final AtomicReference<Instant> now;
    private final Map<MaintenanceTask<?>, ScheduledTask> scheduled = new LinkedHashMap<>();
    private final Map<MaintenanceTask<?>, Instant> lastRun = new HashMap<>();
    private final List<PruneEvent> recorded = new CopyOnWriteArrayList<>();
    private final Disposable recording;

    private ManualMaintenance(RingOperations ops, RingMaintenanceConfig config, AtomicReference<Instant> now) {
        this.config = config;
        this.now = now;
        for (MaintenanceTask<?> task : MaintenanceTask.values()) {
            scheduled.put(task, task.scheduled(config));
            lastRun.put(task, now.get());
        }
        this.engine = new MaintenanceEngine(config, ops,
                new PostgresEngineSql(RingMaintenance.leaderFactory(ops, config), ops),
                List.copyOf(scheduled.values()));
        this.recording = engine.outcomes().subscribe(recorded::add);
    }

    /**
     * Creates the helper with the default task options. Does no I/O.
     *
     * @param storage the storage to maintain; its schema must be installed
     * @return the helper; its clock starts at the current system time
     * @throws IllegalArgumentException when {@code storage} is null
     */
    public static ManualMaintenance create(QueueStorage storage) {
        return create(storage, options -> { });
    }

    /**
     * Creates the helper with task options set by {@code options} (intervals, batch sizes, a meter registry, ...).
     * The helper sets the clock and delivers outcomes on the calling thread; {@code options} may override neither.
     * Does no I/O.
     *
     * @param storage the storage to maintain; its schema must be installed
     * @param options sets engine options, for example
     *     {@code b -> b.task(MaintenanceTask.PROMOTE, p -> p.batchSize(10))}
     * @return the helper; its clock starts at the current system time
     * @throws IllegalArgumentException when an argument is null, an option is invalid, or {@code taskTimeout} is
     *     not greater than the storage's prune lock timeout
     */
    public static ManualMaintenance create(QueueStorage storage, Consumer<RingMaintenanceConfig.Builder> options) {
        if (storage == null) {
            throw new IllegalArgumentException("storage must not be null");
        }
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        AtomicReference<Instant> now = new AtomicReference<>(Instant.now());
        RingMaintenanceConfig.Builder builder = RingMaintenanceConfig.builder();
        options.accept(builder);
        RingMaintenanceConfig config = builder.clock(new ManualClock(now)).outcomeScheduler(Schedulers.immediate())
                .build();
        RingMaintenance.requireTaskTimeoutAboveLockTimeout(storage.ringOperations(), config);
        return new ManualMaintenance(storage.ringOperations(), config, now);
    }

    /**
     * The configuration in use.
     *
     * @return the configuration
     */
    public RingMaintenanceConfig config() {
        return config;
    }

    /**
     * This helper's clock: it stands still until {@link #advance(Duration)} moves it.
     *
     * @return the clock (UTC)
     */
    public Clock clock() {
        return config.clock();
    }

    /**
     * Runs one task once, now, whatever its interval.
     *
     * @param task the task
     * @return the prune events of this run (empty for tasks other than the ring ticks)
     * @throws IllegalArgumentException when {@code task} is null
     */
    public Mono<List<PruneEvent>> run(MaintenanceTask<?> task) {
        if (task == null) {
            throw new IllegalArgumentException("task must not be null");
        }
        return recorded(Flux.<MaintenanceTask<?>>just(task));
    }

    /**
     * Runs every task once, now, in {@link MaintenanceTask#values()} order: the queue, lease and claim ring ticks,
     * the rollup, promotion, rescue and the dead-letter purge.
     *
     * @return the prune events of this pass
     */
    public Mono<List<PruneEvent>> runOnce() {
        return recorded(Flux.fromIterable(MaintenanceTask.values()));
    }

    /**
     * Moves the clock forward and runs, in {@link MaintenanceTask#values()} order, each task whose interval has elapsed
     * since it last ran (or since this helper was created); a task due several times within {@code elapsed} runs
     * once. The clock moves at subscription.
     *
     * @param elapsed how far to move the clock; zero runs nothing
     * @return the prune events of the tasks run
     * @throws IllegalArgumentException when {@code elapsed} is null or negative
     */
    public Mono<List<PruneEvent>> advance(Duration elapsed) {
        if (elapsed == null || elapsed.isNegative()) {
            throw new IllegalArgumentException("elapsed must not be null or negative, was " + elapsed);
        }
        return Mono.defer(() -> {
            Instant at = now.updateAndGet(current -> current.plus(elapsed));
            List<MaintenanceTask<?>> due = new ArrayList<>();
            for (MaintenanceTask<?> task : MaintenanceTask.values()) {
                if (!lastRun.get(task).plus(scheduled.get(task).interval()).isAfter(at)) {
                    due.add(task);
                }
            }
            return recorded(Flux.fromIterable(due));
        });
    }

    /** Removes the meters (when a registry was configured) and stops recording events. */
    @Override
    public void close() {
        recording.dispose();
        engine.stop(Duration.ZERO).subscribe();
    }

    private Mono<List<PruneEvent>> recorded(Flux<MaintenanceTask<?>> tasks) {
        return Mono.defer(() -> {
            int from = recorded.size();
            return tasks.concatMap(task -> engine.runTask(scheduled.get(task))
                            .doOnTerminate(() -> lastRun.put(task, now.get())), 0)
                    .then(Mono.fromCallable(() -> List.copyOf(recorded.subList(from, recorded.size()))));
        });
    }

    /** A UTC clock that only {@link ManualMaintenance#advance(Duration)} moves. */
    private static final class ManualClock extends Clock {

        private final AtomicReference<Instant> now;

        ManualClock(AtomicReference<Instant> now) {
            this.now = now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("the manual maintenance clock is UTC only");
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }
}
