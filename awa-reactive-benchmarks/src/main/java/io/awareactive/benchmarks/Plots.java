package io.awareactive.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
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
 * exactly what a run drew): throughput, claim p99, dead tuples and bytes over time for both systems from
 * {@code timeseries.csv}; reclaim time and WAL against rows from prune-cost's {@code summary.csv}.
 */
final class Plots {

    private static final int WIDTH = 960;
    private static final int HEIGHT = 540;
    private static final Color AWA = new Color(0x1f, 0x77, 0xb4);
    private static final Color BASELINE = new Color(0xd6, 0x27, 0x28);
    private static final Color[] OTHERS = {new Color(0x2c, 0xa0, 0x2c), new Color(0xff, 0x7f, 0x0e),
            new Color(0x94, 0x67, 0xbd), new Color(0x8c, 0x56, 0x4b), new Color(0xe3, 0x77, 0xc2),
            new Color(0x7f, 0x7f, 0x7f), new Color(0xbc, 0xbd, 0x22), new Color(0x17, 0xbe, 0xcf)};

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
        Path summary = directory.resolve("summary.csv");
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
        Set<String> cases = new LinkedHashSet<>();
        for (Map<String, String> row : rows) {
            cases.add(row.get("case"));
        }
        boolean manyCases = cases.size() > 1;
        Function<Map<String, String>, String> key = row -> manyCases
                ? row.get("system") + " / " + row.get("case") : row.get("system");
        Map<String, XYSeries> series = new LinkedHashMap<>();
        // awa-reactive first, then the baseline, so colours are stable across plots.
        for (String system : List.of("awa-reactive", "baseline")) {
            for (Map<String, String> row : rows) {
                if (!row.get("system").equals(system)) {
                    continue;
                }
                double value = Csv.parseNumber(row.get(column));
                if (Double.isNaN(value)) {
                    continue;
                }
                series.computeIfAbsent(key.apply(row), k -> new XYSeries(k, false, true))
                        .add(Csv.parseNumber(row.get("t_s")), value / divisor);
            }
        }
        XYSeriesCollection dataset = new XYSeriesCollection();
        series.values().forEach(dataset::addSeries);
        JFreeChart chart = ChartFactory.createXYLineChart(title, "time since measurement start (s)", yLabel, dataset,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = style(chart, dataset);
        if (log) {
            plot.setRangeAxis(new LogAxis(yLabel));
        }
        pinnedWindow(rows).ifPresent(window -> {
            IntervalMarker marker = new IntervalMarker(window[0], window[1]);
            marker.setPaint(new Color(0xff, 0xe0, 0x80));
            marker.setAlpha(0.35f);
            marker.setLabel("MVCC horizon pinned");
            marker.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            marker.setLabelTextAnchor(TextAnchor.TOP_LEFT);
            plot.addDomainMarker(marker, Layer.BACKGROUND);
        });
        return save(file, chart);
    }

    /** The time window of samples in phase {@code pinned} (the samples just after it included: they show it). */
    private static Optional<double[]> pinnedWindow(List<Map<String, String>> rows) {
        double start = Double.NaN;
        double end = Double.NaN;
        String system = null;
        for (Map<String, String> row : rows) {
            if (!"pinned".equals(row.get("phase"))) {
                continue;
            }
            if (system == null) {
                system = row.get("system");
            }
            if (!row.get("system").equals(system)) {
                continue;
            }
            double t = Csv.parseNumber(row.get("t_s"));
            start = Double.isNaN(start) ? t : Math.min(start, t);
            end = Double.isNaN(end) ? t : Math.max(end, t);
        }
        return Double.isNaN(start) ? Optional.empty() : Optional.of(new double[] {start, end});
    }

    private static Path pruneCost(Path file, List<Map<String, String>> rows, String metric, String unit,
            String yLabel) {
        XYSeries awa = new XYSeries("awa-reactive: prune (TRUNCATE) of the queue and claim slots", true, true);
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
        for (int i = 0; i < dataset.getSeriesCount(); i++) {
            String key = dataset.getSeriesKey(i).toString();
            boolean awa = key.startsWith("awa-reactive");
            boolean baseline = key.startsWith("baseline");
            Color color = dataset.getSeriesCount() <= 2 && (awa || baseline) ? (awa ? AWA : BASELINE)
                    : OTHERS[other++ % OTHERS.length];
            renderer.setSeriesPaint(i, color);
            renderer.setSeriesStroke(i, new BasicStroke(baseline ? 2.0f : 1.6f));
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
