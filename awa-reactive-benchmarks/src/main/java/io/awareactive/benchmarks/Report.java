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
 * What one scenario measured: summary rows (one figure for awa-reactive and for each baseline, and the ratio of
 * awa-reactive's to each baseline's), the time series, per-minute throughput, notes and the environment. Written as
 * {@code summary.csv}, {@code timeseries.csv}, {@code per_minute.csv} and {@code environment.csv}, printed as a table.
 */
final class Report {

    /** The summary CSV's header with the one baseline column most scenarios have. */
    static final String SUMMARY_HEADER = summaryHeader(List.of("baseline"));

    /** The per-minute CSV's header. */
    static final String PER_MINUTE_HEADER = "system,case,minute,start_s,end_s,phase,jobs_per_s";

    /** The time-series CSV's header. */
    static final String TIMESERIES_HEADER = "system,case,phase,t_s,jobs_per_s,claim_p50_ms,claim_p99_ms,table_bytes,"
            + "index_bytes,total_bytes,dead_tuples,live_tuples";

    /**
     * One figure measured for awa-reactive and each baseline in the same run, baselines in the report's column order.
     * NaN means "not measured" (a system-specific figure, or a system left out with {@code --systems}).
     */
    record Row(String caseName, String metric, String unit, double awa, List<Double> baselines) {

        Row {
            baselines = List.copyOf(baselines);
        }

        /** A row of a report with one baseline column. */
        Row(String caseName, String metric, String unit, double awa, double baseline) {
            this(caseName, metric, unit, awa, List.of(baseline));
        }

        /** The first baseline's figure. */
        double baseline() {
            return baselines.get(0);
        }

        /** awa-reactive / the first baseline. */
        double ratio() {
            return ratio(0);
        }

        /** awa-reactive / baseline number {@code index}; NaN when either is missing or the baseline is 0. */
        double ratio(int index) {
            double baseline = baselines.get(index);
            if (Double.isNaN(awa) || Double.isNaN(baseline) || baseline == 0 || Double.isInfinite(awa)
                    || Double.isInfinite(baseline)) {
                return Double.NaN;
            }
            return awa / baseline;
        }
    }

    private final List<String> baselineColumns;
    private final List<Minutes.Minute> minutes = new ArrayList<>();

    private final ScenarioName scenario;
    private final List<Row> rows = new ArrayList<>();
    private final List<Sampler.Sample> samples = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();

    /** A report with one baseline column, {@code baseline}. */
    Report(ScenarioName scenario) {
        this(scenario, List.of("baseline"));
    }

    /**
     * A report with the given baseline columns.
     *
     * @param scenario the scenario
     * @param baselineColumns the summary columns of the baselines, each starting with {@code baseline}
     */
    Report(ScenarioName scenario, List<String> baselineColumns) {
        for (String column : baselineColumns) {
            if (!column.startsWith("baseline")) {
                throw new IllegalArgumentException("a baseline column starts with 'baseline': " + column);
            }
        }
        this.scenario = scenario;
        this.baselineColumns = List.copyOf(baselineColumns);
    }

    /**
     * The summary CSV's header: scenario, case, metric, unit, {@code awa_reactive}, each baseline column, then
     * {@code ratio_awa_over_<baseline column>} for each.
     */
    static String summaryHeader(List<String> baselineColumns) {
        List<String> header = new ArrayList<>(List.of("scenario", "case", "metric", "unit", "awa_reactive"));
        header.addAll(baselineColumns);
        baselineColumns.forEach(column -> header.add("ratio_awa_over_" + column));
        return String.join(",", header);
    }

    List<String> baselineColumns() {
        return baselineColumns;
    }

    ScenarioName scenario() {
        return scenario;
    }

    /** Adds a row of a report with one baseline column. */
    void add(String caseName, String metric, String unit, double awa, double baseline) {
        add(caseName, metric, unit, awa, List.of(baseline));
    }

    /** Adds a row: awa-reactive's figure and each baseline's, in column order. */
    void add(String caseName, String metric, String unit, double awa, List<Double> baselines) {
        if (baselines.size() != baselineColumns.size()) {
            throw new IllegalArgumentException(metric + ": " + baselines.size() + " baseline figures for columns "
                    + baselineColumns);
        }
        rows.add(new Row(caseName, metric, unit, awa, baselines));
    }

    /** Adds a row of a figure only awa-reactive has (every baseline column empty). */
    void addAwaOnly(String caseName, String metric, String unit, double awa) {
        add(caseName, metric, unit, awa, Collections.nCopies(baselineColumns.size(), Double.NaN));
    }

    /** Adds per-minute throughput (written as {@code per_minute.csv}). */
    void addMinutes(List<Minutes.Minute> more) {
        minutes.addAll(more);
    }

    List<Minutes.Minute> minutes() {
        return Collections.unmodifiableList(minutes);
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

    /**
     * Writes summary.csv, timeseries.csv (when there are samples), per_minute.csv (when there are minutes) and
     * environment.csv into {@code directory}.
     */
    void write(Path directory) {
        try {
            Files.createDirectories(directory);
            List<String> summary = new ArrayList<>();
            summary.add(summaryHeader(baselineColumns));
            for (Row row : rows) {
                List<String> fields = new ArrayList<>(List.of(scenario.cliName(), Csv.quote(row.caseName()),
                        Csv.quote(row.metric()), Csv.quote(row.unit()), Csv.number(row.awa())));
                row.baselines().forEach(value -> fields.add(Csv.number(value)));
                for (int i = 0; i < baselineColumns.size(); i++) {
                    fields.add(Csv.number(row.ratio(i)));
                }
                summary.add(String.join(",", fields));
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
            if (!minutes.isEmpty()) {
                List<String> lines = new ArrayList<>();
                lines.add(PER_MINUTE_HEADER);
                for (Minutes.Minute m : minutes) {
                    lines.add(String.join(",", Csv.quote(m.system()), Csv.quote(m.caseName()),
                            Integer.toString(m.index() + 1), Csv.number(m.startSeconds()), Csv.number(m.endSeconds()),
                            Csv.quote(m.phase()), Csv.number(m.jobsPerSecond())));
                }
                Files.write(directory.resolve("per_minute.csv"), lines, StandardCharsets.UTF_8);
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
        List<String> header = new ArrayList<>(List.of("case", "metric", "awa-reactive"));
        baselineColumns.forEach(column -> header.add(column.replace('_', '-')));
        // One ratio column per baseline: "ratio" alone, else "ratio " + what tells the baselines apart.
        baselineColumns.forEach(column -> header.add(baselineColumns.size() == 1 ? "ratio"
                : "ratio " + column.replaceFirst("^baseline_?", "").replace('_', '-')));
        StringBuilder format = new StringBuilder("%-" + caseWidth + "s  %-" + metricWidth + "s");
        int width = caseWidth + metricWidth;
        for (String column : header.subList(2, header.size())) {
            int columnWidth = Math.max(column.startsWith("ratio") ? 9 : 14, column.length());
            format.append("  %").append(columnWidth).append('s');
            width += columnWidth + 2;
        }
        format.append("%n");
        out.printf(Locale.ROOT, format.toString(), header.toArray());
        out.println("-".repeat(width + 2));
        for (Row row : rows) {
            List<Object> fields = new ArrayList<>(List.of(row.caseName(), row.metric() + " (" + row.unit() + ")",
                    human(row.awa())));
            row.baselines().forEach(value -> fields.add(human(value)));
            for (int i = 0; i < baselineColumns.size(); i++) {
                fields.add(Double.isNaN(row.ratio(i)) ? "n/a" : human(row.ratio(i)));
            }
            out.printf(Locale.ROOT, format.toString(), fields.toArray());
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
