package io.awareactive.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneDurations;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.PruneEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class OutcomeTallyUnitTests {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static LockHolder holder(int pid, String application, long ageMillis) {
        return new LockHolder(pid, application, 100L, "idle in transaction", Duration.ofMillis(ageMillis), null,
                "SELECT 1");
    }

    private static PruneEvent blocked(Instant at, LockHolder... holders) {
        return new PruneEvent(Ring.QUEUE, new PruneOutcome.Blocked(2, BlockedCause.LOCK_TIMEOUT), at,
                List.of(holders));
    }

    private static PruneEvent pruned(Ring ring, Instant at) {
        return new PruneEvent(ring, new PruneOutcome.Pruned(1, 5, new PruneDurations(Duration.ofMillis(1),
                Duration.ofMillis(2), Duration.ofMillis(3))), at, List.of());
    }

    @Test
    void shouldCountOutcomesPerRingAndLabel() {
        OutcomeTally tally = new OutcomeTally();

        tally.record(pruned(Ring.QUEUE, T0));
        tally.record(pruned(Ring.QUEUE, T0));
        tally.record(pruned(Ring.CLAIM, T0));
        tally.record(blocked(T0));

        assertThat(tally.count(Ring.QUEUE, "pruned")).isEqualTo(2);
        assertThat(tally.count(Ring.QUEUE, "blocked")).isEqualTo(1);
        assertThat(tally.count(Ring.CLAIM, "pruned")).isEqualTo(1);
        assertThat(tally.count(Ring.LEASE, "pruned")).isZero();
        assertThat(tally.blockedCauses()).containsExactly(Map.entry("queue lock_timeout", 1L));
    }

    @Test
    void shouldNameTheOldestLockHolderOncePerSession() {
        OutcomeTally tally = new OutcomeTally();

        List<String> first = tally.record(blocked(T0, holder(11, "claimer", 3), holder(42, "report", 900)));
        List<String> again = tally.record(blocked(T0.plusSeconds(1), holder(12, "claimer", 2),
                holder(42, "report", 1900)));

        assertThat(first).singleElement().asString()
                .isEqualTo("queue slot 2 lock_timeout: the oldest lock holder is pid 42 (report), "
                        + "idle in transaction, transaction 900ms old: SELECT 1");
        assertThat(again).isEmpty();
        assertThat(tally.blockers()).hasSize(1);
    }

    @Test
    void shouldNoteWhenQueuePrunesResumeAfterTheContention() {
        OutcomeTally tally = new OutcomeTally();
        tally.record(blocked(T0));
        tally.record(pruned(Ring.QUEUE, T0.plusMillis(100)));  // before the reader let go: not a resumption
        tally.contentionEnded(T0.plusSeconds(2));
        tally.record(pruned(Ring.LEASE, T0.plusMillis(2100)));  // another ring
        tally.record(pruned(Ring.QUEUE, T0.plusMillis(2400)));

        assertThat(tally.firstQueuePruneAfterContention()).isEqualTo(T0.plusMillis(2400));
        assertThat(tally.contentionEndedAt()).isEqualTo(T0.plusSeconds(2));
    }
}
