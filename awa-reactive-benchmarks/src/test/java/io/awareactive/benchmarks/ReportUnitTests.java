package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ReportUnitTests {

    @Test
    void shouldComputeTheRatioOnlyFromTwoFiniteFiguresAndANonZeroBaseline() {
        assertThat(new Report.Row("c", "m", "u", 3, 2).ratio()).isEqualTo(1.5);
        assertThat(new Report.Row("c", "m", "u", 3, Double.NaN).ratio()).isNaN();
        assertThat(new Report.Row("c", "m", "u", Double.NaN, 2).ratio()).isNaN();
        assertThat(new Report.Row("c", "m", "u", 3, 0).ratio()).isNaN();
        assertThat(new Report.Row("c", "m", "u", 0, 4).ratio()).isZero();
    }

    @Test
    void shouldWriteSummaryTimeSeriesAndEnvironmentCsv(@TempDir Path directory) {
        Report report = new Report(ScenarioName.THROUGHPUT);
        report.add("closed loop, 2 workers", "throughput", "jobs/s", 1234.5, 1000);
        report.add("closed loop, 2 workers", "queue pruned", "count", 7, Double.NaN);
        report.addSamples(List.of(new Sampler.Sample("awa-reactive", "closed loop", "run", 1.0, 1200, 1.5, 4.25, 100,
                50, 3, 10)));
        report.environment("pg.fsync", "on");
        report.note("a note, with a comma");
        report.write(directory);

        List<Map<String, String>> summary = Csv.read(directory.resolve("summary.csv"));
        assertThat(summary).hasSize(2);
        assertThat(summary.get(0)).containsEntry("scenario", "throughput")
                .containsEntry("case", "closed loop, 2 workers").containsEntry("awa_reactive", "1234.5")
                .containsEntry("baseline", "1000").containsEntry("ratio_awa_over_baseline", "1.2345");
        assertThat(summary.get(1)).containsEntry("baseline", "").containsEntry("ratio_awa_over_baseline", "");
        List<Map<String, String>> series = Csv.read(directory.resolve("timeseries.csv"));
        assertThat(series).singleElement().satisfies(row -> assertThat(row).containsEntry("system", "awa-reactive")
                .containsEntry("total_bytes", "150").containsEntry("claim_p99_ms", "4.25"));
        assertThat(Csv.read(directory.resolve("environment.csv")))
                .anySatisfy(row -> assertThat(row).containsEntry("key", "pg.fsync").containsEntry("value", "on"))
                .anySatisfy(row -> assertThat(row).containsEntry("value", "a note, with a comma"));
    }

    @Test
    void shouldWriteOneColumnAndOneRatioPerBaseline(@TempDir Path directory) throws Exception {
        Report report = new Report(ScenarioName.THROUGHPUT, List.of("baseline_each_ack", "baseline_batched_ack"));
        report.add("closed loop, 4 workers", "throughput", "jobs/s", 3000, List.of(1000.0, 6000.0));
        report.add("closed loop, 4 workers", "WAL per job", "bytes", 400, List.of(Double.NaN, 800.0));
        report.addAwaOnly("closed loop, 4 workers", "queue pruned", "count", 7);
        report.write(directory);

        assertThat(Files.readAllLines(directory.resolve("summary.csv")).get(0)).isEqualTo(
                "scenario,case,metric,unit,awa_reactive,baseline_each_ack,baseline_batched_ack,"
                        + "ratio_awa_over_baseline_each_ack,ratio_awa_over_baseline_batched_ack");
        List<Map<String, String>> summary = Csv.read(directory.resolve("summary.csv"));
        assertThat(summary.get(0)).containsEntry("awa_reactive", "3000").containsEntry("baseline_each_ack", "1000")
                .containsEntry("baseline_batched_ack", "6000").containsEntry("ratio_awa_over_baseline_each_ack", "3")
                .containsEntry("ratio_awa_over_baseline_batched_ack", "0.5");
        assertThat(summary.get(1)).containsEntry("baseline_each_ack", "")
                .containsEntry("ratio_awa_over_baseline_each_ack", "")
                .containsEntry("ratio_awa_over_baseline_batched_ack", "0.5");
        assertThat(summary.get(2)).containsEntry("awa_reactive", "7").containsEntry("baseline_each_ack", "")
                .containsEntry("baseline_batched_ack", "");
    }

    @Test
    void shouldRejectARowWithoutAFigureForEachBaselineColumn() {
        Report report = new Report(ScenarioName.THROUGHPUT, List.of("baseline_each_ack", "baseline_batched_ack"));

        assertThatIllegalArgumentException().isThrownBy(() -> report.add("c", "m", "u", 1, 2));
        assertThatIllegalArgumentException().isThrownBy(() -> new Report(ScenarioName.THROUGHPUT, List.of("plain")));
    }

    @Test
    void shouldPrintARatioColumnPerBaseline() {
        Report report = new Report(ScenarioName.THROUGHPUT, List.of("baseline_each_ack", "baseline_batched_ack"));
        report.add("closed loop, 4 workers", "throughput", "jobs/s", 3000, List.of(1000.0, 6000.0));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        report.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();

        assertThat(lines).anySatisfy(line -> assertThat(line).contains("baseline-each-ack")
                .contains("baseline-batched-ack").contains("ratio each-ack").contains("ratio batched-ack"));
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("throughput (jobs/s)").contains("3,000")
                .contains("1,000").contains("6,000").endsWith("0.50"));
    }

    @Test
    void shouldWritePerMinuteThroughputWhenThereIsAny(@TempDir Path directory) {
        Report report = new Report(ScenarioName.PINNED_HORIZON, List.of("baseline_each_ack"));
        report.addMinutes(List.of(new Minutes.Minute("baseline-each-ack", "pin", 0, 0, 60, "before", 1200),
                new Minutes.Minute("baseline-each-ack", "pin", 1, 60, 90, "before/pinned", 700.5)));
        report.write(directory);

        assertThat(Csv.read(directory.resolve("per_minute.csv"))).hasSize(2).last().satisfies(row -> assertThat(row)
                .containsEntry("system", "baseline-each-ack").containsEntry("minute", "2")
                .containsEntry("start_s", "60").containsEntry("end_s", "90").containsEntry("phase", "before/pinned")
                .containsEntry("jobs_per_s", "700.5"));
        Report without = new Report(ScenarioName.THROUGHPUT);
        without.write(directory.resolve("none"));
        assertThat(directory.resolve("none").resolve("per_minute.csv")).doesNotExist();
    }

    @Test
    void shouldPrintOneLinePerRowWithNaAsAMissingRatio() {
        Report report = new Report(ScenarioName.PRUNE_COST);
        report.add("10,000 finished jobs", "reclaim time", "ms", 12.345, 2468.9);
        report.add("10,000 finished jobs", "DELETE", "ms", Double.NaN, 1000);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        report.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("== prune-cost").contains("reclaim time (ms)").contains("12.3")
                .contains("2,469").contains("0.00500");
        assertThat(printed.lines().filter(line -> line.contains("DELETE (ms)")).findFirst().orElseThrow())
                .endsWith("n/a");
    }

    @Test
    void shouldRoundTripCsvFields(@TempDir Path directory) throws Exception {
        assertThat(Csv.split("a,\"b,c\",\"d\"\"e\",")).containsExactly("a", "b,c", "d\"e", "");
        assertThat(Csv.quote("plain")).isEqualTo("plain");
        assertThat(Csv.quote("x,\"y\"")).isEqualTo("\"x,\"\"y\"\"\"");
        assertThat(Csv.number(Double.NaN)).isEmpty();
        assertThat(Csv.number(42)).isEqualTo("42");
        assertThat(Csv.number(0.000123456789)).isEqualTo("0.000123457");
        Path file = directory.resolve("x.csv");
        Files.writeString(file, "h1,h2\n1,\"two, too\"\n");
        assertThat(Csv.read(file)).containsExactly(Map.of("h1", "1", "h2", "two, too"));
    }

    @Test
    void shouldFormatNumbersForPeople() {
        assertThat(Report.human(Double.NaN)).isEqualTo("-");
        assertThat(Report.human(123456.7)).isEqualTo("123,457");
        assertThat(Report.human(12.34)).isEqualTo("12.3");
        assertThat(Report.human(1.234)).isEqualTo("1.23");
        assertThat(Report.human(0.001234)).isEqualTo("0.00123");
        assertThat(Report.human(0)).isEqualTo("0");
    }
}
