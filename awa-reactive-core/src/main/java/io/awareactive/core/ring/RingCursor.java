package io.awareactive.core.ring;

import io.awareactive.core.Ring;

/**
 * A ring's cursor: its current slot and generation, read from the ring's append-only rotation ledger.
 *
 * @param ring the ring
 * @param slot the current slot, {@code 0 .. slotCount - 1}
 * @param generation the current generation, from 0; the slot opened at generation {@code g} is {@code g mod slotCount}
 */
public record RingCursor(Ring ring, int slot, long generation) {
}
