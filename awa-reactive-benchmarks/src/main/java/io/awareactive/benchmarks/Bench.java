package io.awareactive.benchmarks;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's command line: {@code ./bench <scenario> [flags]}, or
 * {@code java -cp awa-reactive-benchmarks/target/awa-reactive-benchmarks-<version>.jar:awa-reactive-benchmarks/target/lib/*
 * io.awareactive.benchmarks.Bench <scenario> [flags]}. {@code --help} lists scenarios and flags.
 */
public final class Bench {

    /**
     * System property naming the directory relative output paths are resolved against ({@code ./bench} sets it to
     * the caller's working directory, since it runs Java from the benchmark module).
     */
    static final String CALLER_DIRECTORY_PROPERTY = "awa.bench.callerDir";

    private Bench() {
    }

    /**
     * Runs a command line and exits: 0 when every scenario ran, 1 when one failed, 2 for a bad command line.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        if (options.help()) {
            out.print(BenchOptions.usage());
            return 0;
        }
        try {
            if (options.scenario() == ScenarioName.PLOT) {
                plot(options.in(base()), out);
                return 0;
            }
            try (BenchDatabase database = BenchDatabase.start(options)) {
                run(options, database, options.out(base()), out);
            }
            return 0;
        } catch (RuntimeException e) {
            err.println("error: " + e);
            e.printStackTrace(err);
            return 1;
        }
    }

    /**
     * Runs the scenario of {@code options} (every scenario for {@code all}) on a database, writes each scenario's
     * CSV files and plots under {@code out/<scenario>/}, and prints its table.
     *
     * @return the reports, in run order
     */
    static List<Report> run(BenchOptions options, BenchDatabase database, Path out, PrintStream console) {
        List<ScenarioName> names = new ArrayList<>();
        if (options.scenario() == ScenarioName.ALL) {
            for (ScenarioName name : ScenarioName.values()) {
                if (name.measures()) {
                    names.add(name);
                }
            }
        } else {
            names.add(options.scenario());
        }
        List<Report> reports = new ArrayList<>();
        for (ScenarioName name : names) {
            BenchContext context = new BenchContext(options.withScenario(name), database, out, console);
            context.log("%s on %s", name.cliName(), database.serverDescription());
            Report report = Scenario.of(name).run(context);
            Path directory = out.resolve(name.cliName());
            report.write(directory);
            List<Path> plots = Plots.draw(directory);
            report.print(console);
            console.println("written: " + directory.toAbsolutePath() + " (summary.csv"
                    + (report.samples().isEmpty() ? "" : ", timeseries.csv") + ", environment.csv"
                    + (plots.isEmpty() ? "" : ", " + plots.size() + " plots") + ")");
            reports.add(report);
        }
        return reports;
    }

    private static void plot(Path in, PrintStream out) {
        List<Path> directories = new ArrayList<>();
        if (Files.isRegularFile(in.resolve("summary.csv"))) {
            directories.add(in);
        } else {
            for (ScenarioName name : ScenarioName.values()) {
                if (Files.isRegularFile(in.resolve(name.cliName()).resolve("summary.csv"))) {
                    directories.add(in.resolve(name.cliName()));
                }
            }
        }
        if (directories.isEmpty()) {
            throw new IllegalArgumentException("no summary.csv under " + in.toAbsolutePath());
        }
        for (Path directory : directories) {
            for (Path plot : Plots.draw(directory)) {
                out.println("drawn: " + plot.toAbsolutePath());
            }
        }
    }

    private static Path base() {
        String caller = System.getProperty(CALLER_DIRECTORY_PROPERTY);
        return Path.of(caller == null || caller.isBlank() ? "" : caller).toAbsolutePath();
    }
}
