package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

@AwaPostgresTest
final class SchemaInstallerIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final TestDatabase db;

    SchemaInstallerIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    private long tableCount(String schema) {
        return db.queryLong("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND c.relkind IN ('r', 'p')", schema);
    }

    private long childCount(String schema, String family) {
        return db.queryLong("SELECT count(*) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent"
                + " JOIN pg_namespace n ON n.oid = p.relnamespace WHERE n.nspname = ? AND p.relname = ?",
                schema, family);
    }

    @Test
    void shouldInstallRingsWithOneChildPerSlotAndRecordTheVersion() {
        String schema = db.newSchemaName();
        Fixtures.installed(db.connectionFactory(), schema);

        assertThat(db.query("SELECT version FROM \"" + schema + "\".awa_reactive_schema_version ORDER BY 1",
                rs -> rs.getInt(1)))
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22);
        for (String family : List.of("ready_entries", "ready_segments", "ready_claim_ranges", "ready_tombstones",
                "done_entries", "queue_terminal_count_deltas")) {
            assertThat(childCount(schema, family)).as(family).isEqualTo(4);
        }
        assertThat(childCount(schema, "leases")).isEqualTo(2);
        assertThat(childCount(schema, "lease_claims")).isEqualTo(2);
        assertThat(childCount(schema, "lease_claim_closures")).isEqualTo(2);
        assertThat(childCount(schema, "lease_tallies")).isEqualTo(2);
        assertThat(childCount(schema, "claim_tallies")).isEqualTo(2);
        for (String ring : List.of("queue", "lease", "claim")) {
            assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\"." + ring + "_ring_rotations"
                    + " WHERE generation = 0 AND slot = 0")).isEqualTo(1);
        }
        assertThat(db.queryLong("SELECT slot_count FROM \"" + schema + "\".queue_ring_state")).isEqualTo(4);
        assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".queue_ring_slots")).isEqualTo(4);
        assertThat(db.queryLong("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE n.nspname = ? AND p.proname = 'create_lane' AND p.prosecdef", schema)).isEqualTo(1);
    }

    @Test
    void shouldSwitchOffAutovacuumOnTheAppendOnlyRingChildrenAndKeepItOnLeasesAndTallies() {
        String schema = db.newSchemaName();
        Fixtures.installed(db.connectionFactory(), schema);

        for (String family : List.of("ready_entries", "ready_segments", "ready_claim_ranges", "ready_tombstones",
                "done_entries", "queue_terminal_count_deltas", "lease_claims", "lease_claim_closures")) {
            assertThat(childrenWithReloption(schema, family, "autovacuum_enabled=false")).as(family)
                    .isEqualTo(childCount(schema, family));
            assertThat(db.queryLong("SELECT count(*) FILTER (WHERE 'autovacuum_enabled=false' = ANY (t.reloptions))"
                    + " - count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                    + " JOIN pg_class t ON t.oid = c.reltoastrelid WHERE i.inhparent = ?::regclass",
                    "\"" + schema + "\"." + family)).as(family + ": every TOAST table").isZero();
        }
        for (String family : List.of("leases", "lease_tallies", "claim_tallies")) {
            assertThat(childrenWithReloption(schema, family, "autovacuum_enabled=false")).as(family).isZero();
        }
    }

    @Test
    void shouldVacuumLeaseChildrenOnlyPastManyDeadLeasesAndNeverAnalyzeThem() {
        String schema = db.newSchemaName();
        Fixtures.installed(db.connectionFactory(), schema);

        List<String> stalledOnly = List.of("autovacuum_analyze_threshold=2147483647",
                "autovacuum_vacuum_insert_threshold=-1", "autovacuum_vacuum_threshold=100000",
                "autovacuum_vacuum_scale_factor=0");
        for (String option : stalledOnly) {
            assertThat(childrenWithReloption(schema, "leases", option)).as(option)
                    .isEqualTo(childCount(schema, "leases"));
            assertThat(childrenWithReloption(schema, "lease_tallies", option)).as(option).isZero();
        }
    }

    private long childrenWithReloption(String schema, String family, String option) {
        return db.queryLong("SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " WHERE i.inhparent = ?::regclass AND ? = ANY (c.reloptions)", "\"" + schema + "\"." + family, option);
    }

    @Test
    void shouldBeIdempotent() {
        String schema = db.newSchemaName();
        QueueStorage storage = Fixtures.installed(db.connectionFactory(), schema);
        long tables = tableCount(schema);

        storage.install().block(WAIT);
        storage.verifyInstalled().block(WAIT);

        assertThat(tableCount(schema)).isEqualTo(tables);
        assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".awa_reactive_schema_version")).isEqualTo(22);
        assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".queue_ring_rotations")).isEqualTo(1);
    }

    @Test
    void shouldSerialiseConcurrentInstallersIntoOneCorrectSchema() {
        for (int round = 0; round < 3; round++) {
            String schema = db.newSchemaName();
            QueueStorage first = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                    UnaryOperator.identity()));
            QueueStorage second = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                    UnaryOperator.identity()));

            Mono.when(first.install().subscribeOn(Schedulers.parallel()),
                    second.install().subscribeOn(Schedulers.parallel())).block(WAIT);

            assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".awa_reactive_schema_version"))
                    .isEqualTo(22);
            assertThat(childCount(schema, "ready_entries")).isEqualTo(4);
            assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".queue_ring_rotations")).isEqualTo(1);
        }
    }

    @Test
    void shouldRefuseOtherSlotCountsNamingBothValuesAndChangeNothing() {
        String schema = db.newSchemaName();
        Fixtures.installed(db.connectionFactory(), schema);
        long tables = tableCount(schema);
        QueueStorage other = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                b -> b.queueSlotCount(8).claimSlotCount(3)));

        assertThatThrownBy(() -> other.install().block(WAIT))
                .isInstanceOf(AwaReactiveException.class)
                .hasMessage("queueSlotCount must equal the installed slot_count 4 of schema " + schema + ", was 8; "
                        + "claimSlotCount must equal the installed slot_count 2 of schema " + schema + ", was 3");
        assertThatThrownBy(() -> other.verifyInstalled().block(WAIT))
                .isInstanceOf(AwaReactiveException.class)
                .hasMessageStartingWith("queueSlotCount must equal the installed slot_count 4");

        assertThat(tableCount(schema)).isEqualTo(tables);
        assertThat(childCount(schema, "ready_entries")).isEqualTo(4);
        assertThat(db.queryLong("SELECT slot_count FROM \"" + schema + "\".queue_ring_state")).isEqualTo(4);
    }

    @Test
    void shouldInstallIntoTheDefaultSchema() {
        QueueStorage storage = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(db.connectionFactory()).build());
        storage.install().block(WAIT);

        assertThat(childCount("awa_reactive", "ready_entries")).isEqualTo(16);
        assertThat(childCount("awa_reactive", "leases")).isEqualTo(8);
        assertThat(childCount("awa_reactive", "lease_claims")).isEqualTo(8);
        db.execute("DROP SCHEMA awa_reactive CASCADE");
    }

    @Test
    void shouldRefuseSchemaHoldingForeignTablesAndLeaveItUnchanged() {
        String schema = db.newSchemaName();
        db.execute("CREATE SCHEMA " + schema, "CREATE TABLE " + schema + ".queue_meta (id int)");
        QueueStorage storage = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                UnaryOperator.identity()));

        assertThatThrownBy(() -> storage.install().block(WAIT))
                .isInstanceOf(AwaReactiveException.class)
                .hasMessage("schema " + schema + " holds tables that awa-reactive did not create"
                        + " (no awa_reactive_schema_version table); choose another schema");

        assertThat(tableCount(schema)).isEqualTo(1);
        assertThat(db.queryLong("SELECT count(*) FROM information_schema.columns WHERE table_schema = ?"
                + " AND table_name = 'queue_meta'", schema)).isEqualTo(1);
    }

    @Test
    void shouldInstallIntoAnExistingEmptySchema() {
        String schema = db.newSchemaName();
        db.execute("CREATE SCHEMA " + schema);
        Fixtures.installed(db.connectionFactory(), schema);
        assertThat(childCount(schema, "ready_entries")).isEqualTo(4);
    }

    @Test
    void shouldReportMissingInstallationOnVerify() {
        String schema = db.newSchemaName();
        QueueStorage storage = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                UnaryOperator.identity()));
        assertThatThrownBy(() -> storage.verifyInstalled().block(WAIT))
                .isInstanceOf(AwaReactiveException.class)
                .hasMessage("schema " + schema + " is not installed; run QueueStorage.install() first");
        assertThat(db.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = ?", schema)).isZero();
    }

    @Test
    void shouldCreateEachLaneOnceAndNeverResetIt() {
        String schema = db.newSchemaName();
        Fixtures.installed(db.connectionFactory(), schema);
        String lane = "SELECT \"" + schema + "\".create_lane('mail', 2::smallint, 0)";
        db.execute(lane);
        db.execute("SELECT nextval(enqueue_seq) FROM \"" + schema + "\".queue_lanes");
        db.execute(lane);

        assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".queue_lanes")).isEqualTo(1);
        assertThat(db.queryLong("SELECT pg_sequence_last_value(enqueue_seq) FROM \"" + schema + "\".queue_lanes"))
                .isEqualTo(1);
        assertThat(db.queryLong("SELECT pg_sequence_last_value(claim_seq) FROM \"" + schema + "\".queue_lanes"))
                .isZero();
    }
}
