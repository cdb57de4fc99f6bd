package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@link Table} and {@link SqlFunction} against what the installer creates. */
@AwaPostgresTest
final class SchemaNamesIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final TestDatabase db;

    SchemaNamesIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @Test
    void shouldNameEveryInstalledTableAndSequenceOutsideTheRingTables() {
        String name = db.newSchemaName();
        QueueStorage.create(QueueStorageConfig.builder().connectionFactory(db.connectionFactory()).schema(name)
                .queueSlotCount(4).leaseSlotCount(2).claimSlotCount(2).build()).install().block(WAIT);

        // Ring children and the per-ring ledger, state and slot tables are named through Schema, not Table.
        Map<String, String> installed = db.query("SELECT c.relname, c.relkind::text FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?"
                        + " AND c.relkind IN ('r', 'p', 'S') AND NOT c.relispartition"
                        + " AND c.relname NOT LIKE '%\\_ring\\_%'",
                rs -> Map.entry(rs.getString(1), rs.getString(2)), name).stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        Map<String, String> named = Arrays.stream(Table.values()).collect(Collectors.toMap(Table::sqlName,
                table -> Schema.partitionedPerSlot(table) ? "p" : table.sqlName().endsWith("_seq") ? "S" : "r"));
        assertThat(installed).isEqualTo(named);

        assertThat(db.query("SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                        + " WHERE n.nspname = ?", rs -> rs.getString(1), name))
                .containsAll(Arrays.stream(SqlFunction.values()).map(SqlFunction::sqlName).toList());
    }
}
