package io.awareactive.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneDurations;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.PruneOutcome.BackedOff;
import io.awareactive.core.ring.PruneOutcome.Pruned;
import io.awareactive.core.ring.PruneOutcome.SkippedActive;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.core.ring.SkipReason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** The loop's own scheduling on virtual time (design §12 scenarios 18 and 19), with substitute task bodies. */
final class MaintenanceLoopUnitTests {

    private static final PruneDurations NO_TIME = new PruneDurations(Duration.ZERO, Duration.ZERO, Duration.ZERO);
    private static final SkippedActive ACTIVE = new SkippedActive(0, SkipReason.QUEUE_PENDING_READY);
    private static final String ENGINE_LOGGER = "io.awareactive.maintenance.RingMaintenance";

    private final VirtualTime time = new VirtualTime();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final FakePort port = new FakePort();
    private final List<PruneEvent> events = new CopyOnWriteArrayList<>();
    private RingMaintenance engine;

    private RingMaintenance start(UnaryOperator<RingMaintenanceConfig.Builder> customizer) {
        engine = RingMaintenance.create(customizer.apply(time.config(registry)).build(), port, port);
        engine.outcomes().subscribe(events::add);
        engine.start().block(Duration.ofSeconds(5));
        time.scheduler.advanceTime();
        return engine;
    }

    @AfterEach
    void stopEngine() {
        if (engine != null && !engine.isDisposed()) {
            engine.stop(Duration.ZERO).subscribe();
            time.scheduler.advanceTime();
        }
        time.scheduler.dispose();
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private List<String> labels() {
        return events.stream().map(e -> e.outcome().label()).collect(Collectors.toList());
    }

    /** Each prune call takes the next outcome; the last one repeats. */
    private static java.util.function.Function<Ring, Mono<PruneOutcome>> sequence(PruneOutcome... outcomes) {
        Deque<PruneOutcome> queue = new ConcurrentLinkedDeque<>(List.of(outcomes));
        return ring -> Mono.fromCallable(() -> queue.size() > 1 ? queue.poll() : queue.peek());
    }

    @Nested
    final class Cadence {

        @Test
        void shouldTickEveryTaskOnItsOwnIntervalStartingOneIntervalAfterElection() {
            start(b -> b.task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofSeconds(1)))
                    .task(MaintenanceTask.RING_LEASE, t -> t.interval(Duration.ofSeconds(2)))
                    .task(MaintenanceTask.RING_CLAIM, t -> t.interval(Duration.ofSeconds(3)))
                    .task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofMillis(500)))
                    .task(MaintenanceTask.RESCUE, p -> p.interval(Duration.ofSeconds(5)))
                    .task(MaintenanceTask.DLQ_PURGE, p -> p.interval(Duration.ofSeconds(6)))
                    .task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ofSeconds(7))));

            time.advance(Duration.ofMillis(499));
            assertThat(port.calls).isEmpty();

            time.advance(Duration.ofMillis(11_501));

            assertThat(port.count("rotate_queue")).isEqualTo(12);
            assertThat(port.count("prune_queue")).isEqualTo(12);
            assertThat(port.count("rotate_lease")).isEqualTo(6);
            assertThat(port.count("rotate_claim")).isEqualTo(4);
            assertThat(port.count("promote")).isEqualTo(24);
            assertThat(port.count("rescue")).isEqualTo(2);
            assertThat(port.count("dlq_purge")).isEqualTo(2);
            assertThat(port.count("rollup")).isEqualTo(1);
            assertThat(port.count("fold")).isEqualTo(1);
            assertThat(port.count("trim")).isEqualTo(1);
            assertThat(count("awa.maintenance.ticks.dropped", "awa.maintenance.task", "ring_queue")).isZero();
            assertThat(port.elections).hasValue(1);
            assertThat(engine.isLeader()).isTrue();
        }

        @Test
        void shouldRunTasksOneAtATimeAndDropAndCountTicksThatArriveDuringASlowPass() {
            port.prune = ring -> Mono.delay(Duration.ofSeconds(5), time.scheduler).thenReturn(new PruneOutcome.Noop());
            start(b -> b.task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofSeconds(1))));

            time.advanceSeconds(20);

            assertThat(port.maxActive).hasValue(1);
            int prunes = port.count("prune_queue");
            assertThat(prunes).isBetween(2, 4);
            double droppedQueue = count("awa.maintenance.ticks.dropped", "awa.maintenance.task", "ring_queue");
            double droppedPromote = count("awa.maintenance.ticks.dropped", "awa.maintenance.task", "promote");
            assertThat(droppedQueue).isPositive();
            assertThat(droppedPromote).isPositive();
            // 20 ticks per task: each was handled, dropped, or is the one waiting tick.
            assertThat(droppedQueue + port.count("rotate_queue")).isBetween(19.0, 20.0);
            assertThat(droppedPromote + port.count("promote")).isBetween(19.0, 20.0);
            // Dropped ticks are not replayed: nothing catches up once the slow step is fast again.
            port.prune = ring -> Mono.just(new PruneOutcome.Noop());
            int rotationsBefore = port.count("rotate_queue");
            time.advanceSeconds(10);
            assertThat(port.count("rotate_queue") - rotationsBefore).isBetween(10, 12);
        }
    }

    @Nested
    final class Backoff {

        @Test
        void shouldSkipWindowsOf2_4_8_16_32_32TicksAfterConsecutiveSkipsAndResetOnPruned() {
            port.prune = sequence(ACTIVE, ACTIVE, ACTIVE, ACTIVE, ACTIVE, ACTIVE, new Pruned(0, 0, NO_TIME), ACTIVE);
            start(UnaryOperator.identity());

            time.advanceSeconds(1 + 2 + 1 + 4 + 1 + 8 + 1 + 16 + 1 + 32 + 1 + 32 + 1 + 1 + 2 + 1);

            List<Integer> windows = new ArrayList<>();
            List<String> prunesAndWindows = new ArrayList<>();
            int run = 0;
            for (PruneEvent event : events) {
                if (event.outcome() instanceof BackedOff backedOff) {
                    run++;
                    assertThat(backedOff.ring()).isEqualTo(Ring.QUEUE);
                } else {
                    if (run > 0) {
                        windows.add(run);
                    }
                    run = 0;
                    prunesAndWindows.add(event.outcome().label());
                }
            }
            assertThat(windows).containsExactly(2, 4, 8, 16, 32, 32, 2);
            assertThat(prunesAndWindows).containsExactly("skipped_active", "skipped_active", "skipped_active",
                    "skipped_active", "skipped_active", "skipped_active", "pruned", "skipped_active", "skipped_active");
            assertThat(port.count("prune_queue")).isEqualTo(9);
            // ticksRemaining counts down inside a window.
            List<Integer> firstWindow = events.subList(1, 3).stream()
                    .map(e -> ((BackedOff) e.outcome()).ticksRemaining()).collect(Collectors.toList());
            assertThat(firstWindow).containsExactly(1, 0);
            assertThat(count("awa.maintenance.prune.attempts", "awa.ring", "queue", "awa.ring.outcome", "backed_off",
                    "awa.ring.reason", "none")).isEqualTo(2 + 4 + 8 + 16 + 32 + 32 + 2);
            // Every tick rotated; backoff never skips rotation.
            assertThat(port.count("rotate_queue")).isEqualTo(events.size());
        }

        @Test
        void shouldLeaveTheLevelUnchangedOnBlockedNoopFailedAndAlreadyPruned() {
            AtomicBoolean idle = new AtomicBoolean();
            port.rotate = ring -> Mono.fromCallable(() -> idle.get()
                    ? new RotateOutcome.SkippedIdle(3, 3)
                    : new RotateOutcome.Rotated(3, 3));
            port.prune = sequence(new Pruned(0, 0, NO_TIME), ACTIVE, new PruneOutcome.Blocked(0,
                    BlockedCause.LOCK_TIMEOUT), new PruneOutcome.Noop(), new PruneOutcome.Failed(0, "57014",
                    new IllegalStateException("boom")), ACTIVE);
            start(UnaryOperator.identity());

            time.advanceSeconds(1);
            idle.set(true);
            time.advanceSeconds(1);
            idle.set(false);
            time.advanceSeconds(1 + 2 + 1 + 1 + 1 + 1 + 4);

            assertThat(labels()).containsExactly("pruned", "already_pruned", "skipped_active", "backed_off",
                    "backed_off", "blocked", "noop", "error", "skipped_active", "backed_off", "backed_off",
                    "backed_off", "backed_off");
            assertThat(events.get(1).outcome()).isEqualTo(new PruneOutcome.AlreadyPruned(0, 0));
        }

        @Test
        void shouldAnswerAnIdleRingThatNeverRotatedWithNoopWithoutAPrune() {
            port.rotate = ring -> Mono.just(new RotateOutcome.SkippedIdle(0, 0));
            start(UnaryOperator.identity());

            time.advanceSeconds(3);

            assertThat(labels()).containsExactly("noop", "noop", "noop");
            assertThat(port.count("rotate_queue")).isEqualTo(3);
            assertThat(port.count("prune_queue")).isZero();
        }

        @Test
        void shouldResetBackoffOnANewLeadership() {
            port.prune = sequence(ACTIVE);
            AtomicBoolean connectionDead = new AtomicBoolean();
            port.check = () -> connectionDead.get() ? Mono.error(new IllegalStateException("gone")) : Mono.empty();
            start(b -> b.leaderCheckInterval(Duration.ofMillis(1500)).leaderElectionInterval(Duration.ofSeconds(10)));

            time.advanceSeconds(1);
            assertThat(labels()).containsExactly("skipped_active");
            connectionDead.set(true);
            time.advance(Duration.ofMillis(600));
            assertThat(engine.isLeader()).isFalse();
            assertThat(port.releases).hasValue(1);
            assertThat(registry.get("awa.maintenance.leader").gauge().value()).isZero();
            assertThat(registry.get("awa.ring.current_slot").tag("awa.ring", "queue").gauge().value()).isNaN();
            assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "leader_check")).isEqualTo(1);

            connectionDead.set(false);
            time.advance(Duration.ofMillis(8_400));
            assertThat(engine.isLeader()).isTrue();
            assertThat(port.elections).hasValue(2);
            time.advanceSeconds(1);

            // The new leader prunes at its first tick instead of serving the old leader's backoff window.
            assertThat(labels()).containsExactly("skipped_active", "skipped_active");
        }
    }

    @Nested
    final class Failures {

        @Test
        void shouldCountFailingTasksAndKeepTheLoopRunning() {
            AtomicInteger rotations = new AtomicInteger();
            port.rotate = ring -> Mono.defer(() -> rotations.incrementAndGet() <= 2
                    ? Mono.error(new IllegalStateException("rotation failed"))
                    : Mono.just(new RotateOutcome.Rotated(1, 1)));
            port.promote = () -> Mono.error(new IllegalStateException("promotion failed"));
            port.fold = () -> Mono.error(new IllegalStateException("fold failed"));
            port.dlqPurge = () -> Mono.error(new IllegalStateException("purge failed"));
            start(b -> b.task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofSeconds(1)))
                    .task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ofSeconds(3)))
                    .task(MaintenanceTask.DLQ_PURGE, p -> p.interval(Duration.ofSeconds(2))));

            time.advanceSeconds(6);

            assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "ring_queue")).isEqualTo(2);
            assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "promote")).isEqualTo(6);
            assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "fold")).isEqualTo(2);
            assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "dlq_purge")).isEqualTo(3);
            // A failed rotation ends its tick without a prune event; later ticks prune again.
            assertThat(port.count("prune_queue")).isEqualTo(4);
            assertThat(events).hasSize(4);
            assertThat(port.count("trim")).isEqualTo(2);
            assertThat(engine.isLeader()).isTrue();
        }

        @Test
        void shouldLogARingFailingEveryTickOnceAMinute() {
            port.prune = ring -> Mono.just(new PruneOutcome.Failed(0, "57014",
                    new IllegalStateException("canceling statement due to statement timeout")));
            port.rotate = ring -> ring == Ring.LEASE
                    ? Mono.error(new IllegalStateException("rotation failed"))
                    : Mono.just(new RotateOutcome.Rotated(1, 1));
            try (Fixtures.LogCapture log = new Fixtures.LogCapture(ENGINE_LOGGER, Level.DEBUG)) {
                start(b -> b.task(MaintenanceTask.RING_LEASE, t -> t.interval(Duration.ofSeconds(1))));

                time.advanceSeconds(60);

                // A minute of ticks, every one failing: one line per ring (docs/operations.md, Logging).
                assertThat(events).hasSize(60).allMatch(e -> e.outcome() instanceof PruneOutcome.Failed);
                assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "ring_lease")).isEqualTo(60);
                assertThat(log.lines(Level.ERROR)).hasSize(2)
                        .anyMatch(line -> line.startsWith("prune of the queue ring") && line.contains("57014"))
                        .anyMatch(line -> line.startsWith("maintenance step ring_lease failed"));
                assertThat(log.lines(Level.WARN)).isEmpty();

                time.advanceSeconds(9 * 60);

                // Ten minutes: ten lines per ring, one at the first failure of each minute.
                assertThat(events).hasSize(600);
                assertThat(log.lines(Level.ERROR)).hasSize(20)
                        .filteredOn(line -> line.startsWith("prune of the queue ring")).hasSize(10);
                assertThat(log.lines(Level.WARN)).isEmpty();
            }
        }

        @Test
        void shouldReportAPruneThatErrorsAsAnErrorOutcome() {
            port.prune = ring -> Mono.error(new IllegalStateException("driver bug"));
            start(UnaryOperator.identity());

            time.advanceSeconds(2);

            assertThat(labels()).containsExactly("error", "error");
            PruneOutcome.Failed failed = (PruneOutcome.Failed) events.get(0).outcome();
            assertThat(failed.sqlState()).isNull();
            assertThat(failed.error()).hasMessage("driver bug");
            assertThat(count("awa.maintenance.prune.attempts", "awa.ring", "queue", "awa.ring.outcome", "error",
                    "awa.ring.reason", "none")).isEqualTo(2);
        }

        @Test
        void shouldTimeOutAHungPruneAsAnErrorAndGoOn() {
            AtomicInteger prunes = new AtomicInteger();
            port.prune = ring -> prunes.incrementAndGet() == 1 ? Mono.never() : Mono.just(new PruneOutcome.Noop());
            start(b -> b.taskTimeout(Duration.ofSeconds(5)));

            time.advance(Duration.ofMillis(5_999));
            assertThat(events).isEmpty();
            time.advance(Duration.ofMillis(1));

            PruneOutcome.Failed failed = (PruneOutcome.Failed) events.get(0).outcome();
            assertThat(failed.error()).isInstanceOf(TimeoutException.class);
            assertThat(port.cancelled).hasValue(1);
            // The waiting tick (and the one due now) run at once; nothing was replayed beyond that.
            assertThat(labels().subList(1, events.size())).isNotEmpty().hasSizeLessThanOrEqualTo(2)
                    .containsOnly("noop");
            int before = events.size();
            time.advanceSeconds(1);
            assertThat(events).hasSize(before + 1);
        }

        @Test
        void shouldTimeOutAHungRotationAsATaskFailure() {
            AtomicInteger rotations = new AtomicInteger();
            port.rotate = ring -> rotations.incrementAndGet() == 1 ? Mono.never()
                    : Mono.just(new RotateOutcome.Rotated(1, 1));
            start(b -> b.taskTimeout(Duration.ofSeconds(3)));

            time.advance(Duration.ofMillis(3_999));
            assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "ring_queue")).isZero();
            time.advance(Duration.ofMillis(1));

            assertThat(count("awa.maintenance.task.failures", "awa.maintenance.task", "ring_queue")).isEqualTo(1);
            assertThat(port.cancelled).hasValue(1);
            // No event for the timed-out tick; the waiting tick (and the one due now) pruned.
            assertThat(labels()).isNotEmpty().hasSizeLessThanOrEqualTo(2).containsOnly("noop");
            int before = events.size();
            time.advanceSeconds(1);
            assertThat(events).hasSize(before + 1);
        }
    }

    @Nested
    final class Stop {

        @Test
        void shouldCancelTheRunningTaskWhenTheGraceElapses() {
            port.prune = ring -> Mono.delay(Duration.ofSeconds(10), time.scheduler).thenReturn(new PruneOutcome.Noop());
            AtomicBoolean completed = new AtomicBoolean();
            AtomicBoolean stopped = new AtomicBoolean();
            start(UnaryOperator.identity());
            engine.outcomes().subscribe(e -> { }, e -> { }, () -> completed.set(true));
            time.advanceSeconds(2);
            assertThat(port.active).hasValue(1);

            engine.stop(Duration.ofSeconds(3)).subscribe(null, null, () -> stopped.set(true));
            time.advance(Duration.ofMillis(2_999));
            assertThat(stopped).isFalse();
            assertThat(engine.isDisposed()).isFalse();
            time.advance(Duration.ofMillis(1));

            assertThat(stopped).isTrue();
            assertThat(engine.isDisposed()).isTrue();
            assertThat(port.cancelled).hasValue(1);
            assertThat(port.releases).hasValue(1);
            assertThat(completed).isTrue();
            assertThat(events).isEmpty();
            assertThat(engine.isLeader()).isFalse();
            assertThat(registry.getMeters()).isEmpty();
            time.advanceSeconds(30);
            assertThat(port.count("rotate_queue")).isEqualTo(1);
        }

        @Test
        void shouldLetTheRunningTaskFinishWithinTheGrace() {
            port.prune = ring -> Mono.delay(Duration.ofSeconds(2), time.scheduler)
                    .thenReturn(new Pruned(0, 0, NO_TIME));
            AtomicBoolean stopped = new AtomicBoolean();
            AtomicBoolean completed = new AtomicBoolean();
            start(UnaryOperator.identity());
            engine.outcomes().subscribe(e -> { }, e -> { }, () -> completed.set(true));
            time.advance(Duration.ofMillis(1_500));

            engine.stop(Duration.ofSeconds(10)).subscribe(null, null, () -> stopped.set(true));
            time.advance(Duration.ofMillis(1_499));
            assertThat(stopped).isFalse();
            time.advance(Duration.ofMillis(1));

            assertThat(stopped).isTrue();
            assertThat(port.cancelled).hasValue(0);
            assertThat(labels()).containsExactly("pruned");
            assertThat(completed).isTrue();
            assertThat(port.releases).hasValue(1);
        }

        @Test
        void shouldRejectANegativeOrMissingGraceAtCallTime() {
            RingMaintenance notStarted = RingMaintenance.create(time.config(registry).build(), port, port);
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(() -> notStarted.stop(Duration.ofSeconds(-1)))
                    .withMessage("grace must not be null or negative, was PT-1S");
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(() -> notStarted.stop(null))
                    .withMessage("grace must not be null or negative, was null");
            assertThat(notStarted.isDisposed()).isFalse();
        }

        @Test
        void shouldBeSafeToStopTwiceAndBeforeStart() {
            RingMaintenance notStarted = RingMaintenance.create(time.config(registry).build(), port, port);
            AtomicBoolean completed = new AtomicBoolean();
            notStarted.outcomes().subscribe(e -> { }, e -> { }, () -> completed.set(true));

            notStarted.stop(Duration.ZERO).block(Duration.ofSeconds(5));
            notStarted.stop(Duration.ZERO).block(Duration.ofSeconds(5));
            notStarted.start().block(Duration.ofSeconds(5));
            time.advanceSeconds(5);

            assertThat(notStarted.isDisposed()).isTrue();
            assertThat(completed).isTrue();
            assertThat(port.elections).hasValue(0);
        }
    }

    @Nested
    final class Leadership {

        @Test
        void shouldRetryTheElectionEveryIntervalAndRunNoTaskAsFollower() {
            port.wins = false;
            start(b -> b.leaderElectionInterval(Duration.ofSeconds(10)));

            time.advanceSeconds(35);

            assertThat(port.elections).hasValue(4);
            assertThat(port.calls).isEmpty();
            assertThat(engine.isLeader()).isFalse();
            assertThat(registry.get("awa.maintenance.leader").gauge().value()).isZero();
            assertThat(registry.get("awa.ring.sealed_slots").tag("awa.ring", "lease").gauge().value()).isNaN();

            port.wins = true;
            time.advanceSeconds(10);
            assertThat(engine.isLeader()).isTrue();
            assertThat(registry.get("awa.maintenance.leader").gauge().value()).isEqualTo(1);
        }
    }

    @Nested
    final class Outcomes {

        @Test
        void shouldNotLetASlowSubscriberDelayTicksOrOtherSubscribers() throws Exception {
            Scheduler outcomeScheduler = Schedulers.newBoundedElastic(4, 1000, "outcomes-test");
            try {
                engine = RingMaintenance.create(time.config(registry).outcomeScheduler(outcomeScheduler).build(),
                        port, port);
                CountDownLatch release = new CountDownLatch(1);
                AtomicInteger slow = new AtomicInteger();
                AtomicInteger fast = new AtomicInteger();
                engine.outcomes().subscribe(e -> {
                    slow.incrementAndGet();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                });
                engine.outcomes().subscribe(e -> fast.incrementAndGet());
                engine.start().block(Duration.ofSeconds(5));

                for (int i = 1; i <= 100; i++) {
                    time.advanceSeconds(1);
                    // Every tick ran on time although the slow subscriber has been stuck since the first event.
                    assertThat(port.count("rotate_queue")).isEqualTo(i);
                    int expected = i;
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(fast).hasValue(expected));
                }

                assertThat(slow.get()).isEqualTo(1);
                release.countDown();
                // The slow subscriber gets at most its 32-event buffer (one being handled): the rest were lost to it.
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(slow.get()).isBetween(2, 32));
                time.advanceSeconds(1);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(fast).hasValue(101));
                engine.stop(Duration.ZERO).subscribe();
                time.scheduler.advanceTime();
            } finally {
                outcomeScheduler.dispose();
            }
        }

        @Test
        void shouldStampEventsWithTheInjectedClock() {
            start(UnaryOperator.identity());
            time.advanceSeconds(3);
            assertThat(events).extracting(e -> e.at().toEpochMilli()).containsExactly(1000L, 2000L, 3000L);
            assertThat(events).allSatisfy(e -> assertThat(e.blockers()).isEmpty());
        }
    }

    @Test
    void shouldCountEveryEmittedOutcomeInTheMatchingSeries() {
        port.prune = sequence(new Pruned(0, 0, new PruneDurations(Duration.ofMillis(3), Duration.ofMillis(4),
                        Duration.ofMillis(5))), new PruneOutcome.Blocked(1, BlockedCause.NOWAIT),
                new PruneOutcome.Blocked(1, BlockedCause.SERIALIZER_BUSY), new PruneOutcome.Noop(), ACTIVE);
        port.rotate = ring -> Mono.just(new RotateOutcome.SkippedBusy(1, java.util.Set.of(
                io.awareactive.core.ring.RotationBlocker.QUEUE_DONE_ROWS,
                io.awareactive.core.ring.RotationBlocker.QUEUE_TOMBSTONES)));
        port.rollup = () -> Flux.just(new io.awareactive.core.ring.RollupOutcome.Rolled(1, 1, 3),
                new io.awareactive.core.ring.RollupOutcome.SkippedMvccPinned(2));
        start(b -> b.task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ofSeconds(5))));

        time.advanceSeconds(10);

        assertThat(labels()).containsExactly("pruned", "blocked", "blocked", "noop", "skipped_active",
                "backed_off", "backed_off", "skipped_active", "backed_off", "backed_off");
        for (String outcome : List.of("pruned", "blocked", "noop", "backed_off", "already_pruned", "error")) {
            long emitted = events.stream().filter(e -> e.outcome().label().equals(outcome)).count();
            assertThat(count("awa.maintenance.prune.attempts", "awa.ring", "queue", "awa.ring.outcome", outcome,
                    "awa.ring.reason", "none")).as(outcome).isEqualTo(emitted);
        }
        assertThat(count("awa.maintenance.prune.attempts", "awa.ring", "queue", "awa.ring.outcome",
                "skipped_active", "awa.ring.reason", "queue.pending_ready")).isEqualTo(2);
        assertThat(count("awa.maintenance.prune.blocked", "awa.ring", "queue", "awa.ring.cause", "nowait"))
                .isEqualTo(1);
        assertThat(count("awa.maintenance.prune.blocked", "awa.ring", "queue", "awa.ring.cause", "serializer_busy"))
                .isEqualTo(1);
        assertThat(count("awa.maintenance.prune.blocked", "awa.ring", "queue", "awa.ring.cause", "lock_timeout"))
                .isZero();
        assertThat(registry.get("awa.maintenance.prune.duration").tags("awa.ring", "queue",
                "awa.maintenance.phase", "truncate").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(4.0);
        assertThat(count("awa.maintenance.rotate.attempts", "awa.ring", "queue", "awa.ring.outcome", "skipped_busy",
                "awa.ring.blocker", "queue.done_rows")).isEqualTo(10);
        assertThat(count("awa.maintenance.rotate.attempts", "awa.ring", "queue", "awa.ring.outcome", "skipped_busy",
                "awa.ring.blocker", "queue.tombstones")).isEqualTo(10);
        assertThat(count("awa.maintenance.rollup.attempts", "awa.ring", "queue", "awa.ring.outcome", "rolled"))
                .isEqualTo(2);
        assertThat(count("awa.maintenance.rollup.attempts", "awa.ring", "queue", "awa.ring.outcome",
                "skipped_mvcc_pinned")).isEqualTo(2);
        // A pinned horizon skips fold and trim.
        assertThat(port.count("fold")).isZero();
        assertThat(port.count("trim")).isZero();
        // SkippedBusy carries no generation: the gauges come from a cursor read.
        assertThat(registry.get("awa.ring.generation").tag("awa.ring", "queue").gauge().value()).isEqualTo(1);
        assertThat(registry.get("awa.ring.sealed_slots").tag("awa.ring", "queue").gauge().value()).isZero();
    }
}
