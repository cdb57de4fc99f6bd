package io.awareactive.spring.boot;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.Ring;
import io.awareactive.maintenance.PruneEvent;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Remembers each ring's latest prune outcome and counts its {@code pruned} outcomes since the application started, for
 * the health indicator. {@link AwaLifecycle} feeds it from {@code RingMaintenance.outcomes()}. Thread-safe.
 */
public final class PruneOutcomeTracker {

    private final Map<Ring, PruneEvent> latest = new ConcurrentHashMap<>();
    private final Map<Ring, AtomicLong> pruned = new ConcurrentHashMap<>();

    /** Creates an empty tracker. */
    public PruneOutcomeTracker() {
    }

    /**
     * Records an outcome.
     *
     * @param event the event
     */
    public void record(PruneEvent event) {
        latest.put(event.ring(), event);
        if (event.outcome() instanceof PruneOutcome.Pruned) {
            pruned.computeIfAbsent(event.ring(), ring -> new AtomicLong()).incrementAndGet();
        }
    }

    /**
     * The ring's latest outcome.
     *
     * @param ring the ring
     * @return the latest event, empty before the first
     */
    public Optional<PruneEvent> latest(Ring ring) {
        return Optional.ofNullable(latest.get(ring));
    }

    /**
     * The ring's {@code pruned} outcomes so far.
     *
     * @param ring the ring
     * @return the count
     */
    public long pruned(Ring ring) {
        AtomicLong count = pruned.get(ring);
        return count == null ? 0 : count.get();
    }
}
