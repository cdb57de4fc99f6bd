package io.awareactive.benchmarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 2, pinned MVCC horizon: scenario 1's loop, with a {@code REPEATABLE READ} transaction opened at one third
 * of the run and committed at two thirds, by a session that only read an unrelated table (so it pins the xmin horizon
 * of the whole database without locking any queue table). Phases {@code before}, {@code pinned}, {@code after}.
 * awa-reactive (batched completion) runs against both baselines (one ack per transaction, and batched);
 * {@code --duration 30m} is the long-pin variant (a 10-minute pin), whose per-minute throughput goes to
 * {@code per_minute.csv}.
 */
final class PinnedHorizonScenario implements Scenario {

    static final String CASE = "horizon pinned for the middle third";
    static final String PIN_SCHEMA = "bench_pin";

    @Override
    public Report run(BenchContext context) {
        BenchOptions options = context.options();
        ScenarioName name = ScenarioName.PINNED_HORIZON;
        Report report = new Report(name, Contender.bothBaselineColumns());
        context.describe(report);
        context.database().execute("DROP SCHEMA IF EXISTS " + PIN_SCHEMA + " CASCADE",
                "CREATE SCHEMA " + PIN_SCHEMA,
                "CREATE TABLE " + PIN_SCHEMA + ".unrelated (id int PRIMARY KEY, note text)",
                "INSERT INTO " + PIN_SCHEMA + ".unrelated VALUES (1, 'read by the horizon-pinning session')");
        Duration duration = options.duration(name);
        Duration third = duration.dividedBy(3);
        Map<Contender, Run.Result> results = new LinkedHashMap<>();
        try {
            for (Contender contender : Contender.withBothBaselines(options)) {
                try (HorizonPin pin = new HorizonPin(context.database())) {
                    Run.Spec spec = Run.Spec.of(CASE, duration, options.lockTimeout(), options.rotateInterval(name))
                            .withTimeline("before", List.of(
                                    new Run.Event(third, "pinned", pin::pin),
                                    new Run.Event(third.multipliedBy(2), "after", pin::release)));
                    Run.Result result = Run.execute(context, contender, options.workers(),
                            Scenario.schema(name, contender.system()), spec);
                    results.put(contender, result);
                    report.addSamples(result.samples());
                    report.addMinutes(Minutes.of(result.samples(), Minutes.MINUTE_SECONDS));
                }
            }
        } finally {
            context.database().execute("DROP SCHEMA IF EXISTS " + PIN_SCHEMA + " CASCADE");
        }
        Run.Result awa = Figures.awa(results);
        List<Run.@Nullable Result> baseline = Figures.bothBaselines(results);
        for (String phase : List.of("before", "pinned", "after")) {
            Figures.row(report, CASE, "throughput " + phase, "jobs/s", awa, baseline, r -> r.jobsPerSecond(phase));
            Figures.row(report, CASE, "claim p99 " + phase, "ms", awa, baseline,
                    r -> Latency.millis(r.phaseLatency().get(phase), 99));
        }
        Figures.row(report, CASE, "throughput last minute of the pin", "jobs/s", awa, baseline,
                r -> Minutes.lastMinuteOf(r.samples(), "pinned"));
        Figures.row(report, CASE, "throughput last minute of the pin / before", "ratio", awa, baseline,
                r -> Minutes.lastMinuteOf(r.samples(), "pinned") / r.jobsPerSecond("before"));
        Figures.row(report, CASE, "throughput after / before", "ratio", awa, baseline,
                r -> r.jobsPerSecond("after") / r.jobsPerSecond("before"));
        Figures.row(report, CASE, "dead tuples max before pin", "tuples", awa, baseline,
                r -> maxDead(r, "before"));
        Figures.row(report, CASE, "dead tuples at release", "tuples", awa, baseline, r -> lastDead(r, "pinned"));
        Figures.row(report, CASE, "dead tuples at end", "tuples", awa, baseline, r -> lastDead(r, "after"));
        Figures.row(report, CASE, "table+index bytes at pin", "MiB", awa, baseline,
                r -> lastBytes(r, "before") / Figures.MIB);
        Figures.row(report, CASE, "table+index bytes at release", "MiB", awa, baseline,
                r -> lastBytes(r, "pinned") / Figures.MIB);
        Figures.row(report, CASE, "table+index bytes at end", "MiB", awa, baseline,
                r -> lastBytes(r, "after") / Figures.MIB);
        Figures.row(report, CASE, "bytes growth while pinned", "MiB", awa, baseline,
                r -> (lastBytes(r, "pinned") - lastBytes(r, "before")) / Figures.MIB);
        Figures.row(report, CASE, "dead tuples back to pre-pin level after release", "s", awa, baseline,
                PinnedHorizonScenario::recoverySeconds);
        Figures.work(report, CASE, awa, baseline);
        Figures.row(report, CASE, "errors", "count", awa, baseline, r -> r.errors());
        Figures.prunes(report, CASE, awa);
        report.note("the pin is a REPEATABLE READ transaction that read " + PIN_SCHEMA + ".unrelated and stays open"
                + " from " + third.toSeconds() + " s to " + third.multipliedBy(2).toSeconds() + " s of each run;"
                + " 'back to pre-pin level' = first sample after release with dead tuples <= max(1.5 x the pre-pin"
                + " maximum, 1000); empty when that did not happen within the run; 'last minute of the pin' = the"
                + " samples of the last 60 s of the pinned phase (all of it when shorter); per_minute.csv has each"
                + " minute of each run; work per job is over the whole measured window");
        return report;
    }

    private static double maxDead(Run.Result result, String phase) {
        return result.samples().stream().filter(s -> s.phase().equals(phase))
                .mapToLong(Sampler.Sample::deadTuples).max().orElse(0);
    }

    private static double lastDead(Run.Result result, String phase) {
        Sampler.Sample last = last(result, phase);
        return last == null ? Double.NaN : last.deadTuples();
    }

    private static double lastBytes(Run.Result result, String phase) {
        Sampler.Sample last = last(result, phase);
        return last == null ? Double.NaN : last.totalBytes();
    }

    private static Sampler.@Nullable Sample last(Run.Result result, String phase) {
        Sampler.Sample last = null;
        for (Sampler.Sample sample : result.samples()) {
            if (sample.phase().equals(phase)) {
                last = sample;
            }
        }
        return last;
    }

    /** Seconds from the release until dead tuples are back to the pre-pin level; NaN when not within the run. */
    static double recoverySeconds(Run.Result result) {
        double threshold = Math.max(1.5 * maxDead(result, "before"), 1000);
        Sampler.Sample releasedAt = last(result, "pinned");
        if (releasedAt == null) {
            return Double.NaN;
        }
        for (Sampler.Sample sample : result.samples()) {
            if (sample.phase().equals("after") && sample.deadTuples() <= threshold) {
                return sample.seconds() - releasedAt.seconds();
            }
        }
        return Double.NaN;
    }

    /** The session pinning the horizon: a REPEATABLE READ transaction that read an unrelated table. */
    static final class HorizonPin implements AutoCloseable {

        private final BenchDatabase database;
        private @Nullable Connection connection;

        HorizonPin(BenchDatabase database) {
            this.database = database;
        }

        void pin() {
            try {
                Connection opened = database.jdbc();
                opened.setAutoCommit(false);
                opened.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                try (Statement statement = opened.createStatement()) {
                    // The first query takes the snapshot; from now on VACUUM keeps every row version it could see.
                    statement.executeQuery("SELECT count(*) FROM " + PIN_SCHEMA + ".unrelated").close();
                }
                connection = opened;
            } catch (SQLException e) {
                throw new IllegalStateException("cannot pin the MVCC horizon: " + e.getMessage(), e);
            }
        }

        void release() {
            if (connection == null) {
                return;
            }
            try {
                connection.commit();
                connection.close();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot release the MVCC horizon: " + e.getMessage(), e);
            } finally {
                connection = null;
            }
        }

        @Override
        public void close() {
            release();
        }
    }
}
