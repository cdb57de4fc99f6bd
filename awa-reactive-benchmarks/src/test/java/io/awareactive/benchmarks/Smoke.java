package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.testkit.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Runs scenarios for a few seconds with tiny sizes against a real PostgreSQL, and checks what they wrote: both
 * systems measured, CSV files written, plots drawn, ratios finite.
 */
final class Smoke {

    /** Tiny sizes: a few seconds per run, a small closed loop. */
    static final List<String> TINY = List.of("--duration", "2s", "--warmup", "1s", "--jvm-warmup", "500ms",
            "--sample-interval", "500ms", "--workers", "2", "--producers", "1", "--backlog", "200",
            "--enqueue-batch", "20", "--claim-batch", "5", "--rotate-interval", "250ms", "--settle", "0s");

    private Smoke() {
    }

    /** Runs one scenario on a fresh database of the test server; returns what it printed. */
    static String run(TestDatabase db, Path out, String scenario, String... flags) {
        List<String> args = new ArrayList<>();
        args.add(scenario);
        args.addAll(TINY);
        args.addAll(List.of(flags));
        BenchOptions options = BenchOptions.parse(args.toArray(String[]::new));
        TestDatabase own = db.newDatabase();
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        try (BenchDatabase database = new BenchDatabase(own.server(), own.database(), false, "the test server")) {
            Bench.run(options, database, out, new PrintStream(console, true, StandardCharsets.UTF_8));
            String printed = console.toString(StandardCharsets.UTF_8);
            assertThat(printed).contains("== " + options.scenario().cliName());
            return printed;
        }
    }

    /** The summary rows of a scenario directory. */
    static List<Map<String, String>> summary(Path directory) {
        assertThat(directory.resolve("summary.csv")).isRegularFile();
        return Csv.read(directory.resolve("summary.csv"));
    }

    /**
     * The row of a case and metric measured by awa-reactive and every baseline column, with a finite ratio against
     * each.
     */
    static Map<String, String> measuredByBoth(Path directory, String caseName, String metric) {
        Map<String, String> row = summary(directory).stream()
                .filter(r -> r.get("case").equals(caseName) && r.get("metric").equals(metric))
                .findFirst().orElseThrow(() -> new AssertionError("no row " + caseName + " / " + metric));
        assertThat(Csv.parseNumber(row.get("awa_reactive"))).as("awa-reactive " + metric).isFinite();
        assertThat(baselineColumns(row)).isNotEmpty().allSatisfy(column -> {
            assertThat(Csv.parseNumber(row.get(column))).as(column + " " + metric).isFinite();
            assertThat(Csv.parseNumber(row.get("ratio_awa_over_" + column))).as("ratio " + column + " " + metric)
                    .isFinite();
        });
        return row;
    }

    /** The summary columns of the baselines: every column whose name starts with {@code baseline}. */
    static List<String> baselineColumns(Map<String, String> row) {
        return row.keySet().stream().filter(column -> column.startsWith("baseline")).toList();
    }

    static double awa(Map<String, String> row) {
        return Csv.parseNumber(row.get("awa_reactive"));
    }

    /** The first baseline column's figure. */
    static double baseline(Map<String, String> row) {
        return Csv.parseNumber(row.get(baselineColumns(row).get(0)));
    }

    /** Every ratio written is a finite number; every "errors" row is 0 for every system. */
    static void saneSummary(Path directory) {
        List<Map<String, String>> rows = summary(directory);
        assertThat(rows).isNotEmpty();
        for (Map<String, String> row : rows) {
            for (String column : baselineColumns(row)) {
                String ratio = row.get("ratio_awa_over_" + column);
                if (!ratio.isEmpty()) {
                    assertThat(Double.parseDouble(ratio)).as(row.toString()).isFinite();
                }
                if (row.get("metric").equals("errors")) {
                    assertThat(row.get(column)).as(row.toString()).isIn("0", "");
                }
            }
            if (row.get("metric").equals("errors")) {
                assertThat(row.get("awa_reactive")).as(row.toString()).isIn("0", "");
            }
        }
        assertThat(directory.resolve("environment.csv")).isRegularFile();
    }

    /** The time series holds samples of awa-reactive and of the given baselines, with bytes measured. */
    static void timeSeriesOf(Path directory, String... baselines) {
        List<Map<String, String>> rows = Csv.read(directory.resolve("timeseries.csv"));
        assertThat(rows).anyMatch(r -> r.get("system").equals("awa-reactive"))
                .allSatisfy(r -> assertThat(Long.parseLong(r.get("total_bytes"))).isPositive());
        for (String baseline : baselines) {
            assertThat(rows).anyMatch(r -> r.get("system").equals(baseline));
        }
    }

    /** The time series holds samples of awa-reactive and the baseline, with bytes measured. */
    static void timeSeriesOfBoth(Path directory) {
        timeSeriesOf(directory, "baseline");
    }

    /** The plots exist and are readable PNG images. */
    static void plots(Path directory, String... names) throws Exception {
        for (String name : names) {
            Path plot = directory.resolve(name);
            assertThat(plot).isRegularFile();
            assertThat(ImageIO.read(Files.newInputStream(plot))).as(name).isNotNull();
        }
    }
}
