package io.awareactive.core.internal;

import io.awareactive.core.AttemptResult;
import io.awareactive.core.Job;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

/**
 * The {@link Worker} implementation: one claim at a time, triggered by a poll tick, a notification, freed capacity
 * or a full previous batch (triggers arriving during a claim collapse into one); attempts run independently; one
 * heartbeat batch per interval.
 */
public final class WorkerLoop implements Worker {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerLoop.class);
    private static final long WARN_EVERY_NANOS = Duration.ofSeconds(10).toNanos();

    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int STOPPING = 2;
    private static final int STOPPED = 3;

    private static final int ATTEMPT_RUNNING = 0;
    private static final int ATTEMPT_ENDING = 1;
    private static final int ATTEMPT_ABANDONED = 2;

    private final Lifecycle lifecycle;
    private final GroupCommitter completions;
    private final WorkerConfig config;
    private final @Nullable ConnectionFactory listenFactory;
    private final String channel;
    private final Duration heartbeatInterval;
    private final @Nullable Duration defaultTimeout;

    private final AtomicInteger state = new AtomicInteger(NEW);
    private final ConcurrentHashMap<Long, Attempt> attempts = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong lastWarn = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
    private final Sinks.Many<Boolean> wakeups = Sinks.many().multicast().directBestEffort();
    private final Sinks.Empty<Void> stopSignal = Sinks.empty();
    private final Sinks.Empty<Void> loopDone = Sinks.empty();
    private final Sinks.Empty<Void> drained = Sinks.empty();
    private final Sinks.Empty<Void> stopped = Sinks.empty();
    private volatile @Nullable Disposable heartbeats;

    /** One running attempt. */
    private static final class Attempt {
        final Job job;
        final AtomicInteger phase = new AtomicInteger(ATTEMPT_RUNNING);
        volatile @Nullable Disposable subscription;

        Attempt(Job job) {
            this.job = job;
        }

        void cancel() {
            Disposable s = subscription;
            if (s != null) {
                s.dispose();
            }
        }
    }

    /**
     * Creates a worker; starts nothing.
     *
     * @param lifecycle the lifecycle operations
     * @param config the worker configuration
     * @param factory the storage's connection factory (an r2dbc-pool is unwrapped for the LISTEN connection)
     * @param channel the schema's notification channel
     * @param heartbeatInterval how often to heartbeat running attempts
     */
    public WorkerLoop(Lifecycle lifecycle, WorkerConfig config, ConnectionFactory factory, String channel,
            Duration heartbeatInterval) {
        this.lifecycle = lifecycle;
        this.completions = new GroupCommitter(lifecycle::completeAll, config.ackBatchSize(), config.ackMaxDelay(),
                config.scheduler());
        this.config = config;
        // LISTEN needs one physical session for the worker's lifetime: never a pooled connection.
        this.listenFactory = config.listen()
                ? (factory instanceof ConnectionPool pool ? pool.unwrap() : factory)
                : null;
        this.channel = channel;
        this.heartbeatInterval = heartbeatInterval;
        this.defaultTimeout = config.jobTimeout().isZero() ? null : config.jobTimeout();
    }

    @Override
    public String workerId() {
        return config.workerId();
    }

    @Override
    public int running() {
        return inFlight.get();
    }

    @Override
    public Mono<Void> start() {
        return Mono.defer(() -> {
            if (!state.compareAndSet(NEW, RUNNING)) {
                return Mono.empty();
            }
            Sinks.One<Boolean> listening = Sinks.one();
            Flux<Object> notifications;
            if (listenFactory == null) {
                listening.tryEmitValue(false);
                notifications = Flux.never();
            } else {
                notifications = notifications(listenFactory, listening);
            }
            Flux<Object> ticks = Flux.interval(Duration.ZERO, config.pollInterval(), config.scheduler()).cast(
                    Object.class);
            Flux.merge(ticks, wakeups.asFlux().cast(Object.class), notifications)
                    .takeUntilOther(stopSignal.asMono())
                    .onBackpressureLatest()
                    .concatMap(trigger -> claimOnce(), 1)
                    .doFinally(signal -> loopDone.tryEmitEmpty())
                    .subscribe(v -> { }, error -> LOG.error("worker {} loop ended unexpectedly", workerId(), error));
            heartbeats = Flux.interval(heartbeatInterval, heartbeatInterval, config.scheduler())
                    .onBackpressureDrop()
                    .concatMap(tick -> heartbeatOnce(), 1)
                    .subscribe(v -> { }, error -> LOG.error("worker {} heartbeats ended", workerId(), error));
            return listening.asMono().then();
        });
    }

    private Flux<Object> notifications(ConnectionFactory factory, Sinks.One<Boolean> listening) {
        return Flux.usingWhen(Mono.from(factory.create()), connection -> {
                    if (!(connection instanceof PostgresqlConnection pg)) {
                        listening.tryEmitValue(false);
                        return Flux.<Object>never();
                    }
                    return Db.execute(connection, "LISTEN \"" + channel + "\"")
                            .doOnSuccess(v -> listening.tryEmitValue(true))
                            .thenMany(pg.getNotifications())
                            .filter(n -> config.queue().equals(n.getParameter()))
                            .cast(Object.class)
                            // A closed session ends the stream: treat it as a failure, so the retry reconnects.
                            .concatWith(Mono.error(() -> new IllegalStateException("LISTEN session closed")));
                }, Connection::close)
                .doOnError(error -> {
                    listening.tryEmitValue(false);
                    warn("worker {}: LISTEN connection failed, polling every {} until it is back: {}", workerId(),
                            config.pollInterval(), error.toString());
                })
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1)).maxBackoff(Duration.ofSeconds(30))
                        .scheduler(config.scheduler()));
    }

    private void wake() {
        wakeups.emitNext(Boolean.TRUE, Sinks.EmitFailureHandler.busyLooping(Duration.ofMillis(100)));
    }

    private Mono<Void> claimOnce() {
        return Mono.defer(() -> {
            if (state.get() != RUNNING) {
                return Mono.empty();
            }
            int running = inFlight.get();
            int free = config.concurrency() - running;
            int batch = Math.min(free, config.batchSize());
            // While attempts run, wait until half a batch is free: claiming one job per completion would cost a
            // claim transaction per job.
            int worthIt = Math.max(1, Math.min(config.concurrency(), config.batchSize()) / 2);
            if (free <= 0 || (running > 0 && batch < worthIt)) {
                return Mono.empty();
            }
            long start = System.nanoTime();
            return lifecycle.claim(config.queue(), batch, workerId(), defaultTimeout)
                    .collectList()
                    .doOnNext(jobs -> tellClaimListener(jobs.size(), Duration.ofNanos(System.nanoTime() - start)))
                    .doOnNext(jobs -> {
                        jobs.forEach(this::run);
                        if (jobs.size() == batch) {
                            wake();
                        }
                    })
                    .onErrorResume(error -> {
                        warn("worker {}: claim failed, retrying at the next wake-up: {}", workerId(),
                                error.toString());
                        return Mono.empty();
                    })
                    .then();
        });
    }

    private void tellClaimListener(int jobs, Duration latency) {
        try {
            config.claimListener().claimed(config.queue(), jobs, latency);
        } catch (RuntimeException e) {
            warn("worker {}: the claim listener failed: {}", workerId(), e.toString());
        }
    }

    private void run(Job job) {
        inFlight.incrementAndGet();
        Attempt attempt = new Attempt(job);
        attempts.put(job.runLease(), attempt);
        Duration timeout = job.timeout() != null ? job.timeout() : defaultTimeout;
        Mono<?> work = Mono.defer(() -> config.handler().apply(job));
        if (timeout != null) {
            work = work.timeout(timeout, config.scheduler());
        }
        attempt.subscription = work
                .then(Mono.just(Optional.<Throwable>empty()))
                .onErrorResume(error -> Mono.just(Optional.of(error)))
                .subscribeOn(config.scheduler())
                .flatMap(failure -> {
                    if (!attempt.phase.compareAndSet(ATTEMPT_RUNNING, ATTEMPT_ENDING)) {
                        return Mono.<AttemptResult>empty();
                    }
                    return failure.isEmpty()
                            ? completions.complete(job)
                            : lifecycle.end(job, Lifecycle.Outcome.FAILED, describe(failure.get(), timeout));
                })
                .onErrorResume(error -> {
                    warn("worker {}: could not end attempt {} of job {}; rescue will take it back: {}", workerId(),
                            job.attempt(), job.id(), error.toString());
                    return Mono.empty();
                })
                .doFinally(signal -> finished(attempt))
                .subscribe();
    }

    private static String describe(Throwable error, @Nullable Duration timeout) {
        if (error instanceof TimeoutException && timeout != null) {
            return "timed out after " + timeout;
        }
        return error.toString();
    }

    private void finished(Attempt attempt) {
        if (attempts.remove(attempt.job.runLease(), attempt)) {
            inFlight.decrementAndGet();
            if (state.get() == RUNNING) {
                wake();
            }
            checkDrained();
        }
    }

    private void checkDrained() {
        if (state.get() >= STOPPING && inFlight.get() == 0) {
            drained.tryEmitEmpty();
        }
    }

    private Mono<Void> heartbeatOnce() {
        return Mono.defer(() -> {
            List<Job> jobs = attempts.values().stream()
                    .filter(a -> a.phase.get() == ATTEMPT_RUNNING)
                    .map(a -> a.job)
                    .toList();
            if (jobs.isEmpty()) {
                return Mono.empty();
            }
            return lifecycle.heartbeat(jobs).collect(Collectors.toSet())
                    .doOnNext(live -> abandonLost(jobs, live))
                    .onErrorResume(error -> {
                        warn("worker {}: heartbeat failed: {}", workerId(), error.toString());
                        return Mono.empty();
                    })
                    .then();
        });
    }

    /** 0 rows for an attempt: rescue took it; cancel the handler and write nothing. */
    private void abandonLost(List<Job> jobs, Set<Long> live) {
        for (Job job : jobs) {
            if (live.contains(job.id())) {
                continue;
            }
            Attempt attempt = attempts.get(job.runLease());
            if (attempt != null && attempt.phase.compareAndSet(ATTEMPT_RUNNING, ATTEMPT_ABANDONED)) {
                warn("worker {}: attempt {} of job {} lost its lease (rescued); abandoning it", workerId(),
                        job.attempt(), job.id());
                attempt.cancel();
            }
        }
    }

    @Override
    public Mono<Void> stop(Duration grace) {
        Validation.requireNotNegative(grace, "grace");
        return Mono.defer(() -> {
            if (state.compareAndSet(NEW, STOPPED)) {
                stopped.tryEmitEmpty();
                return Mono.empty();
            }
            if (!state.compareAndSet(RUNNING, STOPPING)) {
                return stopped.asMono();
            }
            stopSignal.tryEmitEmpty();
            return loopDone.asMono()
                    .then(Mono.defer(() -> {
                        checkDrained();
                        return drained.asMono().timeout(grace, releaseRemaining(), config.scheduler());
                    }))
                    .then(Mono.fromRunnable(() -> {
                        Disposable h = heartbeats;
                        if (h != null) {
                            h.dispose();
                        }
                        state.set(STOPPED);
                        stopped.tryEmitEmpty();
                    }));
        });
    }

    /** Past the grace period: cancel the handlers still running and give their attempts back. */
    private Mono<Void> releaseRemaining() {
        return Mono.defer(() -> {
            List<Attempt> abandoned = attempts.values().stream()
                    .filter(a -> a.phase.compareAndSet(ATTEMPT_RUNNING, ATTEMPT_ABANDONED))
                    .toList();
            abandoned.forEach(Attempt::cancel);
            return Flux.fromIterable(abandoned)
                    .flatMap(a -> lifecycle.end(a.job, Lifecycle.Outcome.RELEASED, null)
                            .onErrorResume(error -> {
                                warn("worker {}: could not release job {}; rescue will take it back: {}",
                                        workerId(), a.job.id(), error.toString());
                                return Mono.empty();
                            }))
                    .then(Mono.defer(() -> {
                        checkDrained();
                        // Attempts already ending (writing their completion) finish on their own.
                        return drained.asMono().timeout(heartbeatInterval, Mono.<Void>empty(), config.scheduler());
                    }));
        });
    }

    /** WARN, at most once per 10 s per worker: the logs must not flood while the database is away. */
    private void warn(String format, Object... args) {
        long now = System.nanoTime();
        long last = lastWarn.get();
        if (now - last >= WARN_EVERY_NANOS && lastWarn.compareAndSet(last, now)) {
            LOG.warn(format, args);
        }
    }
}
