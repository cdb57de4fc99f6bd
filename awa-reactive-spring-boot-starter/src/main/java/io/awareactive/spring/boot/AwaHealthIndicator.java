package io.awareactive.spring.boot;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.Ring;
import io.awareactive.maintenance.RingMaintenance;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Health component {@code awa} ({@code management.health.awa.enabled}, default on): UP while {@link AwaLifecycle} runs,
 * maintenance (when enabled) is not stopped and every ring's cursor and sealed slots can be read. Details:
 * {@code maintenance} (running, stopped, disabled), {@code leader} (whether this instance leads maintenance) and per
 * ring {@code slot}, {@code generation}, {@code slotCount}, {@code sealedSlots} (slots prune has not reclaimed yet),
 * {@code pruned} (prunes seen since start), {@code lastOutcome} and {@code lastOutcomeAt}. DOWN, with the error, when
 * the database cannot be read within 5 s. Non-blocking: two short reads per ring on the storage's pool.
 */
public final class AwaHealthIndicator implements ReactiveHealthIndicator {

    /** How long the reads may take before the component is DOWN. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final QueueStorage storage;
    private final @Nullable RingMaintenance maintenance;
    private final AwaLifecycle lifecycle;
    private final PruneOutcomeTracker tracker;

    /**
     * The indicator of the given components.
     *
     * @param storage the queue storage
     * @param maintenance the engine, or null when this instance runs none
     * @param lifecycle the lifecycle
     * @param tracker the latest outcomes
     */
    public AwaHealthIndicator(QueueStorage storage, @Nullable RingMaintenance maintenance, AwaLifecycle lifecycle,
            PruneOutcomeTracker tracker) {
        this.storage = storage;
        this.maintenance = maintenance;
        this.lifecycle = lifecycle;
        this.tracker = tracker;
    }

    /**
     * Reads the rings and reports.
     *
     * @return the health, never an error signal
     */
    @Override
    public Mono<Health> health() {
        RingMaintenance engine = maintenance;
        boolean leader = engine != null && engine.isLeader();
        return Flux.fromArray(Ring.values())
                .concatMap(ring -> Mono.zip(storage.ringOperations().cursor(ring), storage.ringOperations().sealedSlots(ring)).map(read -> {
                    Map<String, Object> details = new LinkedHashMap<>();
                    details.put("slot", read.getT1().slot());
                    details.put("generation", read.getT1().generation());
                    details.put("slotCount", storage.config().slotCount(ring));
                    details.put("sealedSlots", read.getT2());
                    details.put("pruned", tracker.pruned(ring));
                    tracker.latest(ring).ifPresent(event -> {
                        details.put("lastOutcome", event.outcome().label());
                        details.put("lastOutcomeAt", event.at().toString());
                    });
                    return Map.entry(ring.label(), (Object) details);
                }))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new)
                .timeout(TIMEOUT)
                .map(rings -> {
                    String state = engine == null ? "disabled" : engine.isDisposed() ? "stopped" : "running";
                    boolean up = lifecycle.isRunning() && !state.equals("stopped");
                    return (up ? Health.up() : Health.down())
                            .withDetail("maintenance", lifecycle.isRunning() ? state : "stopped")
                            .withDetail("leader", leader)
                            .withDetail("rings", rings)
                            .build();
                })
                .onErrorResume(error -> Mono.just(Health.down(error).withDetail("leader", leader).build()));
    }
}
