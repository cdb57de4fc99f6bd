package io.awareactive.core.ring;

import java.util.Locale;

/** Why a prune or rollup attempt was {@code blocked}; only {@link #LOCK_TIMEOUT} is helped by a longer lock timeout. */
public enum BlockedCause {
    /** A timed lock wait (slot row, first child) reached the prune lock timeout (SQLSTATE 55P03). */
    LOCK_TIMEOUT,
    /** A {@code NOWAIT} lock on another child of the slot failed at once (SQLSTATE 55P03): a reader holds it. */
    NOWAIT,
    /** Another session (a second engine, a stale leader, an admin tool) holds the ring's serializer key. */
    SERIALIZER_BUSY;

    /**
     * The metric tag value.
     *
     * @return {@code lock_timeout}, {@code nowait} or {@code serializer_busy}
     */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
