package io.awareactive.benchmarks;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 4, claim latency under prune: the closed loop with awa-reactive's maintenance off, then on at each prune
 * lock timeout, each without and with short contending readers; the baseline runs once per reader setting (it has no
 * prune; autovacuum is its maintenance) and is the denominator of every ratio of that reader setting.
 */
final class ClaimLatencyScenario implements Scenario {

    @Override
    public Report run(BenchContext context) {
        BenchOptions options = context.options();
        ScenarioName name = ScenarioName.CLAIM_LATENCY;
        Report report = new Report(name);
        context.describe(report);
        Duration duration = options.duration(name);
        Duration rotate = options.rotateInterval(name);
        ContendingReaders.Settings readerSettings = new ContendingReaders.Settings(options.readers(),
                options.readerHold(), options.readerPause());
        for (boolean readers : List.of(false, true)) {
            String readerLabel = readers ? "readers " + options.readers() + "x" + millis(options.readerHold())
                    + " hold" : "no readers";
            Run.Result baseline = null;
            if (options.measures(BaselineQueue.LABEL)) {
                Run.Spec spec = Run.Spec.of(readerLabel + ", baseline", duration, options.lockTimeout(), rotate);
                baseline = Run.execute(context, BaselineQueue.LABEL, Scenario.schema(name, BaselineQueue.LABEL),
                        readers ? spec.withReaders(readerSettings) : spec);
                report.addSamples(baseline.samples());
            }
            if (!options.measures(AwaQueue.LABEL)) {
                Figures.workload(report, readerLabel, null, baseline);
                continue;
            }
            String offCase = readerLabel + ", maintenance off";
            Run.Spec off = Run.Spec.of(offCase, duration, options.lockTimeout(), rotate).withoutMaintenance();
            addCase(context, report, offCase, readers ? off.withReaders(readerSettings) : off, baseline);
            for (Duration timeout : options.lockTimeouts()) {
                String onCase = readerLabel + ", maintenance on, T=" + millis(timeout);
                Run.Spec on = Run.Spec.of(onCase, duration, timeout, rotate);
                addCase(context, report, onCase, readers ? on.withReaders(readerSettings) : on, baseline);
            }
        }
        report.note("each ratio divides by the baseline run with the same reader setting; readers hold ACCESS SHARE"
                + " on the ready_segments parent (awa-reactive) or the jobs table (baseline) for --reader-hold, then"
                + " pause --reader-pause");
        return report;
    }

    private static void addCase(BenchContext context, Report report, String caseName, Run.Spec spec,
            Run.@Nullable Result baseline) {
        ScenarioName name = ScenarioName.CLAIM_LATENCY;
        Run.Result awa = Run.execute(context, AwaQueue.LABEL, Scenario.schema(name, AwaQueue.LABEL), spec);
        report.addSamples(awa.samples());
        Figures.row(report, caseName, "claim p50", "ms", awa, baseline, r -> r.claimMillis(50));
        Figures.row(report, caseName, "claim p99", "ms", awa, baseline, r -> r.claimMillis(99));
        Figures.row(report, caseName, "claim p99.9", "ms", awa, baseline, r -> r.claimMillis(99.9));
        Figures.row(report, caseName, "claim max", "ms", awa, baseline, Run.Result::claimMaxMillis);
        Figures.row(report, caseName, "throughput", "jobs/s", awa, baseline, Run.Result::jobsPerSecond);
        Figures.row(report, caseName, "reader transactions", "count", awa, baseline,
                r -> r.readerTransactions());
        Figures.row(report, caseName, "errors", "count", awa, baseline, r -> r.errors());
        if (spec.maintenance()) {
            Figures.prunes(report, caseName, awa);
        }
    }

    static String millis(Duration duration) {
        long ms = duration.toMillis();
        return ms % 1000 == 0 && ms > 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
