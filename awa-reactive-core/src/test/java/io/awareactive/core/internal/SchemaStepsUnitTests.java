package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.core.MigrationScript;
import io.awareactive.core.Ring;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

final class SchemaStepsUnitTests {

    private static final Path FOLDER = Path.of("src/main/resources/io/awareactive/core/schema");

    private static Map<Ring, Integer> slots(int queue, int lease, int claim) {
        Map<Ring, Integer> slots = new EnumMap<>(Ring.class);
        slots.put(Ring.QUEUE, queue);
        slots.put(Ring.LEASE, lease);
        slots.put(Ring.CLAIM, claim);
        return slots;
    }

    @Test
    void shouldListEveryStepFileOfTheSourceTreeInVersionOrder() throws IOException {
        try (Stream<Path> files = Files.list(FOLDER)) {
            List<String> sqlFiles = files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".sql")).sorted().toList();
            assertThat(SchemaSteps.all()).extracting(SchemaSteps.Step::fileName)
                    .containsExactlyInAnyOrderElementsOf(sqlFiles);
        }
        assertThat(SchemaSteps.all()).extracting(SchemaSteps.Step::version)
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22);
        assertThat(SchemaSteps.latestVersion()).isEqualTo(22);
        assertThat(SchemaSteps.step(1).description()).isEqualTo("rings");
        assertThat(SchemaSteps.step(2).description()).isEqualTo("schema version checksums");
        assertThat(SchemaSteps.step(3).description()).isEqualTo("complete attempts");
        assertThat(SchemaSteps.step(4).description()).isEqualTo("claim in one statement");
        assertThat(SchemaSteps.step(5).description()).isEqualTo("lean claim");
        assertThat(SchemaSteps.step(6).description()).isEqualTo("prune tallies");
        assertThat(SchemaSteps.step(7).description()).isEqualTo("lean attempts");
        assertThat(SchemaSteps.step(8).description()).isEqualTo("append only children without autovacuum");
        assertThat(SchemaSteps.step(9).description()).isEqualTo("claim runs from named children");
        assertThat(SchemaSteps.step(10).description()).isEqualTo("done rows without job id index");
        assertThat(SchemaSteps.step(11).description()).isEqualTo("notify enqueues from transaction snapshots");
        assertThat(SchemaSteps.step(12).description()).isEqualTo("completions without lease locks");
        assertThat(SchemaSteps.step(13).description()).isEqualTo("claims in one statement per lane");
        assertThat(SchemaSteps.step(14).description()).isEqualTo("claim heads as advisory locks");
        assertThat(SchemaSteps.step(15).description()).isEqualTo("rescue from lease tallies");
        assertThat(SchemaSteps.step(16).description()).isEqualTo("bounded segment lookups");
        assertThat(SchemaSteps.step(17).description()).isEqualTo("lease children vacuumed only when stalled");
        assertThat(SchemaSteps.step(18).description()).isEqualTo("claim runs as leases");
        assertThat(SchemaSteps.step(19).description()).isEqualTo("completions as run closures");
        assertThat(SchemaSteps.step(20).description()).isEqualTo("claims read visited lanes only");
        assertThat(SchemaSteps.step(21).description()).isEqualTo("whole completions answered in one statement");
        assertThat(SchemaSteps.step(22).description()).isEqualTo("job lookups planned once per session");
    }

    @Test
    void shouldChecksumEachFileAsShipped() throws IOException, NoSuchAlgorithmException {
        for (SchemaSteps.Step step : SchemaSteps.all()) {
            byte[] file = Files.readString(FOLDER.resolve(step.fileName())).replace("\r\n", "\n")
                    .getBytes(StandardCharsets.UTF_8);
            assertThat(step.checksum()).as(step.fileName())
                    .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file)));
        }
    }

    @Test
    void shouldFillEveryPlaceholderForTheSchemaAndSlotCounts() {
        List<MigrationScript> scripts = SchemaSteps.render(new Schema("jobs_a"), slots(5, 3, 4));

        assertThat(scripts).allSatisfy(script -> assertThat(script.sql()).doesNotContain("{{").doesNotContain("}}")
                .doesNotContain("${"));
        String rings = scripts.get(0).sql();
        assertThat(rings).contains("CREATE SCHEMA IF NOT EXISTS \"jobs_a\";",
                "INSERT INTO \"jobs_a\".queue_ring_state (slot_count) VALUES (5);",
                "INSERT INTO \"jobs_a\".lease_ring_state (slot_count) VALUES (3);",
                "INSERT INTO \"jobs_a\".claim_ring_state (slot_count) VALUES (4);",
                "PERFORM pg_notify('awa_jobs_jobs_a', p_queue);",
                "format('%I.%I', 'jobs_a', 'queue_enqueue_seq_' || v_hash)");
        assertThat(scripts.get(1).sql()).contains("checksum = '" + SchemaSteps.step(1).checksum() + "'",
                "VALUES (2, 'schema version checksums', '" + SchemaSteps.step(2).checksum() + "');");
    }

    @Test
    void shouldEndEveryStepByRecordingItsOwnVersion() {
        for (SchemaSteps.Step step : SchemaSteps.all()) {
            String lastStatement = step.template().strip();
            lastStatement = lastStatement.substring(lastStatement.lastIndexOf("INSERT INTO"));
            assertThat(lastStatement).as(step.fileName())
                    .startsWith("INSERT INTO {{schema}}.awa_reactive_schema_version")
                    .containsPattern("VALUES \\(" + step.version() + "[,)]");
            if (step.version() > 1) {
                assertThat(lastStatement).contains("'" + step.description() + "'", "{{checksum:" + step.version()
                        + "}}");
            }
        }
    }

    @Test
    void shouldRefuseAnUnknownPlaceholderNamingTheFile() {
        SchemaSteps.Step broken = new SchemaSteps.Step(1, "broken", "V1__broken.sql",
                "CREATE TABLE {{schema}}.t (x int DEFAULT {{schema_version}});", "00");

        assertThatThrownBy(() -> SchemaSteps.render(broken, new Schema("s"), slots(4, 2, 2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("V1__broken.sql has an unknown placeholder {{schema_version}}");
        SchemaSteps.Step later = new SchemaSteps.Step(1, "early", "V1__early.sql", "SELECT {{checksum:2}}", "00");
        assertThatThrownBy(() -> SchemaSteps.render(later, new Schema("s"), slots(4, 2, 2)))
                .hasMessage("V1__early.sql has an unknown placeholder {{checksum:2}}");
    }
}
