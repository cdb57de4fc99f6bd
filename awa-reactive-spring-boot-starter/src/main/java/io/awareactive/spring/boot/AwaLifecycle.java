package io.awareactive.spring.boot;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.internal.Validation;
import io.awareactive.maintenance.RingMaintenance;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Starts awa-reactive with the application context and stops it with the context.
 *
 * <p>Start (on the thread refreshing the context, never a Reactor thread; waits at most {@code awa.startup-timeout}):
 * installs, upgrades or checks the schema ({@code awa.install-schema}; otherwise only verifies it), subscribes the
 * {@link PruneOutcomeTracker}, starts maintenance, then the workers. A failure stops what had started and fails the
 * context's refresh.
 *
 * <p>Stop (asynchronous, {@link #stop(Runnable)}): the workers stop first (running jobs finish within
 * {@code awa.stop-grace}, the rest are released, ready again with no attempt consumed), then maintenance (its running
 * task finishes within the grace, leadership is unlocked, {@code outcomes()} completes). Phase {@value #PHASE}: started
 * before the web server takes requests and stopped after it stopped taking them; the connection pool is closed later,
 * when the beans are destroyed. Not restartable: the engine and the workers cannot start again after a stop.
 */
public class AwaLifecycle implements SmartLifecycle {

    /** The lifecycle phase: {@value}. */
    public static final int PHASE = 0;

    private static final Logger log = LoggerFactory.getLogger(AwaLifecycle.class);

    private final QueueStorage storage;
    private final @Nullable RingMaintenance maintenance;
    private final AwaWorkers workers;
    private final PruneOutcomeTracker tracker;
    private final boolean installSchema;
    private final boolean autoStartup;
    private final Duration startupTimeout;
    private final Duration stopGrace;
    private volatile boolean running;
    private volatile Disposable tracking = () -> { };

    /**
     * The lifecycle of the given components.
     *
     * @param storage the queue storage
     * @param maintenance the engine, or null when this instance runs none ({@code awa.maintenance.enabled=false})
     * @param workers the workers
     * @param tracker fed with every prune outcome while running
     * @param properties {@code awa.install-schema}, {@code awa.auto-startup}, {@code awa.startup-timeout} and
     *     {@code awa.stop-grace}
     * @throws IllegalArgumentException when the startup timeout is not positive or the stop grace is negative
     */
    public AwaLifecycle(QueueStorage storage, @Nullable RingMaintenance maintenance, AwaWorkers workers,
            PruneOutcomeTracker tracker, AwaProperties properties) {
        this.storage = storage;
        this.maintenance = maintenance;
        this.workers = workers;
        this.tracker = tracker;
        this.installSchema = properties.isInstallSchema();
        this.autoStartup = properties.isAutoStartup();
        this.startupTimeout = Validation.requirePositive(properties.getStartupTimeout(), "awa.startup-timeout");
        this.stopGrace = Validation.requireNotNegative(properties.getStopGrace(), "awa.stop-grace");
    }

    /**
     * Installs or verifies the schema, then starts maintenance and the workers; blocks the calling thread (the
     * context's) for at most {@code awa.startup-timeout}. Does nothing when already running.
     *
     * @throws RuntimeException the installation's or a start's error, or a timeout (what had started is stopped)
     */
    @Override
    public void start() {
        if (running) {
            return;
        }
        RingMaintenance engine = maintenance;
        Mono<Void> schema = installSchema ? storage.install() : storage.verifyInstalled();
        Mono<Void> startEngine = Mono.empty();
        if (engine != null) {
            tracking = engine.outcomes().subscribe(tracker::record);
            startEngine = Mono.defer(engine::start);
        }
        try {
            schema.then(startEngine).then(Mono.defer(workers::start)).block(startupTimeout);
        } catch (RuntimeException e) {
            // The context will not stop what it never saw running: undo a partial start before failing it.
            try {
                stopping().block(stopGrace.multipliedBy(3).plusSeconds(5));
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            tracking.dispose();
            throw e;
        }
        running = true;
    }

    /**
     * Stops the workers, then maintenance, without blocking the calling thread; runs {@code callback} when both have
     * stopped (also after a failure, which is logged).
     *
     * @param callback Spring's completion callback
     */
    @Override
    public void stop(Runnable callback) {
        running = false;
        stopping()
                .doFinally(signal -> {
                    tracking.dispose();
                    callback.run();
                })
                .subscribe(null, error -> log.warn("awa-reactive did not stop cleanly", error));
    }

    /** Stops the workers, then maintenance, blocking the calling thread for at most three times the grace. */
    @Override
    public void stop() {
        running = false;
        try {
            stopping().block(stopGrace.multipliedBy(3).plusSeconds(5));
        } finally {
            tracking.dispose();
        }
    }

    private Mono<Void> stopping() {
        RingMaintenance engine = maintenance;
        return workers.stop(stopGrace)
                .then(engine == null ? Mono.empty() : Mono.defer(() -> engine.stop(stopGrace)));
    }

    /**
     * Whether started and not stopped.
     *
     * @return true while running
     */
    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * {@code awa.auto-startup}.
     *
     * @return whether the context starts this lifecycle
     */
    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /**
     * The phase.
     *
     * @return {@value #PHASE}
     */
    @Override
    public int getPhase() {
        return PHASE;
    }
}
