package io.awareactive.benchmarks;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scenario 1, sustained throughput: the closed loop (bounded backlog, well inside one ring window) with maintenance
 * on, for awa-reactive (batched completion) and both baselines (one ack per transaction, and batched) in turn, at
 * each worker count of {@code --workers} (a sweep when it lists several); jobs/s, claim latency, bytes, dead tuples
 * and work per job.
 */
final class ThroughputScenario implements Scenario {

    private static final Pattern WORKERS = Pattern.compile("closed loop, (\\d+) workers");

    /** The case of a point of the sweep: {@code closed loop, <N> workers}. */
    static String caseName(int workers) {
        return String.format(Locale.ROOT, "closed loop, %d workers", workers);
    }

    /** The worker count of a case written by {@link #caseName(int)}; -1 for any other case. */
    static int workersOf(String caseName) {
        Matcher matcher = WORKERS.matcher(caseName);
        return matcher.matches() ? Integer.parseInt(matcher.group(1)) : -1;
    }

    @Override
    public Report run(BenchContext context) {
        BenchOptions options = context.options();
        ScenarioName name = ScenarioName.THROUGHPUT;
        Report report = new Report(name, Contender.bothBaselineColumns());
        context.describe(report);
        for (int workers : options.workerCounts()) {
            String caseName = caseName(workers);
            Map<Contender, Run.Result> results = new LinkedHashMap<>();
            for (Contender contender : Contender.withBothBaselines(options)) {
                Run.Spec spec = Run.Spec.of(caseName, options.duration(name), options.lockTimeout(),
                        options.rotateInterval(name));
                Run.Result result = Run.execute(context, contender, workers,
                        Scenario.schema(name, contender.system()), spec);
                results.put(contender, result);
                report.addSamples(result.samples());
            }
            Figures.workload(report, caseName, Figures.awa(results), Figures.bothBaselines(results));
            Figures.prunes(report, caseName, Figures.awa(results));
        }
        report.note("awa-reactive completes each claimed batch with completeAll (one transaction);"
                + " baseline_each_ack deletes each job in its own transaction, baseline_batched_ack a claimed batch"
                + " with DELETE ... WHERE id = ANY($1); work per job = pg_stat_wal, pg_stat_user_tables (the system's"
                + " schema) and pg_stat_database deltas over the measured window / jobs completed");
        return report;
    }
}
