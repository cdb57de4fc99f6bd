package io.awareactive.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * One measured run of the closed-loop workload against one system: fresh schema, maintenance (optional), workload,
 * optional readers or lookup load, warm-up, sampled measurement with a timeline of phases, teardown.
 */
final class Run {

    /** At {@code offset} after the measurement starts, run {@code action} and enter {@code phase}. */
    record Event(Duration offset, String phase, Runnable action) {
    }

    /** What to run. */
    record Spec(String caseName, Duration duration, boolean maintenance, Duration lockTimeout,
            Duration rotateInterval, ContendingReaders.@Nullable Settings readers,
            LookupLoad.@Nullable Settings lookups, String initialPhase, List<Event> timeline) {

        Spec {
            timeline = List.copyOf(timeline);
        }

        static Spec of(String caseName, Duration duration, Duration lockTimeout, Duration rotateInterval) {
            return new Spec(caseName, duration, true, lockTimeout, rotateInterval, null, null, "run", List.of());
        }

        Spec withoutMaintenance() {
            return new Spec(caseName, duration, false, lockTimeout, rotateInterval, readers, lookups, initialPhase,
                    timeline);
        }

        Spec withReaders(ContendingReaders.Settings settings) {
            return new Spec(caseName, duration, maintenance, lockTimeout, rotateInterval, settings, lookups,
                    initialPhase, timeline);
        }

        Spec withLookups(LookupLoad.Settings settings) {
            return new Spec(caseName, duration, maintenance, lockTimeout, rotateInterval, readers, settings,
                    initialPhase, timeline);
        }

        Spec withTimeline(String firstPhase, List<Event> events) {
            return new Spec(caseName, duration, maintenance, lockTimeout, rotateInterval, readers, lookups,
                    firstPhase, events);
        }
    }

    /**
     * What a run measured (after the warm-up); {@code work} is the server's work and {@code cpu} the machine's CPU time
     * over the measured window.
     */
    record Result(String system, String caseName, double seconds, List<Sampler.Sample> samples, Histogram claimLatency,
            Histogram completeLatency, Histogram enqueueLatency, Map<String, Histogram> phaseLatency, long completed, long enqueued, long claims, long emptyClaims,
            long errors, PruneStats pruneStats, long readerTransactions, long lookups, long counts,
            long lookupsDropped, long lookupErrors, DatabaseWork work, CpuTime cpu) {

        double jobsPerSecond() {
            return completed / seconds;
        }

        double claimMillis(double percentile) {
            return Latency.millis(claimLatency, percentile);
        }

        /** The share of claims that found nothing (then the worker pauses 5 ms), in %. */
        double emptyClaimPercent() {
            return claims == 0 ? Double.NaN : 100.0 * emptyClaims / claims;
        }

        double claimMaxMillis() {
            return Latency.maxMillis(claimLatency);
        }

        /** Mean jobs/s over the samples of a phase. */
        double jobsPerSecond(String phase) {
            return samples.stream().filter(s -> s.phase().equals(phase)).mapToDouble(Sampler.Sample::jobsPerSecond)
                    .filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
        }

        long maxDeadTuples() {
            return samples.stream().mapToLong(Sampler.Sample::deadTuples).max().orElse(0);
        }

        double meanDeadTuples() {
            return samples.stream().mapToLong(Sampler.Sample::deadTuples).average().orElse(Double.NaN);
        }

        long maxTotalBytes() {
            return samples.stream().mapToLong(Sampler.Sample::totalBytes).max().orElse(0);
        }

        long lastTotalBytes() {
            return samples.isEmpty() ? 0 : samples.get(samples.size() - 1).totalBytes();
        }
    }

    private Run() {
    }

    /** Everything a latency recorder holds: the intervals handed out so far plus what is still pending. */
    private static Histogram cumulative(Latency latency) {
        latency.interval();
        return latency.total();
    }

    /**
     * Runs one spec against one system, in schema {@code schema}, and drops the schema afterwards.
     *
     * @param context the benchmark context
     * @param label the system
     * @param schema a fresh schema name
     * @param spec what to run
     * @return the measurements
     */
    static Result execute(BenchContext context, String label, String schema, Spec spec) {
        BenchOptions options = context.options();
        return execute(context, Contender.of(label, options.batchedAcks()), options.workers(), schema, spec);
    }

    /**
     * Runs one spec against one contender with {@code workers} worker loops, in schema {@code schema}, and drops the
     * schema afterwards.
     *
     * @param context the benchmark context
     * @param contender the system and how it acknowledges
     * @param workers the worker loops (and connections) of the run
     * @param schema a fresh schema name
     * @param spec what to run
     * @return the measurements, under the contender's name
     */
    static Result execute(BenchContext context, Contender contender, int workers, String schema, Spec spec) {
        BenchOptions options = context.options();
        warmUpJvm(context, contender, workers, schema, spec);
        int extraConnections = spec.lookups() == null ? 0 : spec.lookups().concurrency();
        context.log("%s / %s: %s for %ss (+%ss warm-up)", context.options().scenario() == null ? ""
                : context.options().scenario().cliName(), contender.name(), spec.caseName(),
                spec.duration().toSeconds(), options.warmup().toSeconds());
        try (QueueSystem<?> system = context.open(contender.system(), schema, workers, extraConnections)) {
            return execute(context, system, contender, Workload.Settings.of(options, workers, contender.batchedAcks()),
                    spec);
        } finally {
            context.database().dropSchema(schema);
        }
    }

    /**
     * Before a contender's first measured run in this JVM, runs its closed loop unmeasured for {@code --jvm-warmup}
     * in {@code schema} (dropped afterwards), with the run's maintenance: the JIT compiles the contender's code then,
     * not during a measurement. Without it, the first contender measured paid the compilation of its own and of the
     * shared driver, pool and Reactor code inside its measured window, on the cores the server needs.
     *
     * @param context the benchmark context
     * @param contender the system and how it acknowledges
     * @param workers the worker loops of the run that follows
     * @param schema the schema of the run that follows
     * @param spec the run that follows (its maintenance settings)
     */
    static void warmUpJvm(BenchContext context, Contender contender, int workers, String schema, Spec spec) {
        Duration length = context.options().jvmWarmup();
        if (length.isZero() || !context.firstRunOf(contender)) {
            return;
        }
        context.log("JVM warm-up / %s: %d workers for %ss, not measured", contender.name(), workers,
                length.toSeconds());
        try (QueueSystem<?> system = context.open(contender.system(), schema, workers, 0)) {
            runUnmeasured(context, system,
                    Workload.Settings.of(context.options(), workers, contender.batchedAcks()), spec, length);
        } finally {
            context.database().dropSchema(schema);
        }
    }

    /** Installs the system's schema, settles the catalogs and, when the run has maintenance, starts it. */
    private static void install(BenchContext context, QueueSystem<?> system, Spec spec) {
        context.install(system, Duration.ofMinutes(2));
        if (spec.maintenance()) {
            system.startMaintenance(spec.rotateInterval(), spec.lockTimeout()).block(Duration.ofMinutes(1));
        }
    }

    private static <J> void runUnmeasured(BenchContext context, QueueSystem<J> system, Workload.Settings settings,
            Spec spec, Duration length) {
        install(context, system, spec);
        Workload<J> workload = new Workload<>(system, settings);
        try {
            workload.start();
            BenchContext.pause(length);
        } finally {
            workload.stop();
            system.stopMaintenance().block(Duration.ofMinutes(1));
        }
    }

    private static <J> Result execute(BenchContext context, QueueSystem<J> system, Contender contender,
            Workload.Settings settings, Spec spec) {
        BenchOptions options = context.options();
        install(context, system, spec);
        Workload<J> workload = new Workload<>(system, settings);
        ContendingReaders readers = null;
        LookupLoad lookups = null;
        String[] phase = {spec.initialPhase()};
        try {
            workload.start();
            if (spec.readers() != null) {
                readers = new ContendingReaders(context.database(), system.contendingReaderSql(), spec.readers())
                        .start();
            }
            if (spec.lookups() != null) {
                lookups = new LookupLoad(system, workload, spec.lookups());
            }
            BenchContext.pause(options.warmup());
            system.pruneStats().reset();
            long readerStart = readers == null ? 0 : readers.transactions();
            if (lookups != null) {
                lookups.reset();
            }
            long completedStart = workload.completed();
            long enqueuedStart = workload.enqueued();
            long claimsStart = workload.claims();
            long emptyStart = workload.emptyClaims();
            long errorsStart = workload.errors();
            DatabaseWork workStart = context.database().work(system.schema());
            CpuTime cpuStart = CpuTime.read();
            Sampler sampler = new Sampler(context.database(), system, contender.name(), spec.caseName(), workload,
                    options.sampleInterval(), () -> phase[0]).start();
            long started = System.nanoTime();
            for (Event event : spec.timeline()) {
                BenchContext.pause(event.offset().minusNanos(System.nanoTime() - started));
                event.action().run();
                phase[0] = event.phase();
            }
            BenchContext.pause(spec.duration().minusNanos(System.nanoTime() - started));
            List<Sampler.Sample> samples = sampler.stop();
            double seconds = (System.nanoTime() - started) / 1e9;
            long completed = workload.completed() - completedStart;
            CpuTime cpu = CpuTime.read().minus(cpuStart);
            DatabaseWork work = context.database().work(system.schema()).minus(workStart);
            Map<String, Histogram> phaseLatency = new LinkedHashMap<>();
            List<String> phases = new ArrayList<>();
            phases.add(spec.initialPhase());
            spec.timeline().forEach(event -> phases.add(event.phase()));
            for (String name : phases) {
                phaseLatency.put(name, sampler.phaseLatency(name));
            }
            Result result = new Result(contender.name(), spec.caseName(), seconds, samples,
                    workload.claimLatency().total(), cumulative(workload.completeLatency()),
                    cumulative(workload.enqueueLatency()), phaseLatency, completed,
                    workload.enqueued() - enqueuedStart, workload.claims() - claimsStart,
                    workload.emptyClaims() - emptyStart, workload.errors() - errorsStart, system.pruneStats(),
                    readers == null ? 0 : readers.transactions() - readerStart,
                    lookups == null ? 0 : lookups.lookups(), lookups == null ? 0 : lookups.counts(),
                    lookups == null ? 0 : lookups.dropped(), lookups == null ? 0 : lookups.errors(), work, cpu);
            context.log("  %s: %.0f jobs/s, claim p99 %.2f ms, %.0f WAL bytes, %.2f rows, %.2f commits, CPU %.0f us"
                    + " in the JVM and %.0f us outside per job, %d errors", contender.name(), result.jobsPerSecond(),
                    result.claimMillis(99), work.walBytesPerJob(completed), work.rowsPerJob(completed),
                    work.commitsPerJob(completed), cpu.jvmMicrosPerJob(completed),
                    cpu.outsideJvmMicrosPerJob(completed), result.errors());
            return result;
        } finally {
            if (lookups != null) {
                lookups.close();
            }
            if (readers != null) {
                readers.close();
            }
            workload.stop();
            system.stopMaintenance().block(Duration.ofMinutes(1));
        }
    }
}
