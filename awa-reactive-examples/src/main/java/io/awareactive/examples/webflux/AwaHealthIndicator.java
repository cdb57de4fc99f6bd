package io.awareactive.examples.webflux;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.Ring;
import io.awareactive.maintenance.RingMaintenance;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code /actuator/health} component {@code awa}: UP while maintenance runs and every ring's cursor can be read, with
 * the details {@code leader} (whether this instance leads maintenance) and, per ring, its slot, generation, slot
 * count, prunes since start and latest prune outcome. DOWN when maintenance is stopped or the database cannot be read.
 */
final class AwaHealthIndicator implements ReactiveHealthIndicator {

    private final QueueStorage storage;
    private final RingMaintenance maintenance;
    private final AwaLifecycle lifecycle;
    private final OutcomeTracker tracker;
    private final Ring[] rings;

    AwaHealthIndicator(QueueStorage storage, RingMaintenance maintenance, AwaLifecycle lifecycle,
            OutcomeTracker tracker, Ring[] rings) {
        this.storage = storage;
        this.maintenance = maintenance;
        this.lifecycle = lifecycle;
        this.tracker = tracker;
        this.rings = rings.clone();
    }

    @Override
    public Mono<Health> health() {
        return Flux.fromArray(rings)
                .concatMap(ring -> storage.ringOperations().cursor(ring).map(cursor -> {
                    Map<String, Object> details = new LinkedHashMap<>();
                    details.put("slot", cursor.slot());
                    details.put("generation", cursor.generation());
                    details.put("slotCount", storage.config().slotCount(ring));
                    details.put("pruned", tracker.pruned(ring));
                    tracker.latest(ring).ifPresent(event -> {
                        details.put("lastOutcome", event.outcome().label());
                        details.put("lastOutcomeAt", event.at().toString());
                    });
                    return Map.entry(ring.label(), (Object) details);
                }))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new)
                .timeout(Duration.ofSeconds(5))
                .map(ringDetails -> {
                    boolean up = lifecycle.isRunning() && !maintenance.isDisposed();
                    return (up ? Health.up() : Health.down())
                            .withDetail("maintenance", up ? "running" : "stopped")
                            .withDetail("leader", maintenance.isLeader())
                            .withDetail("rings", ringDetails)
                            .build();
                })
                .onErrorResume(error -> Mono.just(Health.down(error)
                        .withDetail("leader", maintenance.isLeader())
                        .build()));
    }
}
