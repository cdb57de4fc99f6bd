package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.internal.MaintenanceFailures;
import io.awareactive.core.internal.SqlStates;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RingOperations;
import io.awareactive.core.ring.RollupOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.awareactive.maintenance.StartupWarning;
import io.awareactive.maintenance.TaskOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The maintenance engine (design §7): leader election, the serial task loop, outcome publishing, metrics and
 * shutdown.
 *
 * <p>Every task has its own {@code Flux.interval(period, scheduler).onBackpressureDrop(count)}; all are merged with
 * {@code Flux.merge(1, ...)} into {@code concatMap(task, 0)}, so tasks run strictly one after another, at most one
 * tick per task waits, and the rest are dropped and counted. Every step is lazy, bounded by {@code taskTimeout} on the
 * injected scheduler and ends in {@code onErrorResume}: no error ends the loop and no hung query stalls it forever.
 *
 * <p>The engine knows no task by name: it runs the {@link ScheduledTask}s it is given (built from
 * {@code MaintenanceTask}), and offers their bodies the {@link TaskSteps} below.
 */
public final class MaintenanceEngine {

    private static final Logger LOG = LoggerFactory.getLogger("io.awareactive.maintenance.RingMaintenance");
    private static final int OUTCOME_PREFETCH = 32;
    private static final Duration LOG_EVERY = Duration.ofSeconds(60);

    private enum Lifecycle { NEW, STARTING, RUNNING, STOPPING, STOPPED }

    private final RingMaintenanceConfig config;
    private final RingOperations ops;
    private final EngineSql sql;
    private final List<ScheduledTask> tasks;
    private final Duration lockTimeout;
    private final Scheduler scheduler;
    private final Duration taskTimeout;
    private final MaintenanceMetrics metrics;
    private final RateLimitedLog limited;
    private final Sinks.Many<PruneEvent> events = Sinks.many().multicast().directBestEffort();
    private final Sinks.One<Boolean> stopSignal = Sinks.one();
    private final Sinks.Empty<Void> loopDone = Sinks.empty();
    private final Sinks.Empty<Void> stopped = Sinks.empty();
    private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.NEW);
    private final AtomicBoolean warnedRepeatStart = new AtomicBoolean();
    private final AtomicBoolean warnedRepeatStop = new AtomicBoolean();
    private volatile @Nullable Disposable loop;
    private volatile boolean leading;
    private volatile Map<Ring, RingState> rings;

    /**
     * Creates the engine and registers its meters; does no I/O and starts nothing.
     *
     * @param config the configuration
     * @param ops the storage's ring operations (the ring work)
     * @param sql the engine's own SQL (leader lock, blockers, diagnostics)
     * @param tasks the tasks to run, in the order of their meters and of simultaneous ticks
     */
    public MaintenanceEngine(RingMaintenanceConfig config, RingOperations ops, EngineSql sql,
            List<ScheduledTask> tasks) {
        this.config = config;
        this.ops = ops;
        this.sql = sql;
        this.tasks = List.copyOf(tasks);
        this.lockTimeout = ops.pruneLockTimeout();
        this.scheduler = config.scheduler();
        this.taskTimeout = config.taskTimeout();
        this.metrics = new MaintenanceMetrics(config.meterRegistry(), config.meterTags(),
                this.tasks.stream().map(ScheduledTask::label).toList());
        this.limited = new RateLimitedLog(config.clock(), LOG_EVERY);
        this.rings = freshRingStates();
    }

    private Map<Ring, RingState> freshRingStates() {
        Map<Ring, RingState> states = new EnumMap<>(Ring.class);
        for (Ring ring : Ring.values()) {
            states.put(ring, new RingState(ops.slotCount(ring)));
        }
        return states;
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Verifies the installation, runs the diagnostics and enters the election.
     *
     * @return completion once the election loop runs; an error when the schema check fails
     */
    public Mono<Void> start() {
        return Mono.defer(() -> {
            if (!lifecycle.compareAndSet(Lifecycle.NEW, Lifecycle.STARTING)) {
                if (warnedRepeatStart.compareAndSet(false, true)) {
                    LOG.warn("RingMaintenance.start() called again (state {}); ignored", lifecycle.get());
                }
                return Mono.empty();
            }
            return Mono.defer(ops::verifyInstalled)
                    .then(diagnose())
                    .doOnError(error -> lifecycle.compareAndSet(Lifecycle.STARTING, Lifecycle.NEW))
                    .then(Mono.fromRunnable(() -> {
                        if (lifecycle.compareAndSet(Lifecycle.STARTING, Lifecycle.RUNNING)) {
                            loop = electionLoop().subscribe(null,
                                    error -> LOG.error("maintenance loop ended unexpectedly", error));
                            LOG.info("ring maintenance started: {}", config);
                        }
                    }));
        });
    }

    /**
     * Ends the ticks, lets the running task finish within the grace (else cancels it, rolling its transaction
     * back), releases leadership, removes the meters and completes the outcome stream.
     *
     * @param grace how long the running task may take
     * @return completion
     */
    public Mono<Void> stop(Duration grace) {
        return Mono.defer(() -> {
            Lifecycle previous = lifecycle.getAndUpdate(s -> s == Lifecycle.STOPPING || s == Lifecycle.STOPPED
                    ? s : Lifecycle.STOPPING);
            if (previous == Lifecycle.STOPPING || previous == Lifecycle.STOPPED) {
                if (warnedRepeatStop.compareAndSet(false, true)) {
                    LOG.warn("RingMaintenance.stop() called again; waiting for the first stop");
                }
                return stopped.asMono();
            }
            stopSignal.tryEmitValue(Boolean.TRUE);
            Disposable running = loop;
            Mono<Void> drained = running == null
                    ? Mono.empty()
                    : loopDone.asMono().timeout(grace, Mono.fromRunnable(() -> {
                        LOG.warn("stop grace of {} elapsed; cancelling the running maintenance task", grace);
                        running.dispose();
                    }), scheduler);
            return drained.then(Mono.fromRunnable(this::finish)).then(stopped.asMono());
        });
    }

    private void finish() {
        leading = false;
        metrics.leader(false);
        metrics.close();
        lifecycle.set(Lifecycle.STOPPED);
        events.emitComplete(Sinks.EmitFailureHandler.busyLooping(Duration.ofMillis(100)));
        stopped.tryEmitEmpty();
        LOG.info("ring maintenance stopped");
    }

    /**
     * The hot outcome stream: every subscriber gets its own bounded buffer drained on the outcome scheduler.
     *
     * @return the stream
     */
    public Flux<PruneEvent> outcomes() {
        return events.asFlux().publishOn(config.outcomeScheduler(), OUTCOME_PREFETCH);
    }

    /**
     * Runs the startup diagnostics and logs each warning at WARN.
     *
     * @return the warnings
     */
    public Mono<List<StartupWarning>> diagnose() {
        return Mono.defer(() -> sql.diagnose(lockTimeout))
                .timeout(taskTimeout, scheduler)
                .onErrorResume(error -> {
                    LOG.debug("startup diagnostics did not finish; no warnings", error);
                    return Mono.just(List.of());
                })
                .doOnNext(warnings -> warnings.forEach(w -> LOG.warn("startup check: {}", w.message())))
                .defaultIfEmpty(List.of());
    }

    /**
     * Whether this engine currently holds the leader lock.
     *
     * @return true while leading
     */
    public boolean isLeader() {
        return leading;
    }

    /**
     * Whether {@link #stop(Duration)} has completed.
     *
     * @return true once stopped
     */
    public boolean isDisposed() {
        return lifecycle.get() == Lifecycle.STOPPED;
    }

    // ---------------------------------------------------------------- election

    private Flux<Void> electionLoop() {
        return Flux.interval(Duration.ZERO, config.leaderElectionInterval(), scheduler)
                .onBackpressureDrop()
                .takeUntilOther(stopSignal.asMono())
                .concatMap(tick -> electOnce(), 0)
                .doFinally(signal -> loopDone.tryEmitEmpty());
    }

    private Mono<Void> electOnce() {
        return Mono.defer(sql::tryLead)
                .timeout(taskTimeout, scheduler)
                .onErrorResume(error -> {
                    failure(Step.ELECTION, error);
                    return Mono.empty();
                })
                .flatMap(this::lead);
    }

    private Mono<Void> lead(EngineSql.Leadership leadership) {
        return Mono.usingWhen(
                Mono.fromCallable(() -> {
                    rings = freshRingStates();
                    leading = true;
                    metrics.leader(true);
                    LOG.info("became the maintenance leader of schema {}", ops.schema());
                    return leadership;
                }),
                held -> diagnose().then(taskLoop(held)),
                this::resign,
                (held, error) -> resign(held),
                this::resign);
    }

    private Mono<Void> resign(EngineSql.Leadership leadership) {
        leading = false;
        metrics.leader(false);
        return Mono.defer(leadership::release)
                .timeout(taskTimeout, scheduler)
                .onErrorResume(error -> {
                    LOG.debug("releasing the leader connection failed (closing frees the lock anyway)", error);
                    return Mono.empty();
                })
                .doOnTerminate(() -> LOG.info("gave up maintenance leadership"));
    }

    private Mono<Void> taskLoop(EngineSql.Leadership leadership) {
        List<Flux<ScheduledTask>> sources = new ArrayList<>();
        for (ScheduledTask task : tasks) {
            sources.add(Flux.interval(task.interval(), task.interval(), scheduler)
                    .map(tick -> task)
                    .onBackpressureDrop(dropped -> metrics.tickDropped(task.label())));
        }
        Mono<Boolean> connectionLost = Flux.interval(config.leaderCheckInterval(), config.leaderCheckInterval(),
                        scheduler)
                .onBackpressureDrop()
                .concatMap(tick -> Mono.defer(leadership::check)
                        .timeout(config.leaderCheckInterval(), scheduler)
                        .thenReturn(Boolean.FALSE)
                        .onErrorResume(error -> {
                            failure(Step.LEADER_CHECK, error);
                            LOG.warn("the leader connection failed its check; giving leadership up");
                            return Mono.just(Boolean.TRUE);
                        }), 0)
                .filter(Boolean::booleanValue)
                .next();
        // prefetch 1: at most one tick per task waits while a task runs; the interval drops (and counts) the rest.
        return Flux.merge(Flux.fromIterable(sources), sources.size(), 1)
                .takeUntilOther(stopSignal.asMono())
                .concatMap(this::runTask, 0)
                .takeUntilOther(connectionLost)
                .then();
    }

    // ---------------------------------------------------------------- tasks

    /**
     * Runs one pass of a task: the body it runs when its tick fires.
     *
     * @param task the task
     * @return completion; never an error (failures are logged and counted)
     */
    public Mono<Void> runTask(ScheduledTask task) {
        return Mono.defer(() -> task.body().apply(new RunSteps(task.label())))
                .onErrorResume(error -> {
                    LOG.error("unexpected failure in maintenance task {}", task.label(), error);
                    return Mono.empty();
                });
    }

    /** The steps of one task run, failing under that task's label. */
    private final class RunSteps implements TaskSteps {

        private final String task;

        RunSteps(String task) {
            this.task = task;
        }

        @Override
        public Mono<Void> ringTick(Ring ring) {
            return MaintenanceEngine.this.ringTick(task, ring);
        }

        @Override
        public Mono<Void> rollup(TaskOptions.Rollup options) {
            return rollupTick(task, options);
        }

        @Override
        public Mono<Void> step(Function<RingOperations, Mono<?>> work) {
            return guarded(() -> work.apply(ops).then(), error -> taskFailure(task, error));
        }
    }

    /** Rotate → already-pruned check → backoff gate → prune → gauges (design §7.3). */
    private Mono<Void> ringTick(String task, Ring ring) {
        RingState state = rings.get(ring);
        return bounded(() -> ops.rotate(ring))
                .onErrorResume(error -> {
                    taskFailure(task, error);
                    return Mono.empty();
                })
                .flatMap(rotation -> {
                    metrics.rotate(ring, rotation);
                    return pruneStep(ring, state, rotation).then(refreshGauges(ring, rotation));
                });
    }

    private Mono<Void> pruneStep(Ring ring, RingState state, RotateOutcome rotation) {
        if (rotation instanceof RotateOutcome.SkippedIdle idle) {
            if (idle.generation() == 0) {
                // A ring that never rotated has no sealed slot, so its prune would answer Noop: skip the transaction.
                publish(ring, new PruneOutcome.Noop(), List.of());
                return Mono.empty();
            }
            RingState.Target done = state.alreadyPruned(idle.slot(), idle.generation());
            if (done != null) {
                publish(ring, new PruneOutcome.AlreadyPruned(done.slot(), done.generation()), List.of());
                return Mono.empty();
            }
        }
        int remaining = state.takeBackoffTick();
        if (remaining >= 0) {
            publish(ring, new PruneOutcome.BackedOff(ring, remaining), List.of());
            return Mono.empty();
        }
        return bounded(() -> ops.prune(ring))
                .onErrorResume(error -> Mono.just(new PruneOutcome.Failed(null, SqlStates.sqlState(error), error)))
                .flatMap(outcome -> {
                    state.apply(outcome);
                    if (outcome instanceof PruneOutcome.Failed failed) {
                        logFailedPrune(ring, failed);
                    }
                    if (outcome instanceof PruneOutcome.Blocked blocked && config.blockerDiagnostics()) {
                        return bounded(() -> sql.blockers(ring, blocked.slot()))
                                .onErrorResume(error -> {
                                    LOG.debug("blocker diagnostics of the {} ring failed", ring.label(), error);
                                    return Mono.just(List.of());
                                })
                                .defaultIfEmpty(List.of())
                                .doOnNext(holders -> {
                                    logBlockers(ring, blocked, holders);
                                    publish(ring, outcome, holders);
                                })
                                .then();
                    }
                    publish(ring, outcome, List.of());
                    return Mono.empty();
                });
    }

    private Mono<Void> refreshGauges(Ring ring, RotateOutcome rotation) {
        if (rotation instanceof RotateOutcome.SkippedIdle idle) {
            // Idle means every family of the ring is empty: no sealed slot holds rows, and no statement is needed.
            metrics.cursor(ring, idle.slot(), idle.generation());
            metrics.sealedSlots(ring, 0);
            return Mono.empty();
        }
        return step(Step.SEALED_SLOTS_REFRESH, () -> {
            Mono<RingCursor> cursor;
            if (rotation instanceof RotateOutcome.Rotated rotated) {
                cursor = Mono.just(new RingCursor(ring, rotated.slot(), rotated.generation()));
            } else {
                cursor = ops.cursor(ring);
            }
            return cursor.doOnNext(c -> metrics.cursor(ring, c.slot(), c.generation()))
                    .then(Mono.defer(() -> ops.sealedSlots(ring)))
                    .doOnNext(sealed -> metrics.sealedSlots(ring, sealed));
        }).then();
    }

    /** Rollup → fold → trim; fold and trim are skipped when a rollup outcome found the horizon pinned. */
    private Mono<Void> rollupTick(String task, TaskOptions.Rollup options) {
        AtomicBoolean pinned = new AtomicBoolean();
        Mono<Void> rollup = Flux.defer(() -> ops.rollup(options.maxSlots(), options.mvccPinMinAge(),
                        options.mvccPinMinXids()))
                .doOnNext(outcome -> {
                    metrics.rollup(outcome);
                    if (outcome instanceof RollupOutcome.SkippedMvccPinned) {
                        pinned.set(true);
                    } else if (outcome instanceof RollupOutcome.Failed failed
                            && limited.permit(task + "-failed")) {
                        logFailure(MaintenanceFailures.message(task, Ring.QUEUE.label(), failed.slot(),
                                failed.sqlState(), failed.error(), lockTimeout.toMillis()),
                                failed.sqlState(), failed.error());
                    }
                })
                .then()
                .timeout(taskTimeout, scheduler)
                .onErrorResume(error -> {
                    taskFailure(task, error);
                    return Mono.empty();
                });
        return rollup.then(Mono.defer(() -> pinned.get()
                ? Mono.<Void>empty()
                : step(Step.FOLD, ops::foldTerminalCounts).then(step(Step.TRIM, ops::trimLedgers)).then()));
    }

    private <T> Mono<T> bounded(Supplier<Mono<T>> work) {
        return Mono.defer(work).timeout(taskTimeout, scheduler);
    }

    private <T> Mono<T> step(Step step, Supplier<Mono<T>> work) {
        return guarded(work, error -> failure(step, error));
    }

    /** Bounded work whose failure is reported to {@code onFailure} and ends it empty. */
    private <T> Mono<T> guarded(Supplier<Mono<T>> work, Consumer<Throwable> onFailure) {
        return bounded(work).onErrorResume(error -> {
            onFailure.accept(error);
            return Mono.empty();
        });
    }

    private void publish(Ring ring, PruneOutcome outcome, List<LockHolder> blockers) {
        metrics.prune(ring, outcome);
        // FAIL_ZERO_SUBSCRIBER is normal; a subscriber without demand simply misses the event.
        events.tryEmitNext(new PruneEvent(ring, outcome, config.clock().instant(), blockers));
    }

    // ---------------------------------------------------------------- logging

    private void failure(Step step, Throwable error) {
        // Losing an election or a leader connection is recoverable (the election retries): WARN; the rest ERROR.
        failure(step.label(), error, step == Step.ELECTION || step == Step.LEADER_CHECK);
    }

    private void taskFailure(String task, Throwable error) {
        failure(task, error, false);
    }

    private void failure(String label, Throwable error, boolean recoverable) {
        metrics.taskFailure(label);
        if (!limited.permit("step-" + label)) {
            return;
        }
        String message = error instanceof TimeoutException
                ? "maintenance step " + label + " did not finish within taskTimeout " + taskTimeout + "; cancelled"
                : "maintenance step " + label + " failed (SQLSTATE " + SqlStates.sqlState(error) + "): " + error;
        if (recoverable) {
            LOG.warn(message);
        } else {
            LOG.error(message);
        }
    }

    private void logFailedPrune(Ring ring, PruneOutcome.Failed failed) {
        if (!limited.permit("prune-failed-" + ring.label())) {
            return;
        }
        if (failed.error() instanceof TimeoutException) {
            LOG.error("prune of the {} ring did not finish within taskTimeout {}; cancelled and rolled back",
                    ring.label(), taskTimeout);
        } else {
            logFailure(MaintenanceFailures.message("prune", ring.label(), failed.slot(), failed.sqlState(),
                    failed.error(), lockTimeout.toMillis()), failed.sqlState(), failed.error());
        }
    }

    /** A failed prune or rollup at ERROR; with its stack trace only when no SQLSTATE explains it (likely a bug). */
    private static void logFailure(String message, @Nullable String sqlState, Throwable error) {
        if (sqlState == null) {
            LOG.error(message, error);
        } else {
            LOG.error(message);
        }
    }

    private void logBlockers(Ring ring, PruneOutcome.Blocked blocked, List<LockHolder> holders) {
        if (!limited.permit("blockers-" + ring.label())) {
            return;
        }
        String who = holders.isEmpty() ? "no conflicting session found (it has ended)" : holders.stream()
                .map(h -> "pid " + h.pid() + " (application_name '" + h.applicationName() + "', state " + h.state()
                        + ", transaction age " + h.transactionAge() + ", wait_event " + h.waitEvent() + ", query '"
                        + h.query() + "')")
                .collect(Collectors.joining("; "));
        LOG.warn("prune of the {} ring, slot {}, was blocked ({}): {}", ring.label(), blocked.slot(),
                blocked.cause().label(), who);
    }
}
