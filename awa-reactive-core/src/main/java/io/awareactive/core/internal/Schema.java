package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import java.util.Arrays;
import java.util.List;

/**
 * Names in one installation: quoted, schema-qualified tables, children and functions, ring families and advisory-lock
 * keys. The schema name was validated ({@link Validation#requireSchemaName(String, String)}) and is quoted anyway.
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
     * A schema-qualified table or sequence.
     *
     * @param table the table
     * @return {@code "schema".table}
     */
    public String table(Table table) {
        return qualified(table.sqlName());
    }

    /** Qualifies a relation or function name; the per-ring control tables are named by ring, not by {@link Table}. */
    private String qualified(String relation) {
        return quoted() + '.' + relation;
    }

    /**
     * A schema-qualified ring child: the statement's lock footprint is that child, whatever plan is cached.
     *
     * @param family a ring family or a tally
     * @param slot the slot
     * @return {@code "schema".family_slot}
     * @throws IllegalArgumentException when the table is neither a ring family nor a tally
     */
    public String child(Table family, int slot) {
        if (!partitionedPerSlot(family)) {
            throw new IllegalArgumentException(family.sqlName() + " is not partitioned per slot");
        }
        return qualified(family.sqlName() + '_' + slot);
    }

    /**
     * A schema-qualified server-side function, to be followed by its argument list.
     *
     * @param function the function
     * @return {@code "schema".function}
     */
    public String function(SqlFunction function) {
        return qualified(function.sqlName());
    }

    /**
     * A name as a SQL string literal, for the functions and casts that take a relation by name
     * ({@code pg_relation_size}, {@code ::regclass}).
     *
     * @param name a schema-qualified name
     * @return {@code '"schema".name'}, with any single quote doubled
     */
    public static String literal(String name) {
        return '\'' + name.replace("'", "''") + '\'';
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
     * The families (parent tables) of a ring, in truncate order: the {@link Table} constants of the ring, in
     * declaration order.
     *
     * @param ring the ring
     * @return the families
     */
    public static List<Table> families(Ring ring) {
        return Arrays.stream(Table.values()).filter(table -> table.ring() == ring).toList();
    }

    /**
     * Whether a table is list-partitioned per slot of a ring: a ring family or a tally.
     *
     * @param table the table
     * @return true for {@link #families(Ring)} and {@link #tallies(Ring)} of any ring
     */
    public static boolean partitionedPerSlot(Table table) {
        return table.ring() != null || Arrays.stream(Ring.values()).anyMatch(ring -> tallies(ring).contains(table));
    }

    /**
     * The tallies (schema step 6) partitioned per slot of a ring: prune locks and truncates a slot's tally child with
     * its families. A slot's tallies are written only with rows of its families, so they need no place in the
     * rotation gates.
     *
     * @param ring the ring
     * @return the tally tables
     */
    public static List<Table> tallies(Ring ring) {
        return switch (ring) {
            case QUEUE -> List.of();
            case LEASE -> List.of(Table.LEASE_TALLIES);
            case CLAIM -> List.of(Table.CLAIM_TALLIES);
        };
    }

    /**
     * The families a writer inserts into when it opens work in the ring's current slot; rotation probes their
     * next-slot children for uncommitted writers.
     *
     * @param ring the ring
     * @return the families
     */
    public static List<Table> insertTargets(Ring ring) {
        return switch (ring) {
            case QUEUE -> List.of(Table.READY_ENTRIES, Table.READY_SEGMENTS);
            case LEASE -> List.of(Table.LEASES, Table.LEASE_RUNS);
            case CLAIM -> List.of(Table.LEASE_CLAIMS);
        };
    }

    /**
     * The ring's rotation ledger table.
     *
     * @param ring the ring
     * @return {@code "schema".<ring>_ring_rotations}
     */
    public String ledger(Ring ring) {
        return qualified(ring.label() + "_ring_rotations");
    }

    /**
     * The ring's state table (slot count).
     *
     * @param ring the ring
     * @return {@code "schema".<ring>_ring_state}
     */
    public String ringState(Ring ring) {
        return qualified(ring.label() + "_ring_state");
    }

    /**
     * The ring's slot table (one row per slot, locked by prune).
     *
     * @param ring the ring
     * @return {@code "schema".<ring>_ring_slots}
     */
    public String ringSlots(Ring ring) {
        return qualified(ring.label() + "_ring_slots");
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
