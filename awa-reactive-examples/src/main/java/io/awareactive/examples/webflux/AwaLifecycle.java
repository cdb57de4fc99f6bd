package io.awareactive.examples.webflux;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.RingMaintenance;
import java.time.Duration;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Starts ring maintenance, then the worker, with the application context, and stops them in the reverse order when
 * it closes: the worker lets running jobs finish within {@code awa.stop-grace} (the rest are released, ready again),
 * then maintenance lets its running task finish, unlocks leadership and completes its outcome stream.
 *
 * <p>Phase 0: started before the web server accepts requests and stopped after it stopped taking them.
 */
final class AwaLifecycle implements SmartLifecycle {

    private final RingMaintenance maintenance;
    private final Worker worker;
    private final OutcomeTracker tracker;
    private final Duration grace;
    private volatile boolean running;
    private volatile Disposable tracking = () -> { };

    AwaLifecycle(QueueStorage storage, RingMaintenance maintenance, AwaProperties properties,
            GreetingHandler handler, OutcomeTracker tracker) {
        this.maintenance = maintenance;
        this.worker = storage.worker(WorkerConfig.builder(properties.getQueue(), handler::handle)
                .concurrency(properties.getWorkerConcurrency())
                .build());
        this.tracker = tracker;
        this.grace = properties.getStopGrace();
    }

    // tag::lifecycle[]
    @Override
    public void start() {
        tracking = maintenance.outcomes().subscribe(tracker::record);
        maintenance.start().then(Mono.defer(worker::start)).block(Duration.ofMinutes(1));
        running = true;
    }

    @Override
    public void stop(Runnable callback) {
        running = false;
        worker.stop(grace)
                .then(Mono.defer(() -> maintenance.stop(grace)))
                .doFinally(signal -> {
                    tracking.dispose();
                    callback.run();
                })
                .subscribe();
    }
    // end::lifecycle[]

    @Override
    public void stop() {
        worker.stop(grace).then(Mono.defer(() -> maintenance.stop(grace))).block(grace.multipliedBy(3));
        tracking.dispose();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return 0;
    }
}
