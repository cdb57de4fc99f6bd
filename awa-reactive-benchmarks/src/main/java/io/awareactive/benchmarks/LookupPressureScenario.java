package io.awareactive.benchmarks;

import io.awareactive.core.Ring;
import java.time.Duration;

/**
 * Scenario 5, lookup pressure (design §6.2, the NOWAIT trade-off): the closed loop plus an open-loop load of
 * job-by-id lookups and count queries at each offered rate; for awa-reactive the share of queue prunes that end
 * {@code Blocked(NOWAIT)}, per lookup mode. The baseline runs the same load once per rate (no prune: its figures are
 * throughput and latency under the same reads).
 */
final class LookupPressureScenario implements Scenario {

    @Override
    public Report run(BenchContext context) {
        BenchOptions options = context.options();
        ScenarioName name = ScenarioName.LOOKUP_PRESSURE;
        Report report = new Report(name);
        context.describe(report);
        Duration duration = options.duration(name);
        Duration rotate = options.rotateInterval(name);
        for (int rate : options.rates()) {
            Run.Result baseline = null;
            if (options.measures(BaselineQueue.LABEL)) {
                LookupLoad.Settings load = new LookupLoad.Settings(rate, options.countShare(), "api",
                        options.lookupConcurrency());
                baseline = Run.execute(context, BaselineQueue.LABEL, Scenario.schema(name, BaselineQueue.LABEL),
                        Run.Spec.of("rate " + rate + "/s, baseline", duration, options.lockTimeout(), rotate)
                                .withLookups(load));
                report.addSamples(baseline.samples());
            }
            for (String mode : options.measures(AwaQueue.LABEL) ? options.lookupModes() : java.util.List.of("api")) {
                String caseName = "rate " + rate + "/s, lookups " + mode;
                Run.Result awa = null;
                if (options.measures(AwaQueue.LABEL)) {
                    LookupLoad.Settings load = new LookupLoad.Settings(rate, options.countShare(), mode,
                            options.lookupConcurrency());
                    awa = Run.execute(context, AwaQueue.LABEL, Scenario.schema(name, AwaQueue.LABEL),
                            Run.Spec.of(caseName, duration, options.lockTimeout(), rotate).withLookups(load));
                    report.addSamples(awa.samples());
                }
                report.add(caseName, "offered reads", "ops/s", rate, rate);
                Figures.row(report, caseName, "achieved lookups", "ops/s", awa, baseline,
                        r -> r.lookups() / r.seconds());
                Figures.row(report, caseName, "achieved counts", "ops/s", awa, baseline, r -> r.counts() / r.seconds());
                Figures.row(report, caseName, "reads dropped (all connections busy)", "ops/s", awa, baseline,
                        r -> r.lookupsDropped() / r.seconds());
                Figures.row(report, caseName, "throughput", "jobs/s", awa, baseline, Run.Result::jobsPerSecond);
                Figures.row(report, caseName, "claim p99", "ms", awa, baseline, r -> r.claimMillis(99));
                Figures.row(report, caseName, "errors", "count", awa, baseline, r -> r.errors() + r.lookupErrors());
                if (awa != null) {
                    PruneStats stats = awa.pruneStats();
                    long attempts = stats.attempts(Ring.QUEUE);
                    report.add(caseName, "queue prune attempts", "count", attempts, Double.NaN);
                    report.add(caseName, "queue pruned", "count", stats.count(Ring.QUEUE, "pruned"), Double.NaN);
                    report.add(caseName, "Blocked(NOWAIT) share of queue prunes", "%",
                            share(stats.blocked(Ring.QUEUE, "nowait"), attempts), Double.NaN);
                    report.add(caseName, "Blocked(LOCK_TIMEOUT) share of queue prunes", "%",
                            share(stats.blocked(Ring.QUEUE, "lock_timeout"), attempts), Double.NaN);
                }
            }
        }
        report.note("offered reads are split into job-by-id lookups and count queries (--count-share); 'api' looks a"
                + " job up through QueueStorage.status (named children first), 'parent' reads job_id from the"
                + " ready_entries and done_entries parents (every child locked for the statement); counts go through"
                + " QueueStorage.counts in both modes; the baseline reads its jobs table by primary key");
        return report;
    }

    static double share(long part, long whole) {
        return whole == 0 ? Double.NaN : 100.0 * part / whole;
    }
}
