package io.awareactive.benchmarks;

import io.awareactive.core.Ring;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/** Summary rows shared by the workload scenarios. */
final class Figures {

    static final double MIB = 1024.0 * 1024.0;

    private Figures() {
    }

    /** A figure of a result, NaN when that system was not measured. */
    static double of(Run.@Nullable Result result, ToDoubleFunction<Run.Result> figure) {
        return result == null ? Double.NaN : figure.applyAsDouble(result);
    }

    /** awa-reactive's result among the results of {@link Contender#withBothBaselines}. */
    static Run.@Nullable Result awa(Map<Contender, Run.Result> results) {
        return results.get(Contender.AWA_BATCHED);
    }

    /**
     * The baselines' results among the results of {@link Contender#withBothBaselines}, in the order of
     * {@link Contender#bothBaselineColumns()} (null where not measured).
     */
    static List<Run.@Nullable Result> bothBaselines(Map<Contender, Run.Result> results) {
        return Arrays.asList(results.get(Contender.BASELINE_EACH_ACK), results.get(Contender.BASELINE_BATCHED_ACK));
    }

    /** Throughput, claim latency, bytes, dead tuples and errors of a pair of runs. */
    static void workload(Report report, String caseName, Run.@Nullable Result awa, Run.@Nullable Result baseline) {
        workload(report, caseName, awa, Collections.singletonList(baseline));
    }

    /**
     * Throughput, claim latency, bytes, dead tuples, work per job and errors of awa-reactive's run and the
     * baselines' (in the report's column order, null where not measured).
     */
    static void workload(Report report, String caseName, Run.@Nullable Result awa,
            List<Run.@Nullable Result> baselines) {
        row(report, caseName, "throughput", "jobs/s", awa, baselines, Run.Result::jobsPerSecond);
        row(report, caseName, "claim p50", "ms", awa, baselines, r -> r.claimMillis(50));
        row(report, caseName, "claim p99", "ms", awa, baselines, r -> r.claimMillis(99));
        row(report, caseName, "claim max", "ms", awa, baselines, Run.Result::claimMaxMillis);
        row(report, caseName, "claims that found nothing", "%", awa, baselines, Run.Result::emptyClaimPercent);
        row(report, caseName, "complete p50", "ms", awa, baselines, r -> Latency.millis(r.completeLatency(), 50));
        row(report, caseName, "complete p99", "ms", awa, baselines, r -> Latency.millis(r.completeLatency(), 99));
        row(report, caseName, "enqueue batch p50", "ms", awa, baselines, r -> Latency.millis(r.enqueueLatency(), 50));
        // Producers x enqueue batch / this mean: the most jobs/s the producer loops can feed the workers.
        row(report, caseName, "enqueue batch mean", "ms", awa, baselines, r -> Latency.meanMillis(r.enqueueLatency()));
        row(report, caseName, "enqueue batch p99", "ms", awa, baselines, r -> Latency.millis(r.enqueueLatency(), 99));
        row(report, caseName, "table+index bytes at end", "MiB", awa, baselines, r -> r.lastTotalBytes() / MIB);
        row(report, caseName, "table+index bytes max", "MiB", awa, baselines, r -> r.maxTotalBytes() / MIB);
        row(report, caseName, "dead tuples mean", "tuples", awa, baselines, Run.Result::meanDeadTuples);
        row(report, caseName, "dead tuples max", "tuples", awa, baselines, r -> r.maxDeadTuples());
        work(report, caseName, awa, baselines);
        row(report, caseName, "errors", "count", awa, baselines, r -> r.errors() + r.lookupErrors());
    }

    /**
     * WAL bytes, rows written, commits and CPU time (the JVM's, and the rest of the machine's: the server when it runs
     * here) per completed job over each run's measured window.
     */
    static void work(Report report, String caseName, Run.@Nullable Result awa, List<Run.@Nullable Result> baselines) {
        row(report, caseName, "WAL per job", "bytes", awa, baselines, r -> r.work().walBytesPerJob(r.completed()));
        row(report, caseName, "rows written per job", "rows", awa, baselines,
                r -> r.work().rowsPerJob(r.completed()));
        row(report, caseName, "commits per job", "commits", awa, baselines,
                r -> r.work().commitsPerJob(r.completed()));
        row(report, caseName, "JVM CPU per job", "us", awa, baselines, r -> r.cpu().jvmMicrosPerJob(r.completed()));
        row(report, caseName, "CPU outside the JVM per job", "us", awa, baselines,
                r -> r.cpu().outsideJvmMicrosPerJob(r.completed()));
    }

    /** awa-reactive's queue-ring prune outcomes in a run (no baseline counterpart). */
    static void prunes(Report report, String caseName, Run.@Nullable Result awa) {
        if (awa == null) {
            return;
        }
        PruneStats stats = awa.pruneStats();
        report.addAwaOnly(caseName, "queue prune attempts", "count", stats.attempts(Ring.QUEUE));
        report.addAwaOnly(caseName, "queue pruned", "count", stats.count(Ring.QUEUE, "pruned"));
        report.addAwaOnly(caseName, "queue blocked lock_timeout", "count", stats.blocked(Ring.QUEUE, "lock_timeout"));
        report.addAwaOnly(caseName, "queue blocked nowait", "count", stats.blocked(Ring.QUEUE, "nowait"));
        report.addAwaOnly(caseName, "queue skipped_active", "count", stats.count(Ring.QUEUE, "skipped_active"));
        report.addAwaOnly(caseName, "queue prune lock mean", "ms", stats.meanQueueLockMillis());
        report.addAwaOnly(caseName, "queue prune lock max", "ms", stats.maxQueueLockMillis());
    }

    static void row(Report report, String caseName, String metric, String unit, Run.@Nullable Result awa,
            Run.@Nullable Result baseline, ToDoubleFunction<Run.Result> figure) {
        row(report, caseName, metric, unit, awa, Collections.singletonList(baseline), figure);
    }

    /** A row of one figure of awa-reactive's run and of each baseline's (null where not measured). */
    static void row(Report report, String caseName, String metric, String unit, Run.@Nullable Result awa,
            List<Run.@Nullable Result> baselines, ToDoubleFunction<Run.Result> figure) {
        List<Double> values = new ArrayList<>();
        baselines.forEach(baseline -> values.add(of(baseline, figure)));
        report.add(caseName, metric, unit, of(awa, figure), values);
    }
}
