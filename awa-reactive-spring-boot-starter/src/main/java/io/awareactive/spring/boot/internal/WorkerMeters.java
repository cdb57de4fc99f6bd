package io.awareactive.spring.boot.internal;

import io.awareactive.core.Job;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * The starter's worker meters: a timer of every handler run by queue and outcome, a timer of every claim by queue
 * (from the worker's {@link io.awareactive.core.WorkerConfig.ClaimListener}), and a gauge of the running attempts by
 * queue. Every series is registered at zero when the worker is built, so
 * {@code increase()} sees the first job; {@link #remove()} unregisters them. Without a registry nothing is recorded.
 * Thread-safe.
 */
public final class WorkerMeters {

    /** Timer of handler runs. Tags: {@value #QUEUE}, {@value #OUTCOME}. */
    public static final String JOB_DURATION = "awa.worker.job.duration";
    /** Timer of claims (one round trip each, found jobs or not). Tag: {@value #QUEUE}. */
    public static final String CLAIM_DURATION = "awa.worker.claim.duration";
    /** Gauge of the attempts running in this instance. Tag: {@value #QUEUE}. */
    public static final String RUNNING = "awa.worker.running";
    /** Tag key of the queue. */
    public static final String QUEUE = "awa.queue";
    /** Tag key of a handler run's outcome: {@code completed}, {@code failed} or {@code cancelled}. */
    public static final String OUTCOME = "awa.worker.outcome";

    private static final Duration[] BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)};

    private final @Nullable MeterRegistry registry;
    private final Tags common;
    private final List<Meter> meters = new ArrayList<>();

    /**
     * Meters on {@code registry}.
     *
     * @param registry the application's registry, or null for none
     * @param common tags added to every meter
     */
    public WorkerMeters(@Nullable MeterRegistry registry, Tags common) {
        this.registry = registry;
        this.common = common;
    }

    /**
     * Times every run of {@code handler} (subscription to termination) by outcome.
     *
     * @param queue the queue
     * @param handler the user's handler
     * @return the timed handler ({@code handler} itself without a registry)
     */
    public Function<Job, Mono<?>> timed(String queue, Function<Job, ? extends Mono<?>> handler) {
        MeterRegistry r = registry;
        if (r == null) {
            return handler::apply;
        }
        Timer completed = timer(r, queue, "completed");
        Timer failed = timer(r, queue, "failed");
        Timer cancelled = timer(r, queue, "cancelled");
        return job -> {
            long start = System.nanoTime();
            return Mono.<Object>defer(() -> handler.apply(job)).doFinally(signal -> {
                Timer timer = signal == SignalType.ON_COMPLETE ? completed
                        : signal == SignalType.ON_ERROR ? failed : cancelled;
                timer.record(Duration.ofNanos(System.nanoTime() - start));
            });
        };
    }

    /**
     * A claim listener that times every claim of {@code queue}.
     *
     * @param queue the queue
     * @return the listener (one that does nothing without a registry)
     */
    public WorkerConfig.ClaimListener claimTimer(String queue) {
        MeterRegistry r = registry;
        if (r == null) {
            return (q, jobs, latency) -> { };
        }
        Timer claims = register(Timer.builder(CLAIM_DURATION)
                .description("Claims by queue: one round trip each, whether it found jobs or not")
                .tags(common).tag(QUEUE, queue)
                .serviceLevelObjectives(BUCKETS)
                .register(r));
        return (q, jobs, latency) -> claims.record(latency);
    }

    /**
     * Registers the running-attempts gauge of a built worker.
     *
     * @param queue the worker's queue
     * @param worker the worker
     */
    public void watch(String queue, Worker worker) {
        MeterRegistry r = registry;
        if (r != null) {
            register(Gauge.builder(RUNNING, worker, Worker::running)
                    .description("Attempts running in this instance's worker")
                    .tags(common).tag(QUEUE, queue)
                    .register(r));
        }
    }

    private Timer timer(MeterRegistry r, String queue, String outcome) {
        return register(Timer.builder(JOB_DURATION)
                .description("Handler runs by queue and outcome")
                .tags(common).tag(QUEUE, queue).tag(OUTCOME, outcome)
                .serviceLevelObjectives(BUCKETS)
                .register(r));
    }

    private synchronized <M extends Meter> M register(M meter) {
        meters.add(meter);
        return meter;
    }

    /** Unregisters every meter registered so far. */
    public synchronized void remove() {
        MeterRegistry r = registry;
        if (r != null) {
            meters.forEach(r::remove);
        }
        meters.clear();
    }
}
