package io.awareactive.examples.webflux;

import io.awareactive.core.Ring;
import io.awareactive.maintenance.PruneEvent;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Remembers each ring's latest prune outcome and counts prunes, for the health endpoint. */
final class OutcomeTracker {

    private final Map<Ring, PruneEvent> latest = new ConcurrentHashMap<>();
    private final Map<Ring, AtomicLong> pruned = new ConcurrentHashMap<>();

    void record(PruneEvent event) {
        latest.put(event.ring(), event);
        if (event.outcome().label().equals("pruned")) {
            pruned.computeIfAbsent(event.ring(), ring -> new AtomicLong()).incrementAndGet();
        }
    }

    Optional<PruneEvent> latest(Ring ring) {
        return Optional.ofNullable(latest.get(ring));
    }

    long pruned(Ring ring) {
        AtomicLong count = pruned.get(ring);
        return count == null ? 0 : count.get();
    }
}
