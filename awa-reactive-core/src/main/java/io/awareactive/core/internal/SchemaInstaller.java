package io.awareactive.core.internal;

import io.awareactive.core.AwaReactiveException;
import io.awareactive.core.Ring;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Installs and verifies a schema. Installation is one transaction, serialised across installers by a transaction
 * advisory lock on the schema name, idempotent through {@code awa_reactive_schema_version}, and refuses a schema
 * that holds tables without that version table.
 */
public final class SchemaInstaller {

    private final ConnectionFactory connectionFactory;
    private final Schema schema;
    private final Map<Ring, Integer> slotCounts;

    /**
     * Creates an installer.
     *
     * @param connectionFactory where to install
     * @param schema the schema
     * @param slotCounts the configured slot count of every ring
     */
    public SchemaInstaller(ConnectionFactory connectionFactory, Schema schema, Map<Ring, Integer> slotCounts) {
        this.connectionFactory = connectionFactory;
        this.schema = schema;
        this.slotCounts = new EnumMap<>(slotCounts);
    }

    /**
     * Installs the schema unless it is installed already; either way checks the installed version and slot counts.
     *
     * @return completion; errors with {@link AwaReactiveException} when the schema holds foreign tables, has a
     *     newer version or other slot counts (nothing is changed then)
     */
    public Mono<Void> install() {
        return Db.inTransaction(connectionFactory, c -> Db.query(c,
                        "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", row -> 1,
                        "awa-reactive.install:" + schema.name())
                .then(inspect(c))
                .flatMap(state -> switch (state) {
                    case INSTALLED -> verifyVersionAndSlots(c);
                    case FOREIGN -> Mono.error(foreignTables());
                    case ABSENT -> Flux.fromIterable(SchemaDdl.create(schema, slotCounts))
                            .concatMap(ddl -> Db.execute(c, ddl))
                            .then(Db.update(c, "INSERT INTO " + schema.table("awa_reactive_schema_version")
                                    + " (version) VALUES ($1)", Schema.VERSION))
                            .then();
                }));
    }

    /**
     * Checks, without changing anything, that the schema is installed at this library's version with the
     * configured slot counts.
     *
     * @return completion; errors with {@link AwaReactiveException} otherwise
     */
    public Mono<Void> verify() {
        return Db.withConnection(connectionFactory, c -> inspect(c).flatMap(state -> switch (state) {
            case INSTALLED -> verifyVersionAndSlots(c);
            case FOREIGN -> Mono.error(foreignTables());
            case ABSENT -> Mono.error(new AwaReactiveException("schema " + schema.name()
                    + " is not installed; run QueueStorage.install() first"));
        }));
    }

    private enum State { ABSENT, FOREIGN, INSTALLED }

    private Mono<State> inspect(Connection c) {
        return Db.queryOne(c, """
                SELECT to_regclass(format('%I.%I', $1::text, 'awa_reactive_schema_version')) IS NOT NULL,
                       EXISTS (SELECT 1 FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace
                               WHERE n.nspname = $1 AND k.relkind IN ('r', 'p', 'v', 'm', 'f'))""",
                row -> {
                    if (Db.get(row, 0, Boolean.class)) {
                        return State.INSTALLED;
                    }
                    return Db.get(row, 1, Boolean.class) ? State.FOREIGN : State.ABSENT;
                }, schema.name());
    }

    private AwaReactiveException foreignTables() {
        return new AwaReactiveException("schema " + schema.name() + " holds tables that awa-reactive did not create"
                + " (no awa_reactive_schema_version table); choose another schema");
    }

    private Mono<Void> verifyVersionAndSlots(Connection c) {
        String sql = "SELECT (SELECT max(version) FROM " + schema.table("awa_reactive_schema_version") + "), "
                + "(SELECT slot_count FROM " + schema.ringState(Ring.QUEUE) + "), "
                + "(SELECT slot_count FROM " + schema.ringState(Ring.LEASE) + "), "
                + "(SELECT slot_count FROM " + schema.ringState(Ring.CLAIM) + ")";
        return Db.queryOne(c, sql, row -> {
            int version = Db.get(row, 0, Integer.class);
            if (version != Schema.VERSION) {
                throw new AwaReactiveException("schema " + schema.name() + " has version " + version
                        + ", this library supports version " + Schema.VERSION);
            }
            List<String> mismatches = new ArrayList<>();
            for (Ring ring : Ring.values()) {
                int installed = Db.get(row, 1 + ring.ordinal(), Integer.class);
                int configured = slotCounts.get(ring);
                if (installed != configured) {
                    mismatches.add(ring.label() + "SlotCount must equal the installed slot_count " + installed
                            + " of schema " + schema.name() + ", was " + configured);
                }
            }
            if (!mismatches.isEmpty()) {
                throw new AwaReactiveException(String.join("; ", mismatches));
            }
            return version;
        }).then();
    }
}
