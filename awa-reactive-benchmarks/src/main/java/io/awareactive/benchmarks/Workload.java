package io.awareactive.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The closed loop every throughput-like scenario drives, identical for both systems: producers enqueue batches while
 * the backlog (enqueued minus completed) is below a bound; each worker claims a batch, then completes its jobs one by
 * one, each in its own transaction (or, with {@code --acks batch}, all in one), and claims again (after a short idle
 * poll when the claim came back empty).
 *
 * @param <J> the claimed-job handle of the system
 */
final class Workload<J> {

    private static final Logger LOG = LoggerFactory.getLogger(Workload.class);
    private static final Duration BACKLOG_FULL_PAUSE = Duration.ofMillis(2);
    private static final Duration IDLE_POLL = Duration.ofMillis(5);
    private static final Duration ERROR_PAUSE = Duration.ofMillis(100);
    private static final int RECENT_IDS = 4096;

    /** The loop's shape. */
    record Settings(int producers, int workers, int claimBatch, int enqueueBatch, int backlog,
            boolean batchedAcks) {

        /** The loop of the command line: its first worker count and its {@code --acks} mode. */
        static Settings of(BenchOptions options) {
            return of(options, options.workers(), options.batchedAcks());
        }

        /** The loop of the command line with a given worker count and acknowledgement mode. */
        static Settings of(BenchOptions options, int workers, boolean batchedAcks) {
            return new Settings(options.producers(), workers, options.claimBatch(), options.enqueueBatch(),
                    options.backlog(), batchedAcks);
        }
    }

    private final QueueSystem<J> system;
    private final Settings settings;
    private final Latency claimLatency = new Latency();
    private final Latency completeLatency = new Latency();
    private final Latency enqueueLatency = new Latency();
    private final AtomicLong enqueued = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong claims = new AtomicLong();
    private final AtomicLong emptyClaims = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLongArray recentIds = new AtomicLongArray(RECENT_IDS);
    private final AtomicLong recentCursor = new AtomicLong();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    private volatile boolean running;
    private CompletableFuture<Void> loops = CompletableFuture.completedFuture(null);

    Workload(QueueSystem<J> system, Settings settings) {
        this.system = system;
        this.settings = settings;
    }

    /** Starts the producer and worker loops. */
    void start() {
        running = true;
        List<Mono<Void>> all = new ArrayList<>();
        for (int i = 0; i < settings.producers(); i++) {
            all.add(producerLoop());
        }
        for (int i = 0; i < settings.workers(); i++) {
            all.add(workerLoop("bench-worker-" + i));
        }
        loops = Flux.merge(all).then().toFuture();
    }

    /**
     * Stops the loops: producers stop enqueueing, workers finish the batch in hand, and the call returns once every
     * loop ended.
     */
    void stop() {
        running = false;
        try {
            loops.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the workload", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the workload did not stop cleanly", e);
        }
    }

    private Mono<Void> producerLoop() {
        return Mono.defer(() -> {
            if (enqueued.get() - completed.get() >= settings.backlog()) {
                return Mono.delay(BACKLOG_FULL_PAUSE).then();
            }
            long started = System.nanoTime();
            return system.enqueue(settings.enqueueBatch())
                    .doOnNext(ids -> {
                        enqueueLatency.recordNanos(System.nanoTime() - started);
                        for (Long id : ids) {
                            recentIds.set((int) (recentCursor.getAndIncrement() % RECENT_IDS), id);
                        }
                        enqueued.addAndGet(ids.size());
                    })
                    .then()
                    .onErrorResume(this::pauseAfterError);
        }).repeat(() -> running).then();
    }

    private Mono<Void> workerLoop(String workerId) {
        return Mono.defer(() -> {
            long started = System.nanoTime();
            return system.claim(settings.claimBatch(), workerId)
                    .flatMap(jobs -> {
                        claimLatency.recordNanos(System.nanoTime() - started);
                        claims.incrementAndGet();
                        if (jobs.isEmpty()) {
                            emptyClaims.incrementAndGet();
                            return Mono.delay(IDLE_POLL).then();
                        }
                        if (settings.batchedAcks()) {
                            return acknowledge(system.completeAll(jobs), jobs.size());
                        }
                        return Flux.fromIterable(jobs)
                                .concatMap(job -> acknowledge(system.complete(job), 1))
                                .then();
                    })
                    .onErrorResume(this::pauseAfterError);
        }).repeat(() -> running).then();
    }

    /** Runs one acknowledgement transaction, recording its latency and the jobs it completed. */
    private Mono<Void> acknowledge(Mono<Void> transaction, int jobs) {
        return Mono.defer(() -> {
            long completing = System.nanoTime();
            return transaction.doOnSuccess(done -> {
                completeLatency.recordNanos(System.nanoTime() - completing);
                completed.addAndGet(jobs);
            });
        }).onErrorResume(this::pauseAfterError);
    }

    private Mono<Void> pauseAfterError(Throwable error) {
        if (errors.incrementAndGet() <= 5) {
            LOG.warn("{}: operation failed: {}", system.label(), error.toString());
        }
        firstError.compareAndSet(null, error);
        return Mono.delay(ERROR_PAUSE).then();
    }

    /** A job id enqueued recently (0 before the first enqueue). */
    long recentId() {
        long written = Math.min(recentCursor.get(), RECENT_IDS);
        if (written == 0) {
            return 0;
        }
        return recentIds.get(ThreadLocalRandom.current().nextInt((int) written));
    }

    Latency claimLatency() {
        return claimLatency;
    }

    /** Latency of one acknowledgement transaction (one job, or a claimed batch when acknowledging in batches). */
    Latency completeLatency() {
        return completeLatency;
    }

    /** Latency of one enqueue batch (one transaction). */
    Latency enqueueLatency() {
        return enqueueLatency;
    }

    /** Forgets the latencies recorded so far (after a warm-up). */
    void resetLatencies() {
        claimLatency.reset();
        completeLatency.reset();
        enqueueLatency.reset();
    }

    long enqueued() {
        return enqueued.get();
    }

    long completed() {
        return completed.get();
    }

    long claims() {
        return claims.get();
    }

    long emptyClaims() {
        return emptyClaims.get();
    }

    long errors() {
        return errors.get();
    }

    @Nullable Throwable firstError() {
        return firstError.get();
    }
}
