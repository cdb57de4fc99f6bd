package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import java.util.List;

/**
 * Names in one installation: quoted, schema-qualified tables and children, ring families and advisory-lock keys.
 * The schema name was validated ({@link Validation#requireSchemaName(String, String)}) and is quoted anyway.
 *
 * @param name the unquoted schema name
 */
public record Schema(String name) {

    /**
     * Creates the record after validating the name.
     *
     * @param name the unquoted schema name
     */
    public Schema {
        Validation.requireSchemaName(name, "schema");
    }

    /**
     * The quoted schema identifier.
     *
     * @return {@code "name"}
     */
    public String quoted() {
        return '"' + name + '"';
    }

    /**
     * A schema-qualified table.
     *
     * @param table an unquoted table name made of {@code [a-z0-9_]}
     * @return {@code "schema".table}
     */
    public String table(String table) {
        return quoted() + '.' + table;
    }

    /**
     * A schema-qualified ring child: the statement's lock footprint is that child, whatever plan is cached.
     *
     * @param family the family (parent table)
     * @param slot the slot
     * @return {@code "schema".family_slot}
     */
    public String child(String family, int slot) {
        return table(family + '_' + slot);
    }

    /**
     * The ring's serializer key text, hashed with {@code hashtextextended(key, 0)}.
     *
     * @param ring the ring
     * @return {@code awa-reactive.ring:<schema>:<ring>}
     */
    public String ringKey(Ring ring) {
        return "awa-reactive.ring:" + name + ':' + ring.label();
    }

    /**
     * The maintenance leader key text, hashed with {@code hashtextextended(key, 0)}.
     *
     * @return {@code awa-reactive.leader:<schema>}
     */
    public String leaderKey() {
        return "awa-reactive.leader:" + name;
    }

    /**
     * The one {@code LISTEN}/{@code NOTIFY} channel of the installation; the payload of a notification is the queue
     * that received work. At most 63 bytes (a PostgreSQL identifier): long schema names are shortened with a hash.
     *
     * @return the unquoted channel name
     */
    public String notifyChannel() {
        String channel = "awa_jobs_" + name;
        if (channel.length() <= 63) {
            return channel;
        }
        return "awa_jobs_" + name.substring(0, 40) + "_" + Integer.toHexString(name.hashCode());
    }

    /**
     * The families (parent tables) of a ring, in truncate order.
     *
     * @param ring the ring
     * @return the family names
     */
    public static List<String> families(Ring ring) {
        return switch (ring) {
            case QUEUE -> List.of("ready_entries", "ready_segments", "ready_claim_ranges", "ready_tombstones",
                    "done_entries", "queue_terminal_count_deltas");
            case LEASE -> List.of("leases");
            case CLAIM -> List.of("lease_claims", "lease_claim_closures");
        };
    }

    /**
     * The families a writer inserts into when it opens work in the ring's current slot; rotation probes their
     * next-slot children for uncommitted writers.
     *
     * @param ring the ring
     * @return the family names
     */
    public static List<String> insertTargets(Ring ring) {
        return switch (ring) {
            case QUEUE -> List.of("ready_entries", "ready_segments");
            case LEASE -> List.of("leases");
            case CLAIM -> List.of("lease_claims");
        };
    }

    /**
     * The ring's rotation ledger table.
     *
     * @param ring the ring
     * @return {@code "schema".<ring>_ring_rotations}
     */
    public String ledger(Ring ring) {
        return table(ring.label() + "_ring_rotations");
    }

    /**
     * The ring's state table (slot count).
     *
     * @param ring the ring
     * @return {@code "schema".<ring>_ring_state}
     */
    public String ringState(Ring ring) {
        return table(ring.label() + "_ring_state");
    }

    /**
     * The ring's slot table (one row per slot, locked by prune).
     *
     * @param ring the ring
     * @return {@code "schema".<ring>_ring_slots}
     */
    public String ringSlots(Ring ring) {
        return table(ring.label() + "_ring_slots");
    }

    /**
     * A SQL query returning the ring's cursor as {@code (generation bigint, slot int)}: one backward probe of the
     * ledger's primary key.
     *
     * @param ring the ring
     * @return the query
     */
    public String cursorQuery(Ring ring) {
        return "SELECT generation, slot FROM " + ledger(ring) + " ORDER BY generation DESC LIMIT 1";
    }
}
