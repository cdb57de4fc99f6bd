package io.awareactive.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The drain criterion of issue 8: after load stops, every ring that holds rows reports already_pruned and no sealed
 * slot holds rows.
 */
final class Drain {

    /** The longest backoff window, in ticks (design §7.3). */
    static final int LONGEST_BACKOFF_TICKS = 32;

    /**
     * The rings a workload writes rows to. The claim ring holds only the receipts of attempts claimed before schema
     * step 7, so on a schema installed since it never rotates and has nothing to drain ({@link #assertClaimRingUnused}).
     */
    static final List<Ring> RINGS_WITH_ROWS = List.of(Ring.QUEUE, Ring.LEASE);

    private Drain() {
    }

    /** Ticks allowed from the end of load: the longest backoff window plus three laps of the ring. */
    static int allowedTicks(QueueStorageConfig storage, Ring ring) {
        return LONGEST_BACKOFF_TICKS + 3 * storage.slotCount(ring);
    }

    /**
     * Waits until every ring of {@link #RINGS_WITH_ROWS} is {@link #drained}; on timeout fails with each ring's latest
     * events, its sealed_slots gauge and its rotation outcomes, so a CI failure says which ring stayed pinned and why.
     */
    static void awaitDrained(List<PruneEvent> events, int from, MeterRegistry registry, Duration atMost) {
        try {
            await().atMost(atMost)
                    .until(() -> RINGS_WITH_ROWS.stream().allMatch(ring -> drained(events, from, ring, registry)));
        } catch (ConditionTimeoutException timeout) {
            StringBuilder state = new StringBuilder("rings not drained within " + atMost + ":");
            for (Ring ring : RINGS_WITH_ROWS) {
                List<PruneEvent> since = ringEvents(events, from, ring);
                state.append("\n  ").append(ring.label()).append(": sealed_slots ")
                        .append(registry.get("awa.ring.sealed_slots").tag("awa.ring", ring.label()).gauge().value())
                        .append(", rotations ").append(registry.find("awa.maintenance.rotate.attempts")
                                .tag("awa.ring", ring.label()).counters().stream()
                                .map(c -> c.getId().getTag("awa.ring.outcome") + "/"
                                        + c.getId().getTag("awa.ring.blocker") + "=" + (long) c.count())
                                .collect(Collectors.joining(", ", "[", "]")))
                        .append(", last events ")
                        .append(since.subList(Math.max(0, since.size() - 6), since.size()));
            }
            throw new AssertionError(state.toString(), timeout);
        }
    }

    /** True when the ring reported already_pruned since {@code from} and its sealed_slots gauge is 0. */
    static boolean drained(List<PruneEvent> events, int from, Ring ring, MeterRegistry registry) {
        return ticksUntilAlreadyPruned(events, from, ring) != Integer.MAX_VALUE
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

    /**
     * The claim ring was not used: no receipt or closure was written, it never rotated, every tick of it found nothing
     * to prune, and it has no sealed slot.
     */
    static void assertClaimRingUnused(TestDatabase db, QueueStorageConfig storage, List<PruneEvent> events,
            MeterRegistry registry) {
        assertThat(Reliability.rows(db, storage, "lease_claims")
                + Reliability.rows(db, storage, "lease_claim_closures")).isZero();
        assertThat(Reliability.rotations(registry, Ring.CLAIM)).isZero();
        assertThat(ringEvents(events, 0, Ring.CLAIM)).isNotEmpty()
                .allMatch(e -> e.outcome() instanceof PruneOutcome.Noop);
        assertThat(registry.get("awa.ring.sealed_slots").tag("awa.ring", Ring.CLAIM.label()).gauge().value())
                .isZero();
    }

    static List<PruneEvent> ringEvents(List<PruneEvent> events, int from, Ring ring) {
        return List.copyOf(events.subList(from, events.size())).stream().filter(e -> e.ring() == ring).toList();
    }
}
