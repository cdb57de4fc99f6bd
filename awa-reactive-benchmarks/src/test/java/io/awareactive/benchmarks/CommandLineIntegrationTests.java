package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as {@code ./bench} runs it, on its own embedded durable PostgreSQL with pg_stat_statements (what a
 * fresh clone gets): scenario 6, maintenance overhead, for a few seconds.
 */
final class CommandLineIntegrationTests {

    @Test
    void shouldMeasureMaintenanceOverheadOnItsOwnDurableServer(@TempDir Path out) throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        String[] args = {"maintenance-overhead", "--out", out.toString(), "--idle", "2s", "--duration", "2s",
                "--warmup", "1s", "--sample-interval", "500ms", "--workers", "2", "--backlog", "200",
                "--rotate-interval", "250ms", "--settle", "0s"};

        int exit = Bench.run(args, new PrintStream(console, true, StandardCharsets.UTF_8),
                new PrintStream(errors, true, StandardCharsets.UTF_8));

        assertThat(exit).as(errors.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(console.toString(StandardCharsets.UTF_8)).contains("== maintenance-overhead");
        Path directory = out.resolve("maintenance-overhead");
        assertThat(Csv.read(directory.resolve("environment.csv")))
                .anySatisfy(r -> assertThat(r).containsEntry("key", "pg.fsync").containsEntry("value", "on"))
                .anySatisfy(r -> assertThat(r).containsEntry("key", "pg.synchronous_commit")
                        .containsEntry("value", "on"))
                .anySatisfy(r -> assertThat(r).containsEntry("key", "pg_stat_statements")
                        .containsEntry("value", "true"))
                .anySatisfy(r -> assertThat(r).containsEntry("key", "pool_order").containsEntry("value", "mru"));
        for (String phase : new String[] {"idle", "load"}) {
            Map<String, String> statements = row(directory, phase, "engine DB time (pg_stat_statements)");
            assertThat(Smoke.awa(statements)).as(phase).isPositive();
            assertThat(Smoke.awa(row(directory, phase, "engine JVM CPU (its threads)"))).as(phase).isPositive();
            assertThat(Smoke.awa(row(directory, phase, "ring ticks"))).as(phase).isPositive();
            assertThat(Smoke.awa(row(directory, phase, "engine DB time per ring tick"))).as(phase).isPositive();
            assertThat(Smoke.awa(row(directory, phase, "engine statements per ring tick (pg_stat_statements)")))
                    .as(phase).isPositive();
            assertThat(Smoke.awa(row(directory, phase, "WAL per ring tick, whole cluster (insert position)")))
                    .as(phase).isNotNaN().isNotNegative();
            for (String autovacuum : new String[] {"autovacuum time on the system's tables (sampled, sleeps left out)",
                    "autovacuum sleeps on the system's tables (sampled: cost delay, truncate lock retries)"}) {
                Map<String, String> both = row(directory, phase, autovacuum);
                assertThat(Smoke.awa(both)).as(phase).isNotNaN().isNotNegative();
                assertThat(Smoke.baseline(both)).as(phase).isNotNaN().isNotNegative();
            }
        }
        assertThat(Smoke.baseline(Smoke.measuredByBoth(directory, "load", "throughput"))).isPositive();
        Smoke.saneSummary(directory);
        Smoke.timeSeriesOfBoth(directory);
        Smoke.plots(directory, "throughput.png", "bytes.png");
    }

    private static Map<String, String> row(Path directory, String caseName, String metric) {
        return Smoke.summary(directory).stream()
                .filter(r -> r.get("case").equals(caseName) && r.get("metric").equals(metric))
                .findFirst().orElseThrow(() -> new AssertionError("no row " + caseName + " / " + metric));
    }
}
