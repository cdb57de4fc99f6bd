package io.awareactive.reliability;

import io.awareactive.core.PruneOutcome;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.maintenance.PruneEvent;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/** The drain criterion of issue 8: after load stops, every ring reports already_pruned and no sealed slot holds rows. */
final class Drain {

    /** The longest backoff window, in ticks (design §7.3). */
    static final int LONGEST_BACKOFF_TICKS = 32;

    private Drain() {
    }

    /** Ticks allowed from the end of load: the longest backoff window plus three laps of the ring. */
    static int allowedTicks(QueueStorageConfig storage, Ring ring) {
        return LONGEST_BACKOFF_TICKS + 3 * storage.slotCount(ring);
    }

    /** True when the ring's latest event since {@code from} is already_pruned and its sealed_slots gauge is 0. */
    static boolean drained(List<PruneEvent> events, int from, Ring ring, MeterRegistry registry) {
        List<PruneEvent> since = ringEvents(events, from, ring);
        return !since.isEmpty() && since.get(since.size() - 1).outcome() instanceof PruneOutcome.AlreadyPruned
                && registry.get("awa.ring.sealed_slots").tag("awa.ring", ring.label()).gauge().value() == 0;
    }

    /** Ticks of {@code ring} since {@code from} up to its first already_pruned. */
    static int ticksUntilAlreadyPruned(List<PruneEvent> events, int from, Ring ring) {
        List<PruneEvent> since = ringEvents(events, from, ring);
        for (int i = 0; i < since.size(); i++) {
            if (since.get(i).outcome() instanceof PruneOutcome.AlreadyPruned) {
                return i + 1;
            }
        }
        return Integer.MAX_VALUE;
    }

    static List<PruneEvent> ringEvents(List<PruneEvent> events, int from, Ring ring) {
        return List.copyOf(events.subList(from, events.size())).stream().filter(e -> e.ring() == ring).toList();
    }
}
