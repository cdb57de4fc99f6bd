package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.RotationBlocker;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The names run-time statements use: {@link Table}, {@link SqlFunction} and their {@link Schema} forms. */
final class SchemaNamesUnitTests {

    private final Schema schema = new Schema("awa");

    @Test
    void shouldListEachRingsFamiliesInTruncateOrder() {
        assertThat(Schema.families(Ring.QUEUE)).containsExactly(Table.READY_ENTRIES, Table.READY_SEGMENTS,
                Table.READY_CLAIM_RANGES, Table.READY_TOMBSTONES, Table.DONE_ENTRIES,
                Table.QUEUE_TERMINAL_COUNT_DELTAS);
        assertThat(Schema.families(Ring.LEASE)).containsExactly(Table.LEASES, Table.LEASE_RUNS,
                Table.LEASE_RUN_CLOSURES);
        assertThat(Schema.families(Ring.CLAIM)).containsExactly(Table.LEASE_CLAIMS, Table.LEASE_CLAIM_CLOSURES);
        assertThat(Schema.families(Ring.QUEUE)).extracting(Table::sqlName).containsExactly("ready_entries",
                "ready_segments",
                "ready_claim_ranges", "ready_tombstones", "done_entries", "queue_terminal_count_deltas");
        for (Ring ring : Ring.values()) {
            assertThat(Schema.insertTargets(ring)).isSubsetOf(Schema.families(ring));
        }
    }

    @Test
    void shouldQualifyTablesChildrenAndFunctions() {
        assertThat(schema.table(Table.SCHEMA_VERSION)).isEqualTo("\"awa\".awa_reactive_schema_version");
        assertThat(schema.child(Table.QUEUE_TERMINAL_COUNT_DELTAS, 3))
                .isEqualTo("\"awa\".queue_terminal_count_deltas_3");
        assertThat(schema.function(SqlFunction.CLAIM_JOBS)).isEqualTo("\"awa\".claim_jobs_v2");
        assertThat(Schema.literal(schema.child(Table.LEASES, 0))).isEqualTo("'\"awa\".leases_0'");
        assertThatThrownBy(() -> schema.child(Table.QUEUE_LANES, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queue_lanes");
    }

    @Test
    void shouldNameOneBlockerPerFamilyWithItsTableName() {
        List<RotationBlocker> familyBlockers = Arrays.stream(RotationBlocker.values())
                .filter(blocker -> blocker.family() != null).toList();
        for (Ring ring : Ring.values()) {
            assertThat(familyBlockers.stream().filter(blocker -> blocker.ring() == ring)
                    .map(RotationBlocker::family).toList())
                    .containsExactlyElementsOf(Schema.families(ring).stream().map(Table::sqlName).toList());
        }
        // Metric labels and the public family() text stay as they were.
        assertThat(RotationBlocker.QUEUE_TERMINAL_DELTAS.family()).isEqualTo("queue_terminal_count_deltas");
        assertThat(RotationBlocker.CLAIM_CLOSURE_ROWS.ring()).isEqualTo(Ring.CLAIM);
        assertThat(RotationBlocker.INFLIGHT_WRITES.family()).isNull();
        assertThat(RotationBlocker.INFLIGHT_WRITES.ring()).isNull();
    }
}
