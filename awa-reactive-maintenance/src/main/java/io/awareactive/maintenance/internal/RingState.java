package io.awareactive.maintenance.internal;

import io.awareactive.core.ring.PruneOutcome;
import org.jspecify.annotations.Nullable;

/**
 * A ring's backoff and already-pruned memory in the leader (design §7.3). Only the serial loop touches it; a new
 * leadership starts from a fresh instance.
 */
final class RingState {

    /** The highest backoff level: windows of 2, 4, 8, 16, 32 ticks, then 32 again. */
    static final int MAX_LEVEL = 5;

    private final int slotCount;
    private int level;
    private int skipRemaining;
    private @Nullable Target lastPruned;

    /**
     * A slot and the generation it was opened at.
     *
     * @param slot the slot
     * @param generation the generation
     */
    record Target(int slot, long generation) {
    }

    RingState(int slotCount) {
        this.slotCount = slotCount;
    }

    /**
     * The oldest initialized sealed slot for a cursor: with {@code initialized = min(generation + 1, N)} and
     * {@code o = initialized - 1}, slot {@code (current - o) mod N} at generation {@code generation - o}; none while
     * {@code initialized <= 1}.
     */
    static @Nullable Target oldestSealed(int slot, long generation, int slotCount) {
        long initialized = Math.min(generation + 1, slotCount);
        long o = initialized - 1;
        if (o < 1) {
            return null;
        }
        return new Target((int) Math.floorMod(slot - o, (long) slotCount), generation - o);
    }

    /** Whether an idle ring's prune target is the slot this leader already pruned. */
    @Nullable Target alreadyPruned(int idleSlot, long idleGeneration) {
        Target target = oldestSealed(idleSlot, idleGeneration, slotCount);
        return target != null && target.equals(lastPruned) ? target : null;
    }

    /**
     * Uses one skipped tick when a backoff window is open.
     *
     * @return the ticks still to skip after this one, or -1 when no window is open (prune now)
     */
    int takeBackoffTick() {
        if (skipRemaining <= 0) {
            return -1;
        }
        return --skipRemaining;
    }

    /** Applies a prune outcome: skipped_active escalates, pruned resets and remembers, the rest change nothing. */
    void apply(PruneOutcome outcome) {
        if (outcome instanceof PruneOutcome.SkippedActive) {
            level = Math.min(level + 1, MAX_LEVEL);
            skipRemaining = 1 << level;
        } else if (outcome instanceof PruneOutcome.Pruned pruned) {
            level = 0;
            skipRemaining = 0;
            lastPruned = new Target(pruned.slot(), pruned.generation());
        }
    }

    int level() {
        return level;
    }
}
