package io.awareactive.maintenance.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.ring.PruneDurations;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.SkipReason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

final class RingStateUnitTests {

    private static final PruneDurations NO_TIME = new PruneDurations(Duration.ZERO, Duration.ZERO, Duration.ZERO);

    @Test
    void shouldDeriveTheOldestInitializedSealedSlot() {
        assertThat(RingState.oldestSealed(0, 0, 4)).isNull();
        assertThat(RingState.oldestSealed(1, 1, 4)).isEqualTo(new RingState.Target(0, 0));
        assertThat(RingState.oldestSealed(3, 3, 4)).isEqualTo(new RingState.Target(0, 0));
        assertThat(RingState.oldestSealed(0, 4, 4)).isEqualTo(new RingState.Target(1, 1));
        assertThat(RingState.oldestSealed(1, 9, 4)).isEqualTo(new RingState.Target(2, 6));
        assertThat(RingState.oldestSealed(1, 1, 2)).isEqualTo(new RingState.Target(0, 0));
    }

    @Test
    void shouldSuppressOnlyTheTargetAlreadyPrunedAfterPruning00WithFourSlots() {
        RingState state = new RingState(4);
        assertThat(state.alreadyPruned(3, 3)).isNull();
        state.apply(new PruneOutcome.Pruned(0, 0, NO_TIME));

        assertThat(state.alreadyPruned(3, 3)).isEqualTo(new RingState.Target(0, 0));
        assertThat(state.alreadyPruned(1, 1)).isEqualTo(new RingState.Target(0, 0));
        assertThat(state.alreadyPruned(0, 4)).isNull();
    }

    @Test
    void shouldOpenWindowsOf2_4_8_16_32_32AndResetOnPruned() {
        RingState state = new RingState(4);
        PruneOutcome active = new PruneOutcome.SkippedActive(0, SkipReason.QUEUE_PENDING_READY);
        for (int expected : new int[] {2, 4, 8, 16, 32, 32}) {
            assertThat(state.takeBackoffTick()).isEqualTo(-1);
            state.apply(active);
            int window = 0;
            while (state.takeBackoffTick() >= 0) {
                window++;
            }
            assertThat(window).isEqualTo(expected);
        }
        assertThat(state.level()).isEqualTo(RingState.MAX_LEVEL);
        state.apply(new PruneOutcome.Pruned(0, 0, NO_TIME));
        assertThat(state.level()).isZero();
        state.apply(active);
        assertThat(state.takeBackoffTick()).isEqualTo(1);
    }
}
