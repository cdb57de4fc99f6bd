package io.awareactive.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one scenario measured: summary rows (one figure for each system and their ratio), the time series, notes and
 * the environment. Written as {@code summary.csv}, {@code timeseries.csv} and {@code environment.csv}, printed as a
 * table.
 */
final class Report {

    /** The summary CSV's header. */
    static final String SUMMARY_HEADER = "scenario,case,metric,unit,awa_reactive,baseline,ratio_awa_over_baseline";

    /** The time-series CSV's header. */
    static final String TIMESERIES_HEADER = "system,case,phase,t_s,jobs_per_s,claim_p50_ms,claim_p99_ms,table_bytes,"
            + "index_bytes,total_bytes,dead_tuples,live_tuples";

    /**
     * One figure measured for both systems in the same run. NaN means "not measured" (a system-specific figure, or a
     * system left out with {@code --systems}).
     */
    record Row(String caseName, String metric, String unit, double awa, double baseline) {

        /** awa-reactive / baseline; NaN when either is missing or the baseline is 0. */
        double ratio() {
            if (Double.isNaN(awa) || Double.isNaN(baseline) || baseline == 0 || Double.isInfinite(awa)
                    || Double.isInfinite(baseline)) {
                return Double.NaN;
            }
            return awa / baseline;
        }
    }

    private final ScenarioName scenario;
    private final List<Row> rows = new ArrayList<>();
    private final List<Sampler.Sample> samples = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();

    Report(ScenarioName scenario) {
        this.scenario = scenario;
    }

    ScenarioName scenario() {
        return scenario;
    }

    void add(String caseName, String metric, String unit, double awa, double baseline) {
        rows.add(new Row(caseName, metric, unit, awa, baseline));
    }

    void addSamples(List<Sampler.Sample> more) {
        samples.addAll(more);
    }

    void note(String note) {
        notes.add(note);
    }

    void environment(String key, String value) {
        environment.put(key, value);
    }

    List<Row> rows() {
        return Collections.unmodifiableList(rows);
    }

    List<Sampler.Sample> samples() {
        return Collections.unmodifiableList(samples);
    }

    List<String> notes() {
        return Collections.unmodifiableList(notes);
    }

    /** The row of a case and metric. */
    Row row(String caseName, String metric) {
        for (Row row : rows) {
            if (row.caseName().equals(caseName) && row.metric().equals(metric)) {
                return row;
            }
        }
        throw new IllegalArgumentException("no row " + caseName + " / " + metric + " in " + scenario.cliName());
    }

    /** Writes summary.csv, timeseries.csv (when there are samples) and environment.csv into {@code directory}. */
    void write(Path directory) {
        try {
            Files.createDirectories(directory);
            List<String> summary = new ArrayList<>();
            summary.add(SUMMARY_HEADER);
            for (Row row : rows) {
                summary.add(String.join(",", scenario.cliName(), Csv.quote(row.caseName()), Csv.quote(row.metric()),
                        Csv.quote(row.unit()), Csv.number(row.awa()), Csv.number(row.baseline()),
                        Csv.number(row.ratio())));
            }
            Files.write(directory.resolve("summary.csv"), summary, StandardCharsets.UTF_8);
            if (!samples.isEmpty()) {
                List<String> lines = new ArrayList<>();
                lines.add(TIMESERIES_HEADER);
                for (Sampler.Sample s : samples) {
                    lines.add(String.join(",", Csv.quote(s.system()), Csv.quote(s.caseName()), Csv.quote(s.phase()),
                            Csv.number(s.seconds()), Csv.number(s.jobsPerSecond()), Csv.number(s.claimP50Millis()),
                            Csv.number(s.claimP99Millis()), Long.toString(s.tableBytes()),
                            Long.toString(s.indexBytes()), Long.toString(s.totalBytes()),
                            Long.toString(s.deadTuples()), Long.toString(s.liveTuples())));
                }
                Files.write(directory.resolve("timeseries.csv"), lines, StandardCharsets.UTF_8);
            }
            List<String> env = new ArrayList<>();
            env.add("key,value");
            environment.forEach((key, value) -> env.add(Csv.quote(key) + "," + Csv.quote(value)));
            for (String note : notes) {
                env.add("note," + Csv.quote(note));
            }
            Files.write(directory.resolve("environment.csv"), env, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the results of " + scenario.cliName() + " to " + directory,
                    e);
        }
    }

    /** Prints the summary table and notes. */
    void print(PrintStream out) {
        out.println();
        out.println("== " + scenario.cliName() + ": " + scenario.description());
        int caseWidth = "case".length();
        int metricWidth = "metric".length();
        for (Row row : rows) {
            caseWidth = Math.max(caseWidth, row.caseName().length());
            metricWidth = Math.max(metricWidth, row.metric().length() + row.unit().length() + 3);
        }
        String format = "%-" + caseWidth + "s  %-" + metricWidth + "s  %14s  %14s  %9s%n";
        out.printf(Locale.ROOT, format, "case", "metric", "awa-reactive", "baseline", "ratio");
        out.println("-".repeat(caseWidth + metricWidth + 14 + 14 + 9 + 8));
        for (Row row : rows) {
            out.printf(Locale.ROOT, format, row.caseName(), row.metric() + " (" + row.unit() + ")", human(row.awa()),
                    human(row.baseline()), Double.isNaN(row.ratio()) ? "n/a" : human(row.ratio()));
        }
        for (String note : notes) {
            out.println("note: " + note);
        }
    }

    /** A number for people: few significant digits, no exponent, "-" for NaN. */
    static String human(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        if (value == 0) {
            return "0";
        }
        double abs = Math.abs(value);
        if (abs >= 1e15) {
            return String.format(Locale.ROOT, "%.3e", value);
        }
        if (abs >= 100 || value == Math.rint(value) && abs >= 1) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (abs >= 0.1) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return String.format(Locale.ROOT, "%.3g", value);
    }
}
