package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke runs of scenarios 1 to 5 on the test server (a few seconds each, tiny sizes), each in its own database:
 * both systems measured, CSV written, plots drawn, ratios finite, no operation failed. Scenario 6 runs through the
 * command line on its own durable server in {@link CommandLineIntegrationTests}.
 */
@AwaPostgresTest
final class ScenariosIntegrationTests {

    @Test
    void shouldMeasureSustainedThroughputOfBothSystems(TestDatabase db, @TempDir Path out) throws Exception {
        Smoke.run(db, out, "throughput");

        Path directory = out.resolve("throughput");
        Map<String, String> throughput = Smoke.measuredByBoth(directory, ThroughputScenario.CASE, "throughput");
        assertThat(Smoke.awa(throughput)).isPositive();
        assertThat(Smoke.baseline(throughput)).isPositive();
        Smoke.measuredByBoth(directory, ThroughputScenario.CASE, "claim p99");
        Smoke.measuredByBoth(directory, ThroughputScenario.CASE, "table+index bytes at end");
        Smoke.saneSummary(directory);
        Smoke.timeSeriesOfBoth(directory);
        Smoke.plots(directory, "throughput.png", "claim_p99.png", "dead_tuples.png", "bytes.png");
    }

    @Test
    void shouldMeasureBothSystemsBeforeDuringAndAfterAPinnedHorizon(TestDatabase db, @TempDir Path out)
            throws Exception {
        Smoke.run(db, out, "pinned-horizon", "--duration", "3s");

        Path directory = out.resolve("pinned-horizon");
        String caseName = PinnedHorizonScenario.CASE;
        for (String phase : List.of("before", "pinned", "after")) {
            assertThat(Smoke.awa(Smoke.measuredByBoth(directory, caseName, "throughput " + phase))).isPositive();
        }
        Smoke.measuredByBoth(directory, caseName, "table+index bytes at release");
        Smoke.saneSummary(directory);
        Smoke.timeSeriesOfBoth(directory);
        assertThat(Csv.read(directory.resolve("timeseries.csv")))
                .anyMatch(r -> r.get("system").equals("awa-reactive") && r.get("phase").equals("pinned"))
                .anyMatch(r -> r.get("system").equals("baseline") && r.get("phase").equals("pinned"));
        Smoke.plots(directory, "throughput.png", "dead_tuples.png", "bytes.png");
    }

    @Test
    void shouldMeasureTruncateAgainstDeleteAndVacuumOfTheSameFinishedJobs(TestDatabase db, @TempDir Path out)
            throws Exception {
        Smoke.run(db, out, "prune-cost", "--rows", "1000");

        Path directory = out.resolve("prune-cost");
        String caseName = "1,000 finished jobs";
        assertThat(Smoke.awa(Smoke.measuredByBoth(directory, caseName, "reclaim time"))).isPositive();
        assertThat(Smoke.baseline(Smoke.measuredByBoth(directory, caseName, "reclaim WAL"))).isPositive();
        Map<String, String> before = Smoke.measuredByBoth(directory, caseName, "table+index bytes before");
        Map<String, String> after = Smoke.measuredByBoth(directory, caseName, "table+index bytes after");
        assertThat(Smoke.awa(after)).isLessThan(Smoke.awa(before));
        assertThat(Smoke.summary(directory)).anySatisfy(row -> {
            assertThat(row.get("metric")).isEqualTo("queue prune: truncate");
            assertThat(Smoke.awa(row)).isPositive();
        });
        Smoke.saneSummary(directory);
        Smoke.plots(directory, "reclaim_time.png", "reclaim_wal.png");
    }

    @Test
    void shouldMeasureClaimLatencyWithMaintenanceOffAndOnWithAndWithoutReaders(TestDatabase db, @TempDir Path out)
            throws Exception {
        Smoke.run(db, out, "claim-latency", "--duration", "1500ms", "--warmup", "500ms", "--lock-timeouts", "100ms",
                "--readers", "1");

        Path directory = out.resolve("claim-latency");
        for (String readers : List.of("no readers", "readers 1x20ms hold")) {
            for (String maintenance : List.of("maintenance off", "maintenance on, T=100ms")) {
                Smoke.measuredByBoth(directory, readers + ", " + maintenance, "claim p99");
                Smoke.measuredByBoth(directory, readers + ", " + maintenance, "claim max");
            }
        }
        Map<String, String> readerTransactions = Smoke.measuredByBoth(directory,
                "readers 1x20ms hold, maintenance on, T=100ms", "reader transactions");
        assertThat(Smoke.awa(readerTransactions)).isPositive();
        assertThat(Smoke.baseline(readerTransactions)).isPositive();
        Smoke.saneSummary(directory);
        Smoke.timeSeriesOfBoth(directory);
        Smoke.plots(directory, "throughput.png", "claim_p99.png");
    }

    @Test
    void shouldMeasureTheNowaitShareAgainstTheLookupRate(TestDatabase db, @TempDir Path out) throws Exception {
        Smoke.run(db, out, "lookup-pressure", "--duration", "1500ms", "--rates", "200", "--lookup-modes",
                "api,parent");

        Path directory = out.resolve("lookup-pressure");
        for (String mode : List.of("api", "parent")) {
            String caseName = "rate 200/s, lookups " + mode;
            assertThat(Smoke.awa(Smoke.measuredByBoth(directory, caseName, "achieved lookups"))).isPositive();
            Smoke.measuredByBoth(directory, caseName, "throughput");
            Map<String, String> share = Smoke.summary(directory).stream()
                    .filter(r -> r.get("case").equals(caseName)
                            && r.get("metric").equals("Blocked(NOWAIT) share of queue prunes"))
                    .findFirst().orElseThrow();
            assertThat(Smoke.awa(share)).isBetween(0.0, 100.0);
        }
        Smoke.saneSummary(directory);
        Smoke.timeSeriesOfBoth(directory);
        Smoke.plots(directory, "throughput.png");
    }
}
