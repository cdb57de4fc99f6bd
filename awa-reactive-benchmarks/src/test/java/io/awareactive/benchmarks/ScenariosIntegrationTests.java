package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke runs of scenarios 1 to 5 on the test server (a few seconds each, tiny sizes), each in its own database:
 * awa-reactive and every baseline measured, CSV written, plots drawn, ratios finite, no operation failed. Scenario 6 runs through the
 * command line on its own durable server in {@link CommandLineIntegrationTests}.
 */
@AwaPostgresTest
final class ScenariosIntegrationTests {

    @Test
    void shouldMeasureSustainedThroughputOfAwaAndBothBaselinesAtEachPointOfAWorkerSweepAfterOneJvmWarmUpEach(
            TestDatabase db, @TempDir Path out) throws Exception {
        String printed = Smoke.run(db, out, "throughput", "--workers", "1,2");

        List<String> lines = printed.lines().toList();
        for (String contender : List.of("awa-reactive", "baseline-each-ack", "baseline-batched-ack")) {
            List<Integer> warmUps = indexesOf(lines, "JVM warm-up / " + contender + ": 1 workers");
            List<Integer> runs = indexesOf(lines, "throughput / " + contender + ": closed loop");
            assertThat(warmUps).as(contender + "'s JVM warm-ups, once for the whole sweep").hasSize(1);
            assertThat(runs).as(contender + "'s measured runs").hasSize(2);
            assertThat(warmUps.get(0)).as("warm-up before " + contender + "'s first run").isLessThan(runs.get(0));
        }

        Path directory = out.resolve("throughput");
        assertThat(Files.readAllLines(directory.resolve("summary.csv")).get(0))
                .isEqualTo(Report.summaryHeader(List.of("baseline_each_ack", "baseline_batched_ack")));
        for (int workers : List.of(1, 2)) {
            String caseName = ThroughputScenario.caseName(workers);
            Map<String, String> throughput = Smoke.measuredByBoth(directory, caseName, "throughput");
            assertThat(Smoke.awa(throughput)).isPositive();
            assertThat(Csv.parseNumber(throughput.get("baseline_each_ack"))).isPositive();
            assertThat(Csv.parseNumber(throughput.get("baseline_batched_ack"))).isPositive();
            Smoke.measuredByBoth(directory, caseName, "claim p99");
            Smoke.measuredByBoth(directory, caseName, "table+index bytes at end");
            workPerJob(directory, caseName);
        }
        Smoke.saneSummary(directory);
        Smoke.timeSeriesOf(directory, "baseline-each-ack", "baseline-batched-ack");
        Smoke.plots(directory, "throughput.png", "claim_p99.png", "dead_tuples.png", "bytes.png",
                "throughput_vs_workers.png");
    }

    /**
     * WAL bytes, rows, commits and CPU per job measured for every system; a job costs at least one row, some WAL and
     * some CPU in the JVM and, with the test server on this machine, outside it.
     */
    private static void workPerJob(Path directory, String caseName) {
        Map<String, String> wal = Smoke.measuredByBoth(directory, caseName, "WAL per job");
        Map<String, String> rows = Smoke.measuredByBoth(directory, caseName, "rows written per job");
        Map<String, String> commits = Smoke.measuredByBoth(directory, caseName, "commits per job");
        Map<String, String> jvmCpu = Smoke.measuredByBoth(directory, caseName, "JVM CPU per job");
        // Busy time comes from /proc/stat: Linux, where CI runs.
        Map<String, String> outsideCpu = Smoke.measuredByBoth(directory, caseName, "CPU outside the JVM per job");
        for (String column : List.of("awa_reactive", "baseline_each_ack", "baseline_batched_ack")) {
            assertThat(Csv.parseNumber(wal.get(column))).as("WAL per job " + column).isPositive();
            assertThat(Csv.parseNumber(rows.get(column))).as("rows per job " + column).isGreaterThanOrEqualTo(1);
            assertThat(Csv.parseNumber(commits.get(column))).as("commits per job " + column).isPositive();
            assertThat(Csv.parseNumber(jvmCpu.get(column))).as("JVM CPU per job " + column).isPositive();
            assertThat(Csv.parseNumber(outsideCpu.get(column))).as("CPU outside the JVM per job " + column)
                    .isPositive();
        }
    }

    @Test
    void shouldMeasureAwaAndBothBaselinesBeforeDuringAndAfterAPinnedHorizon(TestDatabase db, @TempDir Path out)
            throws Exception {
        Smoke.run(db, out, "pinned-horizon", "--duration", "3s");

        Path directory = out.resolve("pinned-horizon");
        String caseName = PinnedHorizonScenario.CASE;
        for (String phase : List.of("before", "pinned", "after")) {
            assertThat(Smoke.awa(Smoke.measuredByBoth(directory, caseName, "throughput " + phase))).isPositive();
        }
        Map<String, String> lastMinute = Smoke.measuredByBoth(directory, caseName,
                "throughput last minute of the pin");
        assertThat(Smoke.awa(lastMinute)).isPositive();
        Smoke.measuredByBoth(directory, caseName, "throughput last minute of the pin / before");
        Smoke.measuredByBoth(directory, caseName, "table+index bytes at release");
        workPerJob(directory, caseName);
        Smoke.saneSummary(directory);
        Smoke.timeSeriesOf(directory, "baseline-each-ack", "baseline-batched-ack");
        assertThat(Csv.read(directory.resolve("timeseries.csv")))
                .anyMatch(r -> r.get("system").equals("awa-reactive") && r.get("phase").equals("pinned"))
                .anyMatch(r -> r.get("system").equals("baseline-each-ack") && r.get("phase").equals("pinned"))
                .anyMatch(r -> r.get("system").equals("baseline-batched-ack") && r.get("phase").equals("pinned"));
        assertThat(Csv.read(directory.resolve("per_minute.csv"))).extracting(r -> r.get("system"))
                .containsExactly("awa-reactive", "baseline-each-ack", "baseline-batched-ack");
        Smoke.plots(directory, "throughput.png", "dead_tuples.png", "bytes.png", "per_minute.png");
    }

    @Test
    void shouldMeasureTruncateAgainstDeleteAndVacuumOfTheSameFinishedJobsAfterOneUnmeasuredReclaimEach(
            TestDatabase db, @TempDir Path out) throws Exception {
        String printed = Smoke.run(db, out, "prune-cost", "--rows", "1000");

        List<String> lines = printed.lines().toList();
        for (String system : List.of("awa-reactive", "baseline")) {
            List<Integer> warmUps = indexesOf(lines, "JVM warm-up / prune-cost / " + system + ": 1,000 finished jobs");
            List<Integer> cases = indexesOf(lines, "] prune-cost / " + system + ": 1,000 finished jobs");
            assertThat(warmUps).as(system + "'s unmeasured reclaim").hasSize(1);
            assertThat(warmUps.get(0)).as("before " + system + "'s first case").isLessThan(cases.get(0));
        }
        Path directory = out.resolve("prune-cost");
        String caseName = "1,000 finished jobs";
        assertThat(Smoke.summary(directory)).as("the warm-up is not reported")
                .allSatisfy(row -> assertThat(row.get("case")).isEqualTo(caseName));
        assertThat(Smoke.awa(Smoke.measuredByBoth(directory, caseName, "reclaim time"))).isPositive();
        assertThat(Smoke.baseline(Smoke.measuredByBoth(directory, caseName, "reclaim WAL"))).isPositive();
        Map<String, String> before = Smoke.measuredByBoth(directory, caseName, "table+index bytes before");
        Map<String, String> after = Smoke.measuredByBoth(directory, caseName, "table+index bytes after");
        assertThat(Smoke.awa(after)).isLessThan(Smoke.awa(before));
        assertThat(Smoke.summary(directory)).anySatisfy(row -> {
            assertThat(row.get("metric")).isEqualTo("queue prune: truncate");
            assertThat(Smoke.awa(row)).isPositive();
        });
        // The test server's data directory is on this machine, so the file system's release is measured for both.
        Map<String, String> release = Smoke.measuredByBoth(directory, caseName,
                "file system: truncating one file of the table+index bytes before (ftruncate)");
        assertThat(Smoke.awa(release)).isPositive();
        assertThat(Smoke.baseline(release)).isPositive();
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

    private static List<Integer> indexesOf(List<String> lines, String text) {
        return IntStream.range(0, lines.size()).filter(i -> lines.get(i).contains(text)).boxed().toList();
    }
}
