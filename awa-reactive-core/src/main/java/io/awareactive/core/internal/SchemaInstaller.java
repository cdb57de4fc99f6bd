package io.awareactive.core.internal;

import io.awareactive.core.AwaReactiveException;
import io.awareactive.core.Ring;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Installs, upgrades and verifies a schema through its version steps ({@link SchemaSteps}).
 *
 * <p>{@link #install()} applies the missing steps one by one, each in its own transaction that first takes a
 * transaction advisory lock on the schema name and reads the applied steps again: a concurrent installer waits, then
 * finds the step done. Before any step runs, the installed schema is checked (foreign tables, a version newer than
 * this library, a changed step, other slot counts); a refusal changes nothing. A crash between steps leaves a
 * consistent schema at an older version, which the next install continues from.
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
     * Creates the schema at the latest version, or upgrades it in place step by step; at the latest version only
     * checks it.
     *
     * @return completion; errors with {@link AwaReactiveException} when the schema holds foreign tables, is newer
     *     than this library, records a step whose checksum differs from this library's, or has other slot counts
     *     (nothing is changed then)
     */
    public Mono<Void> install() {
        return Db.inTransaction(connectionFactory, c -> Db.query(c,
                        "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", row -> 1,
                        "awa-reactive.install:" + schema.name())
                .then(read(c))
                .flatMap(installed -> {
                    check(installed);
                    if (installed.version() == SchemaSteps.latestVersion()) {
                        return Mono.just(false);
                    }
                    return applyStep(c, SchemaSteps.step(installed.version() + 1)).thenReturn(true);
                }))
                .flatMap(applied -> applied ? install() : Mono.<Void>empty());
    }

    /**
     * Checks, without changing anything, that the schema is installed at this library's latest version, with
     * unchanged steps and the configured slot counts.
     *
     * @return completion; errors with {@link AwaReactiveException} otherwise
     */
    public Mono<Void> verify() {
        return Db.withConnection(connectionFactory, c -> read(c).doOnNext(installed -> {
            if (installed.absent()) {
                throw new AwaReactiveException("schema " + schema.name()
                        + " is not installed; run QueueStorage.install() first");
            }
            check(installed);
            if (installed.version() < SchemaSteps.latestVersion()) {
                throw new AwaReactiveException("schema " + schema.name() + " is at version " + installed.version()
                        + ", this library needs version " + SchemaSteps.latestVersion()
                        + "; run QueueStorage.install() to upgrade it in place, or apply the missing"
                        + " QueueStorage.migrationScripts() with your migration tool (docs/operations.md, Upgrading)");
            }
        })).then();
    }

    /**
     * What the schema holds.
     *
     * @param absent no version table and no tables: nothing installed
     * @param foreign tables but no version table: not an awa-reactive schema
     * @param applied each recorded version with its checksum (empty where release 0.1.0 recorded none)
     * @param slotCounts the installed slot count of every ring, when installed
     */
    private record Installed(boolean absent, boolean foreign, SortedMap<Integer, Optional<String>> applied,
            Map<Ring, Integer> slotCounts) {

        int version() {
            return applied.isEmpty() ? 0 : applied.lastKey();
        }
    }

    /** What the catalog shows of the schema: its version table, any table at all, the checksum column. */
    private record Found(boolean versionTable, boolean anyTable, boolean checksums) {
    }

    private Mono<Installed> read(Connection c) {
        return Db.queryOne(c, """
                SELECT to_regclass(format('%I.%I', $1::text, $2::text)) IS NOT NULL,
                       EXISTS (SELECT 1 FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace
                               WHERE n.nspname = $1 AND k.relkind IN ('r', 'p', 'v', 'm', 'f')),
                       EXISTS (SELECT 1 FROM pg_attribute a
                               WHERE a.attrelid = to_regclass(format('%I.%I', $1::text, $2::text))
                                 AND a.attname = 'checksum' AND NOT a.attisdropped)""",
                row -> new Found(Db.get(row, 0, Boolean.class), Db.get(row, 1, Boolean.class),
                        Db.get(row, 2, Boolean.class)), schema.name(), Table.SCHEMA_VERSION.sqlName())
                .flatMap(found -> {
                    if (!found.versionTable()) {
                        return Mono.just(new Installed(!found.anyTable(), found.anyTable(),
                                Collections.emptySortedMap(), Map.of()));
                    }
                    return appliedSteps(c, found.checksums()).zipWith(installedSlotCounts(c),
                            (applied, slots) -> new Installed(false, false, applied, slots));
                });
    }

    /** The recorded steps; before step 2 the table has no checksum column (release 0.1.0 recorded none). */
    private Mono<SortedMap<Integer, Optional<String>>> appliedSteps(Connection c, boolean hasChecksums) {
        String sql = "SELECT version, " + (hasChecksums ? "checksum" : "NULL::text") + " FROM "
                + schema.table(Table.SCHEMA_VERSION) + " ORDER BY version";
        return Db.query(c, sql, row -> Map.entry(Db.get(row, 0, Integer.class),
                        Optional.ofNullable(row.get(1, String.class))))
                .collect(TreeMap<Integer, Optional<String>>::new, (map, e) -> map.put(e.getKey(), e.getValue()))
                .map(Collections::unmodifiableSortedMap);
    }

    private Mono<Map<Ring, Integer>> installedSlotCounts(Connection c) {
        String sql = "SELECT (SELECT slot_count FROM " + schema.ringState(Ring.QUEUE) + "), "
                + "(SELECT slot_count FROM " + schema.ringState(Ring.LEASE) + "), "
                + "(SELECT slot_count FROM " + schema.ringState(Ring.CLAIM) + ")";
        return Db.queryOne(c, sql, row -> {
            Map<Ring, Integer> counts = new EnumMap<>(Ring.class);
            for (Ring ring : Ring.values()) {
                counts.put(ring, Db.get(row, ring.ordinal(), Integer.class));
            }
            return counts;
        });
    }

    /** Every refusal, before anything is changed: foreign tables, gaps, a newer schema, a changed step, slots. */
    private void check(Installed installed) {
        if (installed.foreign()) {
            throw new AwaReactiveException("schema " + schema.name() + " holds tables that awa-reactive did not"
                    + " create (no awa_reactive_schema_version table); choose another schema");
        }
        if (installed.absent()) {
            return;
        }
        int version = installed.version();
        // Distinct versions from 1 to N, N of them: every step applied once, in order.
        if (version == 0 || installed.applied().firstKey() != 1 || installed.applied().size() != version) {
            throw new AwaReactiveException("schema " + schema.name() + " records versions "
                    + installed.applied().keySet() + " in awa_reactive_schema_version, not every step from 1 to "
                    + Math.max(version, 1) + "; the table was changed by hand");
        }
        if (version > SchemaSteps.latestVersion()) {
            throw new AwaReactiveException("schema " + schema.name() + " is at version " + version
                    + ", newer than version " + SchemaSteps.latestVersion() + ", the latest this library knows;"
                    + " use a library that supports version " + version + " or later");
        }
        installed.applied().forEach((applied, checksum) -> checkUnchanged(SchemaSteps.step(applied),
                checksum.orElse(null)));
        List<String> mismatches = new ArrayList<>();
        for (Ring ring : Ring.values()) {
            int existing = installed.slotCounts().get(ring);
            int configured = slotCounts.get(ring);
            if (existing != configured) {
                mismatches.add(ring.label() + "SlotCount must equal the installed slot_count " + existing
                        + " of schema " + schema.name() + ", was " + configured);
            }
        }
        if (!mismatches.isEmpty()) {
            throw new AwaReactiveException(String.join("; ", mismatches));
        }
    }

    /** A recorded checksum must be this library's; only step 1 of release 0.1.0 has none (step 2 records it). */
    private void checkUnchanged(SchemaSteps.Step step, @Nullable String recorded) {
        if (recorded == null ? step.version() != 1 : !recorded.equals(step.checksum())) {
            throw new AwaReactiveException("schema " + schema.name() + ": step " + step.fileName()
                    + " was applied with checksum " + recorded + ", but this library's " + step.fileName()
                    + " has checksum " + step.checksum() + "; a released step must never change, so either the"
                    + " schema or the library was altered. Nothing was changed");
        }
    }

    /** Runs one step's script and confirms it recorded itself (every step file ends with its own row). */
    private Mono<Void> applyStep(Connection c, SchemaSteps.Step step) {
        return Db.execute(c, SchemaSteps.render(step, schema, slotCounts))
                .then(Db.queryOne(c, "SELECT count(*) FROM " + schema.table(Table.SCHEMA_VERSION)
                        + " WHERE version = $1", row -> Db.get(row, 0, Long.class), step.version()))
                .flatMap(rows -> rows == 1 ? Mono.<Void>empty()
                        : Mono.error(new IllegalStateException("schema step " + step.fileName()
                                + " did not record version " + step.version())));
    }
}
