package io.awareactive.core.internal;

import io.awareactive.core.ring.RingCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An initialized sealed slot of a ring: a slot that was current and no longer is. The oldest one is the prune
 * target; the rollup folds them oldest first; the {@code sealed_slots} gauge counts those still holding rows.
 *
 * @param slot the slot
 * @param generation the generation the slot was opened at
 * @param currentSlot the ring's current slot when this was derived (for the {@code lease.current} and
 *     {@code claim.current} guards)
 */
public record SealedSlot(int slot, long generation, int currentSlot) {

    /**
     * The initialized sealed slots, oldest first. With {@code initialized = min(generation + 1, N)} they are the
     * offsets {@code o = initialized - 1 .. 1} behind the cursor: slot {@code (current - o) mod N}, generation
     * {@code generation - o}. None while {@code initialized <= 1} (a fresh ring).
     *
     * @param cursor the ring's cursor
     * @param slotCount the ring's slot count
     * @return the sealed slots, oldest first; empty on a fresh ring
     */
    public static List<SealedSlot> oldestFirst(RingCursor cursor, int slotCount) {
        int initialized = (int) Math.min(cursor.generation() + 1, slotCount);
        List<SealedSlot> sealed = new ArrayList<>();
        for (int o = initialized - 1; o >= 1; o--) {
            sealed.add(new SealedSlot(Math.floorMod(cursor.slot() - o, slotCount), cursor.generation() - o,
                    cursor.slot()));
        }
        return sealed;
    }

    /**
     * The prune target: the oldest initialized sealed slot. After the first wrap it is {@code (current + 1) mod N},
     * the next rotation target too.
     *
     * @param state the ring's cursor and slot count
     * @return the target, or empty on a fresh ring
     */
    public static Optional<SealedSlot> pruneTarget(RingReads.RingState state) {
        List<SealedSlot> sealed = oldestFirst(state.cursor(), state.slotCount());
        return sealed.isEmpty() ? Optional.empty() : Optional.of(sealed.get(0));
    }
}
