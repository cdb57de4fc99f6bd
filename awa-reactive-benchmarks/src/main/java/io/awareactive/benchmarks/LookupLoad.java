package io.awareactive.benchmarks;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Open-loop read load at an offered rate: job-by-id lookups of recently enqueued jobs and count queries (a share of
 * the rate), at most {@code concurrency} in flight; what cannot start because all are busy is dropped and counted,
 * so the achieved rate is measured, not assumed.
 */
final class LookupLoad implements AutoCloseable {

    private static final Duration TICK = Duration.ofMillis(10);

    /** Offered operations per second, the share of them that are count queries, the lookup mode, concurrency. */
    record Settings(int rate, double countShare, String mode, int concurrency) {
    }

    private final AtomicLong lookups = new AtomicLong();
    private final AtomicLong counts = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final Disposable subscription;

    LookupLoad(QueueSystem<?> system, Workload<?> workload, Settings settings) {
        double perTick = settings.rate() * (TICK.toNanos() / 1e9);
        double[] carry = {0};
        this.subscription = settings.rate() == 0 ? Flux.never().subscribe() : Flux.interval(TICK)
                .concatMap(tick -> {
                    carry[0] += perTick;
                    int due = (int) carry[0];
                    carry[0] -= due;
                    return Flux.range(0, due);
                })
                .onBackpressureDrop(op -> dropped.incrementAndGet())
                .flatMap(op -> operation(system, workload, settings), settings.concurrency())
                .subscribe();
    }

    private Mono<Void> operation(QueueSystem<?> system, Workload<?> workload, Settings settings) {
        boolean count = ThreadLocalRandom.current().nextDouble() < settings.countShare();
        Mono<Void> op = count ? system.count().doOnSuccess(v -> counts.incrementAndGet())
                : system.lookup(workload.recentId(), settings.mode()).doOnSuccess(v -> lookups.incrementAndGet());
        return op.onErrorResume(error -> {
            errors.incrementAndGet();
            return Mono.empty();
        });
    }

    long lookups() {
        return lookups.get();
    }

    long counts() {
        return counts.get();
    }

    long dropped() {
        return dropped.get();
    }

    long errors() {
        return errors.get();
    }

    void reset() {
        lookups.set(0);
        counts.set(0);
        dropped.set(0);
        errors.set(0);
    }

    @Override
    public void close() {
        subscription.dispose();
    }
}
