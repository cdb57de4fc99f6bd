package io.awareactive.maintenance.internal;

import static io.awareactive.maintenance.MaintenanceMeters.BLOCKER;
import static io.awareactive.maintenance.MaintenanceMeters.CAUSE;
import static io.awareactive.maintenance.MaintenanceMeters.OUTCOME;
import static io.awareactive.maintenance.MaintenanceMeters.PHASE;
import static io.awareactive.maintenance.MaintenanceMeters.REASON;
import static io.awareactive.maintenance.MaintenanceMeters.RING;
import static io.awareactive.maintenance.MaintenanceMeters.TASK;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneDurations;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RollupOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.core.ring.RotationBlocker;
import io.awareactive.core.ring.SkipReason;
import io.awareactive.maintenance.MaintenanceMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The engine's Micrometer recorder. Every series the outcome types allow is created once, eagerly, in the
 * constructor (so dashboards and {@code increase()} see zeros), and removed by {@link #close()}. Without a registry
 * every method only updates the gauge state. Counters are called from the serial loop; gauges are read by the
 * registry from any thread.
 */
public final class MaintenanceMetrics implements AutoCloseable {

    /** The engine's own tag keys; configured meter tags must not use them. */
    public static final Set<String> RESERVED_TAG_KEYS = Set.of(RING, OUTCOME, REASON, CAUSE, BLOCKER, PHASE, TASK);

    /** The outcome labels of {@code awa.maintenance.prune.attempts} that carry reason {@code none}. */
    static final List<String> PRUNE_OUTCOMES_WITHOUT_REASON =
            List.of("pruned", "noop", "blocked", "already_pruned", "backed_off", "error");
    /** The outcome labels of {@code awa.maintenance.rollup.attempts}. */
    static final List<String> ROLLUP_OUTCOMES = List.of("rolled", "empty", "blocked", "skipped_mvcc_pinned", "error");

    private static final String NONE = PruneOutcome.NO_REASON;
    private static final Duration[] SLO_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
        Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
        Duration.ofSeconds(30), Duration.ofSeconds(60)};

    private final @Nullable MeterRegistry registry;
    private final Tags common;
    private final List<String> tasks;
    private final List<Meter> meters = new ArrayList<>();
    private final Map<String, Counter> pruneAttempts = new HashMap<>();
    private final Map<String, Counter> pruneBlocked = new HashMap<>();
    private final Map<String, Timer> pruneDuration = new HashMap<>();
    private final Map<String, Counter> rotateAttempts = new HashMap<>();
    private final Map<String, Counter> rollupAttempts = new HashMap<>();
    private final Map<String, Counter> taskFailures = new HashMap<>();
    private final Map<String, Counter> ticksDropped = new HashMap<>();
    private final Map<Ring, RingGauges> ringGauges = new EnumMap<>(Ring.class);
    private volatile double leader;

    /** Per-ring gauge state: {@code NaN} while this engine does not lead. */
    private static final class RingGauges {
        volatile double currentSlot = Double.NaN;
        volatile double generation = Double.NaN;
        volatile double sealedSlots = Double.NaN;
    }

    /**
     * Creates the recorder and registers every series at zero.
     *
     * @param registry the registry, or {@code null} for no metrics
     * @param commonTags tags added to every meter
     * @param tasks the labels of the engine's tasks: the {@code awa.maintenance.task} values of the tick and failure
     *     counters, besides the {@link Step}s
     */
    public MaintenanceMetrics(@Nullable MeterRegistry registry, Tags commonTags, List<String> tasks) {
        this.registry = registry;
        this.common = commonTags;
        this.tasks = List.copyOf(tasks);
        for (Ring ring : Ring.values()) {
            ringGauges.put(ring, new RingGauges());
        }
        if (registry != null) {
            registerAll(registry);
        }
    }

    private void registerAll(MeterRegistry r) {
        for (Ring ring : Ring.values()) {
            String rl = ring.label();
            for (String outcome : PRUNE_OUTCOMES_WITHOUT_REASON) {
                pruneAttempts.put(key(rl, outcome, NONE), counter(r, MaintenanceMeters.PRUNE_ATTEMPTS,
                        Tags.of(RING, rl, OUTCOME, outcome, REASON, NONE)));
            }
            for (SkipReason reason : SkipReason.values()) {
                if (reason.ring() == ring) {
                    pruneAttempts.put(key(rl, "skipped_active", reason.label()), counter(r,
                            MaintenanceMeters.PRUNE_ATTEMPTS,
                            Tags.of(RING, rl, OUTCOME, "skipped_active", REASON, reason.label())));
                }
            }
            for (BlockedCause cause : BlockedCause.values()) {
                pruneBlocked.put(key(rl, cause.label()), counter(r, MaintenanceMeters.PRUNE_BLOCKED,
                        Tags.of(RING, rl, CAUSE, cause.label())));
            }
            for (String phase : List.of("lock", "truncate", "commit")) {
                Timer timer = Timer.builder(MaintenanceMeters.PRUNE_DURATION.meterName())
                        .description(MaintenanceMeters.PRUNE_DURATION.description())
                        .tags(common.and(RING, rl, PHASE, phase))
                        .serviceLevelObjectives(SLO_BUCKETS)
                        .register(r);
                meters.add(timer);
                pruneDuration.put(key(rl, phase), timer);
            }
            for (String outcome : List.of("rotated", "skipped_idle")) {
                rotateAttempts.put(key(rl, outcome, NONE), counter(r, MaintenanceMeters.ROTATE_ATTEMPTS,
                        Tags.of(RING, rl, OUTCOME, outcome, BLOCKER, NONE)));
            }
            for (RotationBlocker blocker : RotationBlocker.values()) {
                if (blocker.ring() == null || blocker.ring() == ring) {
                    rotateAttempts.put(key(rl, "skipped_busy", blocker.label()), counter(r,
                            MaintenanceMeters.ROTATE_ATTEMPTS,
                            Tags.of(RING, rl, OUTCOME, "skipped_busy", BLOCKER, blocker.label())));
                }
            }
            RingGauges g = ringGauges.get(ring);
            gauge(r, MaintenanceMeters.RING_CURRENT_SLOT, Tags.of(RING, rl), g, x -> x.currentSlot);
            gauge(r, MaintenanceMeters.RING_GENERATION, Tags.of(RING, rl), g, x -> x.generation);
            gauge(r, MaintenanceMeters.RING_SEALED_SLOTS, Tags.of(RING, rl), g, x -> x.sealedSlots);
        }
        for (String outcome : ROLLUP_OUTCOMES) {
            rollupAttempts.put(outcome, counter(r, MaintenanceMeters.ROLLUP_ATTEMPTS,
                    Tags.of(RING, Ring.QUEUE.label(), OUTCOME, outcome)));
        }
        for (String task : tasks) {
            taskFailures.put(task, counter(r, MaintenanceMeters.TASK_FAILURES, Tags.of(TASK, task)));
        }
        for (Step step : Step.values()) {
            taskFailures.put(step.label(), counter(r, MaintenanceMeters.TASK_FAILURES, Tags.of(TASK, step.label())));
        }
        for (String task : tasks) {
            ticksDropped.put(task, counter(r, MaintenanceMeters.TICKS_DROPPED, Tags.of(TASK, task)));
        }
        gauge(r, MaintenanceMeters.LEADER, Tags.empty(), this, m -> m.leader);
    }

    private Counter counter(MeterRegistry r, MaintenanceMeters meter, Tags tags) {
        Counter counter = Counter.builder(meter.meterName())
                .description(meter.description())
                .tags(common.and(tags))
                .register(r);
        meters.add(counter);
        return counter;
    }

    private <T> void gauge(MeterRegistry r, MaintenanceMeters meter, Tags tags, T state,
            java.util.function.ToDoubleFunction<T> value) {
        meters.add(Gauge.builder(meter.meterName(), state, value)
                .description(meter.description())
                .tags(common.and(tags))
                .strongReference(true)
                .register(r));
    }

    private static String key(String... parts) {
        return String.join("|", parts);
    }

    private static void increment(@Nullable Counter counter) {
        if (counter != null) {
            counter.increment();
        }
    }

    /**
     * Counts a prune outcome; a {@code blocked} one also by cause, a {@code pruned} one adds its phase timings.
     *
     * @param ring the ring
     * @param outcome the outcome
     */
    public void prune(Ring ring, PruneOutcome outcome) {
        String rl = ring.label();
        increment(pruneAttempts.get(key(rl, outcome.label(), outcome.reasonLabel())));
        if (outcome instanceof PruneOutcome.Blocked blocked) {
            increment(pruneBlocked.get(key(rl, blocked.cause().label())));
        } else if (outcome instanceof PruneOutcome.Pruned pruned) {
            PruneDurations d = pruned.durations();
            record(pruneDuration.get(key(rl, "lock")), d.lock());
            record(pruneDuration.get(key(rl, "truncate")), d.truncate());
            record(pruneDuration.get(key(rl, "commit")), d.commit());
        }
    }

    private static void record(@Nullable Timer timer, Duration duration) {
        if (timer != null) {
            timer.record(duration);
        }
    }

    /**
     * Counts a rotation: {@code skipped_busy} once per blocker.
     *
     * @param ring the ring
     * @param outcome the outcome
     */
    public void rotate(Ring ring, RotateOutcome outcome) {
        String rl = ring.label();
        if (outcome instanceof RotateOutcome.SkippedBusy busy) {
            for (RotationBlocker blocker : busy.blockers()) {
                increment(rotateAttempts.get(key(rl, outcome.label(), blocker.label())));
            }
        } else {
            increment(rotateAttempts.get(key(rl, outcome.label(), NONE)));
        }
    }

    /**
     * Counts one rollup slot transaction.
     *
     * @param outcome the outcome
     */
    public void rollup(RollupOutcome outcome) {
        increment(rollupAttempts.get(outcome.label()));
    }

    /**
     * Counts a failed task or step.
     *
     * @param label the task's label or a {@link Step}'s label
     */
    public void taskFailure(String label) {
        increment(taskFailures.get(label));
    }

    /**
     * Counts a tick dropped because the loop was busy.
     *
     * @param task the label of the task whose tick was dropped
     */
    public void tickDropped(String task) {
        increment(ticksDropped.get(task));
    }

    /**
     * Sets a ring's cursor gauges.
     *
     * @param ring the ring
     * @param slot the current slot
     * @param generation the generation
     */
    public void cursor(Ring ring, int slot, long generation) {
        RingGauges g = ringGauges.get(ring);
        g.currentSlot = slot;
        g.generation = generation;
    }

    /**
     * Sets a ring's sealed-slot gauge.
     *
     * @param ring the ring
     * @param sealedSlots initialized sealed slots still holding rows
     */
    public void sealedSlots(Ring ring, int sealedSlots) {
        ringGauges.get(ring).sealedSlots = sealedSlots;
    }

    /**
     * Sets the leader gauge; losing leadership also sets every ring gauge to {@code NaN}, so
     * {@code max by (awa_ring)} across instances picks the leader's value.
     *
     * @param leading whether this engine now leads
     */
    public void leader(boolean leading) {
        leader = leading ? 1 : 0;
        if (!leading) {
            for (RingGauges g : ringGauges.values()) {
                g.currentSlot = Double.NaN;
                g.generation = Double.NaN;
                g.sealedSlots = Double.NaN;
            }
        }
    }

    /** Removes every meter of this recorder from the registry. Idempotent. */
    @Override
    public void close() {
        if (registry != null) {
            synchronized (meters) {
                for (Meter meter : meters) {
                    registry.remove(meter);
                }
                meters.clear();
            }
        }
    }
}
