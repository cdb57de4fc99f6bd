package io.awareactive.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws the PNG plots of a scenario directory from its CSV files (never from memory, so {@code ./bench plot} redraws
 * exactly what a run drew): throughput, claim p99, dead tuples and bytes over time for every system from
 * {@code timeseries.csv}; throughput minute by minute from {@code per_minute.csv}; throughput against workers from
 * throughput's {@code summary.csv}; reclaim time and WAL against rows from prune-cost's {@code summary.csv}.
 */
final class Plots {

    private static final int WIDTH = 960;
    private static final int HEIGHT = 540;
    private static final Color AWA = new Color(0x1f, 0x77, 0xb4);
    private static final Color BASELINE = new Color(0xd6, 0x27, 0x28);
    private static final Color[] OTHERS = {new Color(0x2c, 0xa0, 0x2c), new Color(0xff, 0x7f, 0x0e),
            new Color(0x94, 0x67, 0xbd), new Color(0x8c, 0x56, 0x4b), new Color(0xe3, 0x77, 0xc2),
            new Color(0x7f, 0x7f, 0x7f), new Color(0xbc, 0xbd, 0x22), new Color(0x17, 0xbe, 0xcf),
            new Color(0x00, 0x00, 0x00), new Color(0xaa, 0x00, 0x55)};
    private static final float[] DASHES = {6.0f, 4.0f};

    private Plots() {
    }

    /**
     * Draws every plot the scenario directory's CSV files allow.
     *
     * @param directory a scenario directory ({@code <out>/<scenario>})
     * @return the PNG files written
     */
    static List<Path> draw(Path directory) {
        System.setProperty("java.awt.headless", "true");
        List<Path> written = new ArrayList<>();
        Path timeseries = directory.resolve("timeseries.csv");
        if (Files.isRegularFile(timeseries)) {
            List<Map<String, String>> rows = Csv.read(timeseries);
            String title = directory.getFileName().toString();
            written.add(timeSeries(directory.resolve("throughput.png"), title + ": completed jobs per second",
                    "jobs/s", rows, "jobs_per_s", 1, false));
            written.add(timeSeries(directory.resolve("claim_p99.png"), title + ": claim latency p99 per interval",
                    "ms", rows, "claim_p99_ms", 1, false));
            written.add(timeSeries(directory.resolve("dead_tuples.png"), title + ": dead tuples (n_dead_tup, all"
                    + " tables of the system)", "dead tuples", rows, "dead_tuples", 1, false));
            written.add(timeSeries(directory.resolve("bytes.png"), title + ": table + index bytes of the system",
                    "MiB", rows, "total_bytes", 1024.0 * 1024.0, false));
        }
        Path perMinute = directory.resolve("per_minute.csv");
        if (Files.isRegularFile(perMinute)) {
            written.add(perMinute(directory.resolve("per_minute.png"), directory.getFileName() + ": completed jobs"
                    + " per second, minute by minute", Csv.read(perMinute)));
        }
        Path summary = directory.resolve("summary.csv");
        if (directory.getFileName().toString().equals(ScenarioName.THROUGHPUT.cliName())
                && Files.isRegularFile(summary)) {
            List<Map<String, String>> rows = Csv.read(summary);
            // Results written before the sweep existed have a case without a worker count: nothing to draw.
            if (rows.stream().anyMatch(row -> ThroughputScenario.workersOf(row.get("case")) > 0)) {
                written.add(workerSweep(directory.resolve("throughput_vs_workers.png"), rows));
            }
        }
        if (directory.getFileName().toString().equals(ScenarioName.PRUNE_COST.cliName()) && Files.isRegularFile(summary)) {
            List<Map<String, String>> rows = Csv.read(summary);
            written.add(pruneCost(directory.resolve("reclaim_time.png"), rows, "reclaim time", "ms",
                    "reclaim time (ms, log)"));
            written.add(pruneCost(directory.resolve("reclaim_wal.png"), rows, "reclaim WAL", "bytes",
                    "WAL bytes (log)"));
        }
        return written;
    }

    private static Path timeSeries(Path file, String title, String yLabel, List<Map<String, String>> rows,
            String column, double divisor, boolean log) {
        XYSeriesCollection dataset = bySystem(rows, row -> Csv.parseNumber(row.get("t_s")),
                row -> Csv.parseNumber(row.get(column)) / divisor);
        JFreeChart chart = ChartFactory.createXYLineChart(title, "time since measurement start (s)", yLabel, dataset,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = style(chart, dataset);
        if (log) {
            plot.setRangeAxis(new LogAxis(yLabel));
        }
        markPinned(plot, pinnedWindow(rows, row -> Csv.parseNumber(row.get("t_s"))));
        return save(file, chart);
    }

    /**
     * One series per system (per system and case when the rows hold several cases), awa-reactive's first and then
     * the others in the order they appear, so colours are stable across plots; rows without a value are left out.
     */
    private static XYSeriesCollection bySystem(List<Map<String, String>> rows, ToDoubleFunction<Map<String, String>> x,
            ToDoubleFunction<Map<String, String>> y) {
        Set<String> cases = new LinkedHashSet<>();
        rows.forEach(row -> cases.add(row.get("case")));
        Function<Map<String, String>, String> key = row -> cases.size() > 1
                ? row.get("system") + " / " + row.get("case") : row.get("system");
        Map<String, XYSeries> series = new LinkedHashMap<>();
        List<Map<String, String>> ordered = new ArrayList<>();
        rows.stream().filter(row -> row.get("system").equals(AwaQueue.LABEL)).forEach(ordered::add);
        rows.stream().filter(row -> !row.get("system").equals(AwaQueue.LABEL)).forEach(ordered::add);
        for (Map<String, String> row : ordered) {
            double value = y.applyAsDouble(row);
            if (!Double.isNaN(value)) {
                series.computeIfAbsent(key.apply(row), k -> new XYSeries(k, false, true))
                        .add(x.applyAsDouble(row), value);
            }
        }
        XYSeriesCollection dataset = new XYSeriesCollection();
        series.values().forEach(dataset::addSeries);
        return dataset;
    }

    /** Per-minute throughput of each system from {@code per_minute.csv}, the pinned minutes shaded. */
    private static Path perMinute(Path file, String title, List<Map<String, String>> rows) {
        ToDoubleFunction<Map<String, String>> minute = row -> Csv.parseNumber(row.get("minute"));
        XYSeriesCollection dataset = bySystem(rows, minute, row -> Csv.parseNumber(row.get("jobs_per_s")));
        JFreeChart chart = ChartFactory.createXYLineChart(title, "minute of the measurement (end)", "jobs/s",
                dataset, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = style(chart, dataset);
        ((XYLineAndShapeRenderer) plot.getRenderer()).setDefaultShapesVisible(true);
        markPinned(plot, pinnedWindow(rows, minute));
        return save(file, chart);
    }

    /**
     * Throughput against workers from the throughput scenario's {@code summary.csv}: one series per system column
     * ({@code awa_reactive} and each {@code baseline*}), one point per {@code closed loop, N workers} case.
     */
    private static Path workerSweep(Path file, List<Map<String, String>> rows) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (String column : rows.get(0).keySet()) {
            if (!column.equals("awa_reactive") && !column.startsWith("baseline")) {
                continue;
            }
            XYSeries series = new XYSeries(column.replace('_', '-'), true, true);
            for (Map<String, String> row : rows) {
                int workers = ThroughputScenario.workersOf(row.get("case"));
                double value = Csv.parseNumber(row.get(column));
                if (workers > 0 && row.get("metric").equals("throughput") && !Double.isNaN(value)) {
                    series.add(workers, value);
                }
            }
            dataset.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart("throughput: completed jobs per second against workers",
                "workers", "jobs/s", dataset, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = style(chart, dataset);
        ((XYLineAndShapeRenderer) plot.getRenderer()).setDefaultShapesVisible(true);
        return save(file, chart);
    }

    private static void markPinned(XYPlot plot, Optional<double[]> window) {
        window.ifPresent(range -> {
            IntervalMarker marker = new IntervalMarker(range[0], range[1]);
            marker.setPaint(new Color(0xff, 0xe0, 0x80));
            marker.setAlpha(0.35f);
            marker.setLabel("MVCC horizon pinned");
            marker.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            marker.setLabelTextAnchor(TextAnchor.TOP_LEFT);
            plot.addDomainMarker(marker, Layer.BACKGROUND);
        });
    }

    /**
     * The pinned window of the first system's rows, on the x of {@code x}: from the row before the first
     * {@code pinned} one (the pin began after it) to the last {@code pinned} one.
     */
    private static Optional<double[]> pinnedWindow(List<Map<String, String>> rows,
            ToDoubleFunction<Map<String, String>> x) {
        String system = null;
        double previous = Double.NaN;
        double start = Double.NaN;
        double end = Double.NaN;
        for (Map<String, String> row : rows) {
            if (system == null && "pinned".equals(row.get("phase"))) {
                system = row.get("system");
            }
        }
        if (system == null) {
            return Optional.empty();
        }
        for (Map<String, String> row : rows) {
            if (!row.get("system").equals(system)) {
                continue;
            }
            double t = x.applyAsDouble(row);
            if ("pinned".equals(row.get("phase"))) {
                if (Double.isNaN(start)) {
                    start = Double.isNaN(previous) ? t : previous;
                }
                end = t;
            }
            previous = t;
        }
        return Optional.of(new double[] {start, end});
    }

    private static Path pruneCost(Path file, List<Map<String, String>> rows, String metric, String unit,
            String yLabel) {
        XYSeries awa = new XYSeries("awa-reactive: prune (TRUNCATE) of the queue, claim and lease slots", true, true);
        XYSeries baseline = new XYSeries("baseline: DELETE + VACUUM", true, true);
        for (Map<String, String> row : rows) {
            if (!row.get("metric").equals(metric) || !row.get("unit").equals(unit)) {
                continue;
            }
            double jobs = Double.parseDouble(row.get("case").replaceAll("[^0-9]", ""));
            double a = Csv.parseNumber(row.get("awa_reactive"));
            double b = Csv.parseNumber(row.get("baseline"));
            if (!Double.isNaN(a) && a > 0) {
                awa.add(jobs, a);
            }
            if (!Double.isNaN(b) && b > 0) {
                baseline.add(jobs, b);
            }
        }
        XYSeriesCollection dataset = new XYSeriesCollection();
        dataset.addSeries(awa);
        dataset.addSeries(baseline);
        JFreeChart chart = ChartFactory.createXYLineChart("prune-cost: " + metric + " of one slot of finished jobs",
                "finished jobs reclaimed (log)", yLabel, dataset, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = style(chart, dataset);
        ((XYLineAndShapeRenderer) plot.getRenderer()).setDefaultShapesVisible(true);
        plot.setDomainAxis(logAxis("finished jobs reclaimed (log)", dataset.getDomainLowerBound(false),
                dataset.getDomainUpperBound(false)));
        plot.setRangeAxis(logAxis(yLabel, dataset.getRangeLowerBound(false), dataset.getRangeUpperBound(false)));
        return save(file, chart);
    }

    /** A base-10 log axis; a single value (one point, or one size measured) gets a decade either side. */
    private static LogAxis logAxis(String label, double lower, double upper) {
        LogAxis axis = new LogAxis(label);
        axis.setBase(10);
        // One tick per decade, labelled as a plain number rather than 10^x.
        axis.setTickUnit(new NumberTickUnit(1.0));
        axis.setNumberFormatOverride(new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        if (!Double.isNaN(lower) && lower > 0 && lower == upper) {
            axis.setAutoRange(false);
            axis.setRange(lower / 10, upper * 10);
        }
        return axis;
    }

    private static XYPlot style(JFreeChart chart, XYSeriesCollection dataset) {
        chart.setBackgroundPaint(Color.WHITE);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        int other = 0;
        // One series per system (no case in the key): awa-reactive and the first baseline keep their colours.
        boolean onePerSystem = true;
        for (int i = 0; i < dataset.getSeriesCount(); i++) {
            onePerSystem &= !dataset.getSeriesKey(i).toString().contains(" / ");
        }
        boolean baselineColoured = false;
        for (int i = 0; i < dataset.getSeriesCount(); i++) {
            String key = dataset.getSeriesKey(i).toString();
            boolean awa = key.startsWith("awa-reactive");
            boolean baseline = key.startsWith("baseline");
            Color color;
            if (onePerSystem && awa) {
                color = AWA;
            } else if (onePerSystem && baseline && !baselineColoured) {
                color = BASELINE;
                baselineColoured = true;
            } else {
                color = OTHERS[other++ % OTHERS.length];
            }
            renderer.setSeriesPaint(i, color);
            // With many series the baseline's are dashed, so they stay apart from awa-reactive's whatever the colour.
            renderer.setSeriesStroke(i, baseline && dataset.getSeriesCount() > 2
                    ? new BasicStroke(2.0f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10.0f, DASHES, 0.0f)
                    : new BasicStroke(baseline ? 2.0f : 1.6f));
        }
        plot.setRenderer(renderer);
        return plot;
    }

    private static Path save(Path file, JFreeChart chart) {
        try {
            ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
