package io.awareactive.maintenance;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RingOperations;
import io.awareactive.core.ring.RollupOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.maintenance.internal.EngineSql;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Substitute task bodies for the loop's own scheduling tests (virtual time): no database behaviour is simulated,
 * only timing, failures and the order of calls. Every body goes through {@link #track} so a probe sees how many run
 * at once.
 */
final class FakePort implements RingOperations, EngineSql {

    volatile Function<Ring, Mono<RotateOutcome>> rotate = ring -> Mono.just(new RotateOutcome.Rotated(1, 1));
    volatile Function<Ring, Mono<PruneOutcome>> prune = ring -> Mono.just(new PruneOutcome.Noop());
    volatile Supplier<Flux<RollupOutcome>> rollup = Flux::empty;
    volatile Supplier<Mono<Integer>> promote = () -> Mono.just(0);
    volatile Supplier<Mono<Integer>> rescue = () -> Mono.just(0);
    volatile Supplier<Mono<Long>> dlqPurge = () -> Mono.just(0L);
    volatile Supplier<Mono<Long>> fold = () -> Mono.just(0L);
    volatile Supplier<Mono<Long>> trim = () -> Mono.just(0L);
    volatile Supplier<Mono<Void>> check = Mono::empty;
    volatile boolean wins = true;

    final List<String> calls = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    final AtomicInteger active = new AtomicInteger();
    final AtomicInteger maxActive = new AtomicInteger();
    final AtomicInteger elections = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    final AtomicInteger cancelled = new AtomicInteger();

    int count(String call) {
        AtomicInteger n = counts.get(call);
        return n == null ? 0 : n.get();
    }

    private <T> Mono<T> track(String call, Supplier<Mono<T>> body) {
        return Mono.defer(() -> {
            calls.add(call);
            counts.computeIfAbsent(call, k -> new AtomicInteger()).incrementAndGet();
            maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
            // The call ends at its first signal, before the signal reaches the next step.
            AtomicBoolean ended = new AtomicBoolean();
            return body.get()
                    .doOnEach(signal -> {
                        if (ended.compareAndSet(false, true)) {
                            active.decrementAndGet();
                        }
                    })
                    .doOnCancel(() -> {
                        if (ended.compareAndSet(false, true)) {
                            active.decrementAndGet();
                            cancelled.incrementAndGet();
                        }
                    });
        });
    }

    @Override
    public String schema() {
        return "virtual_time";
    }

    @Override
    public ConnectionFactory connectionFactory() {
        throw new UnsupportedOperationException("the loop's scheduling tests open no connection");
    }

    @Override
    public Duration pruneLockTimeout() {
        return Duration.ofMillis(10);
    }

    @Override
    public int slotCount(Ring ring) {
        return ring == Ring.QUEUE ? 4 : 2;
    }

    @Override
    public Mono<Void> verifyInstalled() {
        return Mono.empty();
    }

    @Override
    public Mono<Leadership> tryLead() {
        return Mono.defer(() -> {
            elections.incrementAndGet();
            if (!wins) {
                return Mono.empty();
            }
            return Mono.just(new Leadership() {
                @Override
                public Mono<Void> check() {
                    return Mono.defer(() -> check.get());
                }

                @Override
                public Mono<Void> release() {
                    return Mono.fromRunnable(releases::incrementAndGet);
                }
            });
        });
    }

    @Override
    public Mono<RotateOutcome> rotate(Ring ring) {
        return track("rotate_" + ring.label(), () -> rotate.apply(ring));
    }

    @Override
    public Mono<PruneOutcome> prune(Ring ring) {
        return track("prune_" + ring.label(), () -> prune.apply(ring));
    }

    @Override
    public Mono<RingCursor> cursor(Ring ring) {
        return Mono.just(new RingCursor(ring, 1, 1));
    }

    @Override
    public Mono<Integer> sealedSlots(Ring ring) {
        return Mono.just(0);
    }

    @Override
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        return track("rollup", () -> rollup.get().collectList()).flatMapMany(Flux::fromIterable);
    }

    @Override
    public Mono<Long> foldTerminalCounts() {
        return track("fold", fold);
    }

    @Override
    public Mono<Long> trimLedgers() {
        return track("trim", trim);
    }

    @Override
    public Mono<Integer> promote(int maxJobs) {
        return track("promote", promote);
    }

    @Override
    public Mono<Integer> rescue(int maxJobs) {
        return track("rescue", rescue);
    }

    @Override
    public Mono<Long> purgeFailedJobs(int batchSize) {
        return track("dlq_purge", dlqPurge);
    }

    @Override
    public Mono<List<LockHolder>> blockers(Ring ring, int slot) {
        return Mono.just(List.of());
    }

    @Override
    public Mono<List<StartupWarning>> diagnose(Duration lockTimeout) {
        return Mono.just(List.of());
    }
}
