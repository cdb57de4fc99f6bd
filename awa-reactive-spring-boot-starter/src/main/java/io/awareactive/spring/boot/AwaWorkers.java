package io.awareactive.spring.boot;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.spring.boot.internal.WorkerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The workers of the application: one {@link Worker} per {@link QueueHandler} bean, built (and so validated) when the
 * context starts, started and stopped by {@link AwaLifecycle}. With a registry, every worker reports the meters
 * {@value #JOB_DURATION_METER} (a timer of handler runs; tags {@code awa.queue} and {@code awa.worker.outcome}:
 * completed, failed, cancelled), {@value #CLAIM_DURATION_METER} (a timer of claims; tag {@code awa.queue}) and
 * {@value #RUNNING_METER} (a gauge; tag {@code awa.queue}), removed at
 * {@link #stop(Duration)}. Thread-safe.
 */
public final class AwaWorkers {

    /** Timer of handler runs by queue and outcome; Prometheus {@code awa_worker_job_duration_seconds}. */
    public static final String JOB_DURATION_METER = WorkerMeters.JOB_DURATION;
    /** Timer of claims by queue; Prometheus {@code awa_worker_claim_duration_seconds}. */
    public static final String CLAIM_DURATION_METER = WorkerMeters.CLAIM_DURATION;
    /** Gauge of running attempts by queue; Prometheus {@code awa_worker_running}. */
    public static final String RUNNING_METER = WorkerMeters.RUNNING;

    private final Map<String, Worker> workers;
    private final WorkerMeters meters;

    private AwaWorkers(Map<String, Worker> workers, WorkerMeters meters) {
        this.workers = Collections.unmodifiableMap(workers);
        this.meters = meters;
    }

    /**
     * Builds a worker per handler, with the {@code awa.worker.*} options and then the handler's own. Does no I/O.
     *
     * @param storage the queue storage
     * @param handlers the handlers, one per queue
     * @param options the {@code awa.worker.*} options
     * @param registry the application's registry, or null for no meters
     * @param meterTags tags added to every worker meter
     * @return the workers, not started
     * @throws IllegalArgumentException with the library's message when an option or a queue name is invalid
     * @throws IllegalStateException when two handlers name the same queue
     */
    public static AwaWorkers create(QueueStorage storage, List<QueueHandler> handlers, AwaProperties.Worker options,
            @Nullable MeterRegistry registry, Tags meterTags) {
        WorkerMeters meters = new WorkerMeters(registry, meterTags);
        Map<String, Worker> workers = new LinkedHashMap<>();
        try {
            for (QueueHandler handler : handlers) {
                if (workers.containsKey(handler.queue())) {
                    throw new IllegalStateException("two QueueHandler beans name the queue \"" + handler.queue()
                            + "\": declare one handler per queue");
                }
                WorkerConfig.Builder builder = WorkerConfig.builder(handler.queue(),
                                meters.timed(handler.queue(), handler.handler()))
                        .concurrency(options.getConcurrency())
                        .batchSize(options.getBatchSize())
                        .pollInterval(options.getPollInterval())
                        .ackBatchSize(options.getAckBatchSize())
                        .ackMaxDelay(options.getAckMaxDelay())
                        .jobTimeout(options.getJobTimeout())
                        .listen(options.isListen())
                        .claimListener(meters.claimTimer(handler.queue()));
                Worker worker = storage.worker(handler.customize(builder).build());
                meters.watch(handler.queue(), worker);
                workers.put(handler.queue(), worker);
            }
        } catch (RuntimeException e) {
            meters.remove();
            throw e;
        }
        return new AwaWorkers(workers, meters);
    }

    /**
     * The workers by queue, in handler order.
     *
     * @return an unmodifiable map
     */
    public Map<String, Worker> workers() {
        return workers;
    }

    /**
     * Starts every worker, one after another.
     *
     * @return completion once every worker listens for wake-ups (or fell back to polling)
     */
    public Mono<Void> start() {
        return Flux.fromIterable(workers.values()).concatMap(Worker::start).then();
    }

    /**
     * Stops every worker at once (running jobs finish within {@code grace}, the rest are released) and removes the
     * meters.
     *
     * @param grace how long running jobs may take to finish
     * @return completion once every worker has stopped
     */
    public Mono<Void> stop(Duration grace) {
        return Flux.fromIterable(workers.values())
                .flatMap(worker -> worker.stop(grace))
                .then()
                .doFinally(signal -> meters.remove());
    }

    @Override
    public String toString() {
        return "AwaWorkers" + workers.keySet();
    }
}
