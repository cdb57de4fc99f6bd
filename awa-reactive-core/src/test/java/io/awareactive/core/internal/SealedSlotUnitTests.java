package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.RingCursor;
import org.junit.jupiter.api.Test;

final class SealedSlotUnitTests {

    private static RingReads.RingState state(int slot, long generation, int slotCount) {
        return new RingReads.RingState(new RingCursor(Ring.QUEUE, slot, generation), slotCount);
    }

    @Test
    void shouldHaveNoTargetOnAFreshRing() {
        assertThat(SealedSlot.pruneTarget(state(0, 0, 4))).isEmpty();
        assertThat(SealedSlot.oldestFirst(new RingCursor(Ring.QUEUE, 0, 0), 4)).isEmpty();
    }

    @Test
    void shouldTargetSlotZeroUntilTheFirstWrap() {
        assertThat(SealedSlot.pruneTarget(state(1, 1, 4))).contains(new SealedSlot(0, 0, 1));
        assertThat(SealedSlot.pruneTarget(state(2, 2, 4))).contains(new SealedSlot(0, 0, 2));
        assertThat(SealedSlot.pruneTarget(state(3, 3, 4))).contains(new SealedSlot(0, 0, 3));
    }

    @Test
    void shouldTargetTheNextSlotAfterTheFirstWrap() {
        assertThat(SealedSlot.pruneTarget(state(0, 4, 4))).contains(new SealedSlot(1, 1, 0));
        assertThat(SealedSlot.pruneTarget(state(3, 7, 4))).contains(new SealedSlot(0, 4, 3));
        assertThat(SealedSlot.pruneTarget(state(1, 9, 2))).contains(new SealedSlot(0, 8, 1));
    }

    @Test
    void shouldListInitializedSealedSlotsOldestFirst() {
        assertThat(SealedSlot.oldestFirst(new RingCursor(Ring.QUEUE, 2, 2), 4))
                .containsExactly(new SealedSlot(0, 0, 2), new SealedSlot(1, 1, 2));
        assertThat(SealedSlot.oldestFirst(new RingCursor(Ring.QUEUE, 1, 5), 4))
                .containsExactly(new SealedSlot(2, 2, 1), new SealedSlot(3, 3, 1), new SealedSlot(0, 4, 1));
    }
}
