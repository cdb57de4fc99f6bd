package io.awareactive.maintenance;

import io.awareactive.core.BlockedCause;
import io.awareactive.core.PruneOutcome;
import io.awareactive.core.Ring;
import io.awareactive.core.RingCursor;
import io.awareactive.core.RollupOutcome;
import io.awareactive.core.RotateOutcome;
import io.awareactive.core.RotationBlocker;
import io.awareactive.maintenance.internal.StoragePort;
import io.awareactive.maintenance.internal.TaskPort;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The real {@link StoragePort} (real SQL, real database), observed: it records when each rotation and prune of a
 * ring started and ended, and whether it did work or was turned away at once by the ring's serializer.
 */
final class RecordingPort implements TaskPort {

    /** One ring operation by one engine. */
    record Interval(String engine, Ring ring, String operation, long startNanos, long endNanos, boolean turnedAway) {

        boolean overlaps(Interval other) {
            return startNanos < other.endNanos && other.startNanos < endNanos;
        }
    }

    private final String name;
    private final StoragePort delegate;
    private final List<Interval> log;

    RecordingPort(String name, RingMaintenanceConfig config, List<Interval> sharedLog) {
        this.name = name;
        this.delegate = new StoragePort(config);
        this.log = sharedLog;
    }

    private <T> Mono<T> recorded(Ring ring, String operation, Mono<T> work,
            java.util.function.Predicate<T> turnedAway) {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            return work.doOnNext(result -> log.add(new Interval(name, ring, operation, start, System.nanoTime(),
                    turnedAway.test(result))));
        });
    }

    @Override
    public int slotCount(Ring ring) {
        return delegate.slotCount(ring);
    }

    @Override
    public Mono<Void> verifyInstalled() {
        return delegate.verifyInstalled();
    }

    @Override
    public Mono<Leadership> tryLead() {
        return delegate.tryLead();
    }

    @Override
    public Mono<RotateOutcome> rotate(Ring ring) {
        return recorded(ring, "rotate", delegate.rotate(ring), outcome -> outcome
                instanceof RotateOutcome.SkippedBusy busy && busy.blockers().contains(RotationBlocker.SERIALIZER_BUSY));
    }

    @Override
    public Mono<PruneOutcome> prune(Ring ring) {
        return recorded(ring, "prune", delegate.prune(ring), outcome -> outcome
                instanceof PruneOutcome.Blocked blocked && blocked.cause() == BlockedCause.SERIALIZER_BUSY);
    }

    @Override
    public Mono<RingCursor> cursor(Ring ring) {
        return delegate.cursor(ring);
    }

    @Override
    public Mono<Integer> sealedSlots(Ring ring) {
        return delegate.sealedSlots(ring);
    }

    @Override
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        return delegate.rollup(maxSlots, mvccPinMinAge, mvccPinMinXids);
    }

    @Override
    public Mono<Long> foldTerminalCounts() {
        return delegate.foldTerminalCounts();
    }

    @Override
    public Mono<Long> trimLedgers() {
        return delegate.trimLedgers();
    }

    @Override
    public Mono<Integer> promote(int maxJobs) {
        return delegate.promote(maxJobs);
    }

    @Override
    public Mono<Integer> rescue(int maxJobs) {
        return delegate.rescue(maxJobs);
    }

    @Override
    public Mono<Long> purgeFailedJobs(int batchSize) {
        return delegate.purgeFailedJobs(batchSize);
    }

    @Override
    public Mono<List<io.awareactive.maintenance.LockHolder>> blockers(Ring ring, int slot) {
        return delegate.blockers(ring, slot);
    }

    @Override
    public Mono<List<StartupWarning>> diagnose(Duration lockTimeout) {
        return delegate.diagnose(lockTimeout);
    }
}
