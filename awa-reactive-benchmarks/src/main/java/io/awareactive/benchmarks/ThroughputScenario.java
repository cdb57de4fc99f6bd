package io.awareactive.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scenario 1, sustained throughput: the closed loop (bounded backlog, well inside one ring window) with maintenance
 * on, for each system in turn; jobs/s, claim latency, bytes and dead tuples over time.
 */
final class ThroughputScenario implements Scenario {

    static final String CASE = "closed loop";

    @Override
    public Report run(BenchContext context) {
        BenchOptions options = context.options();
        ScenarioName name = ScenarioName.THROUGHPUT;
        Report report = new Report(name);
        context.describe(report);
        Map<String, Run.Result> results = new LinkedHashMap<>();
        for (String system : options.systems()) {
            Run.Spec spec = Run.Spec.of(CASE, options.duration(name), options.lockTimeout(),
                    options.rotateInterval(name));
            Run.Result result = Run.execute(context, system, Scenario.schema(name, system), spec);
            results.put(system, result);
            report.addSamples(result.samples());
        }
        Figures.workload(report, CASE, Figures.awa(results), Figures.baseline(results));
        Figures.prunes(report, CASE, Figures.awa(results));
        return report;
    }
}
