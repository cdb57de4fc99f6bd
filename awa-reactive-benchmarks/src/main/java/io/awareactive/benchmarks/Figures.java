package io.awareactive.benchmarks;

import io.awareactive.core.Ring;
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

    static Run.@Nullable Result awa(Map<String, Run.Result> results) {
        return results.get(AwaQueue.LABEL);
    }

    static Run.@Nullable Result baseline(Map<String, Run.Result> results) {
        return results.get(BaselineQueue.LABEL);
    }

    /** Throughput, claim latency, bytes, dead tuples and errors of a pair of runs. */
    static void workload(Report report, String caseName, Run.@Nullable Result awa, Run.@Nullable Result baseline) {
        row(report, caseName, "throughput", "jobs/s", awa, baseline, Run.Result::jobsPerSecond);
        row(report, caseName, "claim p50", "ms", awa, baseline, r -> r.claimMillis(50));
        row(report, caseName, "claim p99", "ms", awa, baseline, r -> r.claimMillis(99));
        row(report, caseName, "claim max", "ms", awa, baseline, Run.Result::claimMaxMillis);
        row(report, caseName, "claims that found nothing", "%", awa, baseline, Run.Result::emptyClaimPercent);
        row(report, caseName, "complete p50", "ms", awa, baseline, r -> Latency.millis(r.completeLatency(), 50));
        row(report, caseName, "complete p99", "ms", awa, baseline, r -> Latency.millis(r.completeLatency(), 99));
        row(report, caseName, "enqueue batch p50", "ms", awa, baseline, r -> Latency.millis(r.enqueueLatency(), 50));
        row(report, caseName, "enqueue batch p99", "ms", awa, baseline, r -> Latency.millis(r.enqueueLatency(), 99));
        row(report, caseName, "table+index bytes at end", "MiB", awa, baseline, r -> r.lastTotalBytes() / MIB);
        row(report, caseName, "table+index bytes max", "MiB", awa, baseline, r -> r.maxTotalBytes() / MIB);
        row(report, caseName, "dead tuples mean", "tuples", awa, baseline, Run.Result::meanDeadTuples);
        row(report, caseName, "dead tuples max", "tuples", awa, baseline, r -> r.maxDeadTuples());
        row(report, caseName, "errors", "count", awa, baseline, r -> r.errors() + r.lookupErrors());
    }

    /** awa-reactive's queue-ring prune outcomes in a run (no baseline counterpart). */
    static void prunes(Report report, String caseName, Run.@Nullable Result awa) {
        if (awa == null) {
            return;
        }
        PruneStats stats = awa.pruneStats();
        report.add(caseName, "queue prune attempts", "count", stats.attempts(Ring.QUEUE), Double.NaN);
        report.add(caseName, "queue pruned", "count", stats.count(Ring.QUEUE, "pruned"), Double.NaN);
        report.add(caseName, "queue blocked lock_timeout", "count", stats.blocked(Ring.QUEUE, "lock_timeout"),
                Double.NaN);
        report.add(caseName, "queue blocked nowait", "count", stats.blocked(Ring.QUEUE, "nowait"), Double.NaN);
        report.add(caseName, "queue skipped_active", "count", stats.count(Ring.QUEUE, "skipped_active"), Double.NaN);
        report.add(caseName, "queue prune lock mean", "ms", stats.meanQueueLockMillis(), Double.NaN);
        report.add(caseName, "queue prune lock max", "ms", stats.maxQueueLockMillis(), Double.NaN);
    }

    static void row(Report report, String caseName, String metric, String unit, Run.@Nullable Result awa,
            Run.@Nullable Result baseline, ToDoubleFunction<Run.Result> figure) {
        report.add(caseName, metric, unit, of(awa, figure), of(baseline, figure));
    }
}
