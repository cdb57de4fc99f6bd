package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.RingCursor;
import io.r2dbc.spi.Connection;
import reactor.core.publisher.Mono;

/** Reads shared by rotation, prune and rollup: the serializer try-lock, the cursor and the slot count. */
public final class RingReads {

    private RingReads() {
    }

    /**
     * A ring's cursor and slot count, read without locks.
     *
     * @param cursor the current slot and generation
     * @param slotCount the installed slot count
     */
    public record RingState(RingCursor cursor, int slotCount) {
    }

    /**
     * Tries the ring's serializer ({@code pg_try_advisory_xact_lock}), never waiting.
     *
     * @param c a connection inside a transaction
     * @param schema the schema
     * @param ring the ring
     * @return true when this transaction now holds the ring
     */
    public static Mono<Boolean> tryLockSerializer(Connection c, Schema schema, Ring ring) {
        return Db.queryOne(c, "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))",
                row -> Db.get(row, 0, Boolean.class), schema.ringKey(ring));
    }

    /**
     * Reads the ring's cursor (one backward probe of the ledger's primary key) and slot count.
     *
     * @param c a connection
     * @param schema the schema
     * @param ring the ring
     * @return the state
     */
    public static Mono<RingState> state(Connection c, Schema schema, Ring ring) {
        return Db.queryOne(c, "SELECT r.generation, r.slot, s.slot_count FROM (" + schema.cursorQuery(ring)
                        + ") r CROSS JOIN " + schema.ringState(ring) + " s",
                row -> new RingState(new RingCursor(ring, Db.get(row, 1, Integer.class),
                        Db.get(row, 0, Long.class)), Db.get(row, 2, Integer.class)));
    }

    /**
     * Reads the ring's cursor: one backward probe of the ledger's primary key.
     *
     * @param c a connection
     * @param schema the schema
     * @param ring the ring
     * @return the cursor
     */
    public static Mono<RingCursor> cursor(Connection c, Schema schema, Ring ring) {
        return Db.queryOne(c, schema.cursorQuery(ring),
                row -> new RingCursor(ring, Db.get(row, 1, Integer.class), Db.get(row, 0, Long.class)));
    }
}
