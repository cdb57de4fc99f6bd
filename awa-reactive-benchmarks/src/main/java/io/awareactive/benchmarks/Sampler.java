package io.awareactive.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples one run at a fixed interval on its own thread: jobs completed per second and claim latency of the interval
 * (from the workload), and the system schema's table bytes, index bytes, dead and live tuples (over JDBC).
 *
 * <p>Sizes are read without taking relation locks when the benchmark user is a superuser: {@code pg_relation_size}
 * would take {@code ACCESS SHARE} on every ring child once per interval and so become a contending reader of the
 * prunes it measures. Instead the files are stat'ed ({@code pg_stat_file(pg_relation_filepath(oid))}, every 1 GB
 * segment). Without superuser rights it falls back to {@code pg_table_size}/{@code pg_indexes_size}.
 */
final class Sampler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sampler.class);

    /** One sample; NaN where nothing was measured. */
    record Sample(String system, String caseName, String phase, double seconds, double jobsPerSecond,
            double claimP50Millis, double claimP99Millis, long tableBytes, long indexBytes, long deadTuples,
            long liveTuples) {

        long totalBytes() {
            return tableBytes + indexBytes;
        }
    }

    /** Table bytes, index bytes, dead and live tuples of one schema. */
    record SchemaStats(long tableBytes, long indexBytes, long deadTuples, long liveTuples) {
    }

    private static final String STATS_LOCK_FREE = """
            WITH rels AS (
                SELECT c.relkind, pg_relation_filepath(c.oid) AS path
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = ? AND c.relkind IN ('r', 'i')
                UNION ALL
                SELECT 'r', pg_relation_filepath(t.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_class t ON t.oid = c.reltoastrelid
                WHERE n.nspname = ? AND c.relkind = 'r'
            ), first AS (
                SELECT relkind, path, (pg_stat_file(path, true)).size AS size FROM rels WHERE path IS NOT NULL
            ), files AS (
                SELECT relkind, size FROM first
                UNION ALL
                -- Only a full first segment (1 GiB) has more; stat'ing every relation's would cost more than it reads.
                SELECT f.relkind, (pg_stat_file(f.path || '.' || seg, true)).size
                FROM first f CROSS JOIN generate_series(1, 31) AS seg WHERE f.size >= 1073741824
            )
            SELECT coalesce(sum(size) FILTER (WHERE relkind = 'r'), 0)::bigint,
                   coalesce(sum(size) FILTER (WHERE relkind = 'i'), 0)::bigint,
                   (SELECT coalesce(sum(n_dead_tup), 0)::bigint FROM pg_stat_user_tables WHERE schemaname = ?),
                   (SELECT coalesce(sum(n_live_tup), 0)::bigint FROM pg_stat_user_tables WHERE schemaname = ?)
            FROM files""";

    private static final String STATS_LOCKING = """
            SELECT coalesce(sum(pg_table_size(c.oid)), 0)::bigint, coalesce(sum(pg_indexes_size(c.oid)), 0)::bigint,
                   (SELECT coalesce(sum(n_dead_tup), 0)::bigint FROM pg_stat_user_tables WHERE schemaname = ?),
                   (SELECT coalesce(sum(n_live_tup), 0)::bigint FROM pg_stat_user_tables WHERE schemaname = ?)
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = ? AND c.relkind = 'r'""";

    private final BenchDatabase database;
    private final String system;
    private final String schema;
    private final String caseName;
    private final @Nullable Workload<?> workload;
    private final Duration interval;
    private final Supplier<String> phase;
    private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Histogram> phaseLatency = new LinkedHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private long startNanos;
    private long lastCompleted;
    private long lastNanos;

    Sampler(BenchDatabase database, QueueSystem<?> system, String label, String caseName,
            @Nullable Workload<?> workload, Duration interval, Supplier<String> phase) {
        this.database = database;
        this.system = label;
        this.schema = system.schema();
        this.caseName = caseName;
        this.workload = workload;
        this.interval = interval;
        this.phase = phase;
        this.thread = new Thread(this::loop, "bench-sampler-" + label);
        this.thread.setDaemon(true);
    }

    /** Starts sampling now: the first sample comes one interval later. */
    Sampler start() {
        startNanos = System.nanoTime();
        lastNanos = startNanos;
        if (workload != null) {
            lastCompleted = workload.completed();
            workload.resetLatencies();
        }
        thread.start();
        return this;
    }

    private void loop() {
        try (Connection connection = database.jdbc()) {
            boolean lockFree = database.isSuperuser();
            long next = startNanos + interval.toNanos();
            while (running) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                if (!running) {
                    break;
                }
                sample(connection, lockFree);
                next += interval.toNanos();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("sampler of {} stopped: {}", system, e.toString());
        }
    }

    private synchronized void sample(Connection connection, boolean lockFree) throws SQLException {
        long now = System.nanoTime();
        double jobsPerSecond = Double.NaN;
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        String currentPhase = phase.get();
        if (workload != null) {
            long completed = workload.completed();
            jobsPerSecond = (completed - lastCompleted) / ((now - lastNanos) / 1e9);
            lastCompleted = completed;
            Histogram latency = workload.claimLatency().interval();
            p50 = Latency.millis(latency, 50);
            p99 = Latency.millis(latency, 99);
            phaseLatency.computeIfAbsent(currentPhase, p -> new Histogram(latency.getHighestTrackableValue(), 3))
                    .add(latency);
        }
        lastNanos = now;
        SchemaStats stats = schemaStats(connection, schema, lockFree);
        samples.add(new Sample(system, caseName, currentPhase, (now - startNanos) / 1e9, jobsPerSecond, p50, p99,
                stats.tableBytes(), stats.indexBytes(), stats.deadTuples(), stats.liveTuples()));
    }

    /** Reads a schema's sizes and tuple counts (see the class comment on locks). */
    static SchemaStats schemaStats(Connection connection, String schema, boolean lockFree) throws SQLException {
        String sql = lockFree ? STATS_LOCK_FREE : STATS_LOCKING;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            long placeholders = sql.chars().filter(ch -> ch == '?').count();
            for (int i = 1; i <= placeholders; i++) {
                statement.setString(i, schema);
            }
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return new SchemaStats(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
            }
        }
    }

    /** Stops sampling, taking one last sample, and returns every sample. */
    List<Sample> stop() {
        running = false;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            try (Connection connection = database.jdbc()) {
                if (System.nanoTime() - lastNanos > interval.toNanos() / 2) {
                    sample(connection, database.isSuperuser());
                }
            } catch (SQLException e) {
                LOG.warn("last sample of {} failed: {}", system, e.toString());
            }
            return List.copyOf(samples);
        }
    }

    /** The claim latency of every sample taken in a phase (empty histogram when none). */
    synchronized Histogram phaseLatency(String phaseName) {
        Histogram histogram = phaseLatency.get(phaseName);
        return histogram == null ? new Histogram(3) : histogram.copy();
    }

    @Override
    public void close() {
        if (running) {
            stop();
        }
    }
}
