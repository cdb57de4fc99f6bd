package io.awareactive.benchmarks;

import io.awareactive.core.Ring;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 6, maintenance overhead: for each system an idle phase (maintenance running, no jobs) and a load phase
 * (the closed loop, measured after a warm-up of at least one lap of the longest ring: {@link #loadWarmup}). Measured
 * per phase:
 * <ul>
 *   <li>database time of awa-reactive's engine: {@code pg_stat_statements} execution time of its role (when the
 *       extension is loaded and the benchmark may create the role), and an estimate from sampling
 *       {@code pg_stat_activity} every 20 ms for its sessions being {@code active};</li>
 *   <li>autovacuum time spent on the system's tables, estimated by the same sampling (both systems: it is the
 *       baseline's whole maintenance, and awa-reactive's lease ring and control tables are vacuumed too), its two
 *       sleeps apart ({@link ActivitySampler#sleeping}): they hold no resources, and a vacuum that cannot take its
 *       truncate lock under load retries for up to 5 s;</li>
 *   <li>JVM CPU time of the engine's own threads (its scheduler and its own Netty event loop), via
 *       {@link ThreadMXBean}, and of the whole process via the operating-system bean;</li>
 *   <li>ring ticks: prune events of the three rings (one per ring tick that reached the prune step);</li>
 *   <li>WAL of the whole cluster (the insert position's advance), per second and per ring tick.</li>
 * </ul>
 */
final class MaintenanceOverheadScenario implements Scenario {

    private static final Logger LOG = LoggerFactory.getLogger(MaintenanceOverheadScenario.class);
    private static final Duration ACTIVITY_INTERVAL = Duration.ofMillis(20);

    /** Counters at one instant. */
    record Snapshot(long nanos, double statementMillis, double planMillis, long statementCalls, long engineCpuNanos,
            long processCpuNanos, long ringTicks, long engineActiveSamples, long autovacuumSamples,
            long autovacuumSleepSamples, long activitySamples, long completed, long walBytes, long statementWalBytes) {
    }

    /** The difference of two snapshots, per second and per ring tick. */
    record Phase(double seconds, double statementMillis, double planMillis, long statementCalls,
            double engineCpuMillis, double processCpuMillis, long ringTicks, double engineSampledMillis,
            double autovacuumSampledMillis, double autovacuumSleepMillis, long completed, long walBytes,
            long statementWalBytes) {

        static Phase between(Snapshot from, Snapshot to) {
            double seconds = (to.nanos() - from.nanos()) / 1e9;
            long samples = to.activitySamples() - from.activitySamples();
            return new Phase(seconds, to.statementMillis() - from.statementMillis(),
                    to.planMillis() - from.planMillis(), to.statementCalls() - from.statementCalls(),
                    (to.engineCpuNanos() - from.engineCpuNanos()) / 1e6,
                    (to.processCpuNanos() - from.processCpuNanos()) / 1e6, to.ringTicks() - from.ringTicks(),
                    sampledMillis(to.engineActiveSamples() - from.engineActiveSamples(), samples, seconds),
                    sampledMillis(to.autovacuumSamples() - from.autovacuumSamples(), samples, seconds),
                    sampledMillis(to.autovacuumSleepSamples() - from.autovacuumSleepSamples(), samples, seconds),
                    to.completed() - from.completed(), to.walBytes() - from.walBytes(),
                    to.statementWalBytes() - from.statementWalBytes());
        }

        /** A sampled estimate: sessions found per sample on average, times the elapsed time. */
        private static double sampledMillis(long found, long samples, double seconds) {
            return samples == 0 ? Double.NaN : (double) found / samples * seconds * 1000;
        }

        double perSecond(double value) {
            return value / seconds;
        }

        double perTick(double value) {
            return ringTicks == 0 ? Double.NaN : value / ringTicks;
        }
    }

    @Override
    public Report run(BenchContext context) {
        BenchOptions options = context.options();
        ScenarioName name = ScenarioName.MAINTENANCE_OVERHEAD;
        Report report = new Report(name);
        context.describe(report);
        Map<String, Map<String, Phase>> phases = new LinkedHashMap<>();
        for (String system : options.systems()) {
            String schema = Scenario.schema(name, system);
            Run.warmUpJvm(context, Contender.of(system, options.batchedAcks()), options.workers(), schema,
                    Run.Spec.of("load", options.duration(name), options.lockTimeout(), options.rotateInterval(name)));
            try (QueueSystem<?> queue = context.open(system, schema, 0)) {
                phases.put(system, measure(context, queue, report));
            } finally {
                context.database().dropSchema(schema);
            }
        }
        boolean statements = context.database().pgStatStatements() && context.database().hasMaintenanceRole();
        for (String phase : List.of("idle", "load")) {
            Phase awa = phases.getOrDefault(AwaQueue.LABEL, Map.of()).get(phase);
            Phase baseline = phases.getOrDefault(BaselineQueue.LABEL, Map.of()).get(phase);
            String caseName = phase;
            if (statements) {
                add(report, caseName, "engine DB time (pg_stat_statements)", "ms/s", awa, null,
                        p -> p.perSecond(p.statementMillis()));
                add(report, caseName, "engine planning time (pg_stat_statements, part of its DB time)", "ms/s", awa,
                        null, p -> p.perSecond(p.planMillis()));
                add(report, caseName, "engine statements", "calls/s", awa, null,
                        p -> p.perSecond(p.statementCalls()));
                add(report, caseName, "engine statements per ring tick (pg_stat_statements)", "calls", awa, null,
                        p -> p.perTick(p.statementCalls()));
                add(report, caseName, "engine WAL per ring tick (pg_stat_statements)", "bytes", awa, null,
                        p -> p.perTick(p.statementWalBytes()));
            }
            add(report, caseName, "engine DB time (sampled pg_stat_activity)", "ms/s", awa, null,
                    p -> p.perSecond(p.engineSampledMillis()));
            add(report, caseName, "autovacuum time on the system's tables (sampled, sleeps left out)", "ms/s", awa,
                    baseline, p -> p.perSecond(p.autovacuumSampledMillis()));
            add(report, caseName,
                    "autovacuum sleeps on the system's tables (sampled: cost delay, truncate lock retries)", "ms/s",
                    awa, baseline, p -> p.perSecond(p.autovacuumSleepMillis()));
            add(report, caseName, "maintenance DB time, engine + autovacuum", "ms/s", awa, baseline,
                    p -> p.perSecond((statements ? p.statementMillis() : p.engineSampledMillis())
                            + p.autovacuumSampledMillis()));
            add(report, caseName, "engine JVM CPU (its threads)", "ms/s", awa, baseline,
                    p -> p.perSecond(p.engineCpuMillis()));
            add(report, caseName, "ring ticks", "ticks/s", awa, null, p -> p.perSecond(p.ringTicks()));
            add(report, caseName, "engine DB time per ring tick", "ms", awa, null,
                    p -> p.perTick(statements ? p.statementMillis() : p.engineSampledMillis()));
            add(report, caseName, "engine JVM CPU per ring tick", "ms", awa, null,
                    p -> p.perTick(p.engineCpuMillis()));
            add(report, caseName, "WAL, whole cluster (insert position)", "bytes/s", awa, baseline,
                    p -> p.perSecond(p.walBytes()));
            add(report, caseName, "WAL per ring tick, whole cluster (insert position)", "bytes", awa, null,
                    p -> p.perTick(p.walBytes()));
            add(report, caseName, "process CPU (whole benchmark JVM)", "ms/s", awa, baseline,
                    p -> p.perSecond(p.processCpuMillis()));
            add(report, caseName, "throughput", "jobs/s", awa, baseline, p -> p.perSecond(p.completed()));
        }
        report.note("engine DB time counts every statement of the maintenance role (rotate, prune, rollup, promote,"
                + " rescue, leader check) " + (statements ? "from pg_stat_statements (execution and planning time:"
                + " the maintenance role tracks planning; the commits' own time, their WAL flush and the release of"
                + " truncated files, is in no statement and only in the sampled figure)"
                : "estimated by sampling pg_stat_activity every " + ACTIVITY_INTERVAL.toMillis()
                + " ms (pg_stat_statements or the maintenance role unavailable)")
                + "; per ring tick divides by the prune events of the three rings (an idle tick publishes"
                + " already_pruned), so engine statements per ring tick also count the leader check, promotion, rescue"
                + " and rollup statements of that time (an upper bound for the ring tick alone; the idle phase's"
                + " notes list them by text); engine WAL is pg_stat_statements.wal_bytes of the maintenance role;"
                + " cluster WAL is the advance of pg_current_wal_insert_lsn() over the phase (the engine, autovacuum"
                + " and its analyses of the new tables, checkpoints; the other system is not running); the baseline"
                + " has no JVM-side maintenance, so its engine CPU is 0 and that ratio is empty; autovacuum time"
                + " leaves out an autovacuum worker's two sleeps (wait events VacuumDelay, the cost-based delay, and"
                + " VacuumTruncate, the 50 ms retries for the lock that truncates a table's empty end, for up to 5 s),"
                + " which have their own row");
        return report;
    }

    private static void add(Report report, String caseName, String metric, String unit, Phase awa, Phase baseline,
            ToDoubleFunction<Phase> figure) {
        report.add(caseName, metric, unit, awa == null ? Double.NaN : figure.applyAsDouble(awa),
                baseline == null ? Double.NaN : figure.applyAsDouble(baseline));
    }

    private static <J> Map<String, Phase> measure(BenchContext context, QueueSystem<J> system, Report report) {
        BenchOptions options = context.options();
        ScenarioName name = ScenarioName.MAINTENANCE_OVERHEAD;
        Map<String, Phase> result = new LinkedHashMap<>();
        context.install(system, Duration.ofMinutes(2));
        system.startMaintenance(options.rotateInterval(name), options.lockTimeout()).block(Duration.ofMinutes(1));
        Workload<J> workload = new Workload<>(system, Workload.Settings.of(options));
        String[] phase = {"idle"};
        Duration loadWarmup = loadWarmup(options.warmup(), options.rotateInterval(name));
        try (ActivitySampler activity = new ActivitySampler(context.database(), system.schema())) {
            context.log("maintenance-overhead / %s: %ss warm-up, idle %ss, %ss warm-up, load %ss", system.label(),
                    options.warmup().toSeconds(), options.idle(name).toSeconds(), loadWarmup.toSeconds(),
                    options.duration(name).toSeconds());
            BenchContext.pause(options.warmup());
            Sampler sampler = new Sampler(context.database(), system, system.label(), "idle then load", workload,
                    options.sampleInterval(), () -> phase[0]).start();
            Map<String, StatementUse> idleUseStart = byStatement(context.database());
            Snapshot idleStart = snapshot(context, system, activity, workload);
            BenchContext.pause(options.idle(name));
            Snapshot idleEnd = snapshot(context, system, activity, workload);
            result.put("idle", Phase.between(idleStart, idleEnd));
            noteIdleStatements(report, system.label(), idleUseStart, byStatement(context.database()),
                    result.get("idle"));
            phase[0] = "warm-up";
            workload.start();
            BenchContext.pause(loadWarmup);
            phase[0] = "load";
            Map<String, StatementUse> loadUseStart = byStatement(context.database());
            Map<String, Long> loadActivityStart = activity.engineByActivity();
            Snapshot loadStart = snapshot(context, system, activity, workload);
            BenchContext.pause(options.duration(name));
            Snapshot loadEnd = snapshot(context, system, activity, workload);
            result.put("load", Phase.between(loadStart, loadEnd));
            noteLoadStatements(report, system.label(), loadUseStart, byStatement(context.database()),
                    result.get("load"));
            noteLoadActivity(report, system.label(), loadActivityStart, activity.engineByActivity(),
                    result.get("load"));
            report.addSamples(sampler.stop());
            context.log("  %s: idle engine CPU %.2f ms/s, load engine CPU %.2f ms/s", system.label(),
                    result.get("idle").perSecond(result.get("idle").engineCpuMillis()),
                    result.get("load").perSecond(result.get("load").engineCpuMillis()));
        } finally {
            workload.stop();
            system.stopMaintenance().block(Duration.ofMinutes(1));
        }
        return result;
    }

    /**
     * The load phase's warm-up: at least one lap of awa-reactive's longest ring ({@code slots × rotate interval}, 16 s
     * at the defaults), so that its window holds prunes of slots written under load at their steady rate rather than
     * of the slots the idle phase left empty; the same for both systems.
     */
    static Duration loadWarmup(Duration warmup, Duration rotateInterval) {
        int longestRing = Arrays.stream(Ring.values()).mapToInt(Ring::defaultSlotCount).max().orElseThrow();
        Duration lap = rotateInterval.multipliedBy(longestRing);
        return warmup.compareTo(lap) >= 0 ? warmup : lap;
    }

    private static Snapshot snapshot(BenchContext context, QueueSystem<?> system, ActivitySampler activity,
            Workload<?> workload) {
        double statementMillis = 0;
        double planMillis = 0;
        long calls = 0;
        long statementWal = 0;
        BenchDatabase database = context.database();
        if (database.pgStatStatements() && database.hasMaintenanceRole()) {
            try (Connection connection = database.jdbc(); PreparedStatement statement = connection.prepareStatement(
                    "SELECT coalesce(sum(s.total_exec_time + s.total_plan_time), 0), coalesce(sum(s.calls), 0)::bigint,"
                            + " coalesce(sum(s.wal_bytes), 0)::bigint, coalesce(sum(s.total_plan_time), 0)"
                            + " FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid"
                            + " WHERE r.rolname = ? AND s.dbid = (SELECT oid FROM pg_database"
                            + " WHERE datname = current_database())")) {
                statement.setString(1, BenchDatabase.MAINTENANCE_ROLE);
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    statementMillis = rs.getDouble(1);
                    planMillis = rs.getDouble(4);
                    calls = rs.getLong(2);
                    statementWal = rs.getLong(3);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read pg_stat_statements: " + e.getMessage(), e);
            }
        }
        PruneStats prunes = system.pruneStats();
        long ticks = prunes.events(Ring.QUEUE) + prunes.events(Ring.LEASE) + prunes.events(Ring.CLAIM);
        return new Snapshot(System.nanoTime(), statementMillis, planMillis, calls,
                threadCpuNanos(AwaQueue.THREAD_PREFIX),
                CpuTime.processCpuNanos(), ticks, activity.engineActive(), activity.autovacuum(),
                activity.autovacuumSleeping(), activity.samples(),
                workload.completed(), walBytes(database), statementWal);
    }

    /**
     * The cluster's WAL insert position in bytes. Exact at the instant it is read, where {@code pg_stat_wal} lags: a
     * backend publishes its WAL statistics at most once a second, an idle one only after about ten seconds.
     */
    private static long walBytes(BenchDatabase database) {
        try (Connection connection = database.jdbc()) {
            return PruneCostScenario.walInsertBytes(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the WAL position: " + e.getMessage(), e);
        }
    }

    /** Calls and database time (execution and planning) of one statement text of the maintenance role. */
    record StatementUse(long calls, double millis) {

        StatementUse minus(@Nullable StatementUse earlier) {
            return earlier == null ? this : new StatementUse(calls - earlier.calls, millis - earlier.millis);
        }
    }

    /**
     * Calls and database time (execution and planning) per statement text of the maintenance role so far
     * (pg_stat_statements), or empty when it is unavailable.
     */
    private static Map<String, StatementUse> byStatement(BenchDatabase database) {
        Map<String, StatementUse> use = new LinkedHashMap<>();
        if (!database.pgStatStatements() || !database.hasMaintenanceRole()) {
            return use;
        }
        try (Connection connection = database.jdbc(); PreparedStatement statement = connection.prepareStatement(
                "SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 90), sum(s.calls)::bigint,"
                        + " sum(s.total_exec_time + s.total_plan_time)"
                        + " FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid"
                        + " WHERE r.rolname = ? AND s.dbid = (SELECT oid FROM pg_database"
                        + " WHERE datname = current_database()) GROUP BY 1")) {
            statement.setString(1, BenchDatabase.MAINTENANCE_ROLE);
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    use.put(rs.getString(1), new StatementUse(rs.getLong(2), rs.getDouble(3)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read pg_stat_statements: " + e.getMessage(), e);
        }
        return use;
    }

    /** What each statement text of the maintenance role did between two readings, those that ran, as listed. */
    private static List<Map.Entry<String, StatementUse>> between(Map<String, StatementUse> from,
            Map<String, StatementUse> to) {
        return to.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue().minus(from.get(e.getKey()))))
                .filter(e -> e.getValue().calls() > 0)
                .toList();
    }

    /**
     * A note with the idle phase's statements of the maintenance role by text, calls per ring tick, most first: which
     * belong to the ring ticks (rotate, prune, gauges) and which to the other tasks (promotion, rescue, rollup,
     * leader).
     */
    private static void noteIdleStatements(Report report, String system, Map<String, StatementUse> from,
            Map<String, StatementUse> to, Phase idle) {
        if (to.isEmpty() || idle.ringTicks() == 0) {
            return;
        }
        StringBuilder note = new StringBuilder(system + ", idle phase, statements of the maintenance role per ring"
                + " tick (" + idle.ringTicks() + " ticks):");
        between(from, to).stream()
                .sorted(Comparator.comparingLong((Map.Entry<String, StatementUse> e) -> e.getValue().calls())
                        .reversed())
                .limit(12)
                .forEach(e -> note.append(String.format(Locale.ROOT, " %.2f x [%s];",
                        (double) e.getValue().calls() / idle.ringTicks(), e.getKey())));
        report.note(note.toString());
    }

    /**
     * A note with the load phase's statements of the maintenance role by text, database time per second of the phase,
     * most first: where the engine's database time under load goes.
     */
    private static void noteLoadStatements(Report report, String system, Map<String, StatementUse> from,
            Map<String, StatementUse> to, Phase load) {
        if (to.isEmpty() || load.seconds() <= 0) {
            return;
        }
        StringBuilder note = new StringBuilder(system + ", load phase, statements of the maintenance role by database"
                + " time (ms/s, calls/s):");
        between(from, to).stream()
                .sorted(Comparator.comparingDouble((Map.Entry<String, StatementUse> e) -> e.getValue().millis())
                        .reversed())
                .limit(12)
                .forEach(e -> note.append(String.format(Locale.ROOT, " %.2f ms/s, %.2f/s [%s];",
                        e.getValue().millis() / load.seconds(), e.getValue().calls() / load.seconds(), e.getKey())));
        report.note(note.toString());
    }

    /**
     * A note with the load phase's sampled activity of the engine's sessions by statement and wait event, in ms/s, most
     * first. Unlike the statements' own times it holds the commits' work: their WAL flush and the release of the files
     * a truncate replaced.
     */
    private static void noteLoadActivity(Report report, String system, Map<String, Long> from, Map<String, Long> to,
            Phase load) {
        List<Map.Entry<String, Long>> during = to.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - from.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(12)
                .toList();
        if (during.isEmpty() || load.seconds() <= 0) {
            return;
        }
        StringBuilder note = new StringBuilder(system + ", load phase, sampled activity of the maintenance role by"
                + " statement (schema and slot numbers left out) and wait event (ms/s):");
        during.forEach(e -> note.append(String.format(Locale.ROOT, " %.2f [%s];",
                e.getValue() * ACTIVITY_INTERVAL.toMillis() / load.seconds(), e.getKey())));
        report.note(note.toString());
    }

    /** CPU time of the live threads whose name starts with a prefix. */
    static long threadCpuNanos(String prefix) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported()) {
            return 0;
        }
        if (!threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                long cpu = threads.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    total += cpu;
                }
            }
        }
        return total;
    }

    /**
     * Samples {@code pg_stat_activity} every 20 ms: is a maintenance-engine session active, and with which statement
     * (its text's start, the schema and slot numbers left out) and wait event; is an autovacuum worker on one of
     * the system's tables, and is it working or sleeping.
     */
    static final class ActivitySampler implements AutoCloseable {

        private final AtomicLong samples = new AtomicLong();
        private final AtomicLong autovacuum = new AtomicLong();
        private final AtomicLong autovacuumSleeping = new AtomicLong();
        private final Map<String, Long> engineByActivity = new ConcurrentHashMap<>();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;

        ActivitySampler(BenchDatabase database, String schema) {
            Thread thread = new Thread(() -> loop(database, schema), "bench-activity-sampler");
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }

        private void loop(BenchDatabase database, String schema) {
            try (Connection connection = database.jdbc(); PreparedStatement statement = connection.prepareStatement(
                    "SELECT array_agg(coalesce(wait_event_type || '/' || wait_event, 'no wait event'))"
                            + " FILTER (WHERE backend_type = 'autovacuum worker' AND position(? in query) > 0),"
                            + " array_agg(regexp_replace(left(regexp_replace(replace(query, ?, ''), '\\s+', ' ', 'g'),"
                            + " 50), '_[0-9]+', '_k', 'g') || ' | ' || coalesce(wait_event_type || '/' || wait_event,"
                            + " 'no wait event')) FILTER (WHERE application_name = ? AND state = 'active')"
                            + " FROM pg_stat_activity WHERE datname = current_database()")) {
                statement.setString(1, schema + ".");
                statement.setString(2, "\"" + schema + "\".");
                statement.setString(3, BenchDatabase.MAINTENANCE_APPLICATION_NAME);
                long next = System.nanoTime();
                while (running) {
                    try (ResultSet rs = statement.executeQuery()) {
                        rs.next();
                        Array vacuums = rs.getArray(1);
                        if (vacuums != null) {
                            for (Object waitEvent : (Object[]) vacuums.getArray()) {
                                (sleeping((String) waitEvent) ? autovacuumSleeping : autovacuum).incrementAndGet();
                            }
                        }
                        Array active = rs.getArray(2);
                        if (active != null) {
                            for (Object activity : (Object[]) active.getArray()) {
                                engineByActivity.merge((String) activity, 1L, Long::sum);
                            }
                        }
                        samples.incrementAndGet();
                    }
                    next += ACTIVITY_INTERVAL.toNanos();
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (SQLException e) {
                LOG.warn("activity sampler stopped: {}", e.toString());
            }
        }

        long samples() {
            return samples.get();
        }

        /** Samples so far that found an engine session active, one per active session. */
        long engineActive() {
            return engineByActivity.values().stream().mapToLong(Long::longValue).sum();
        }

        /**
         * Whether an autovacuum worker with this wait event sleeps: the cost-based delay ({@code VacuumDelay}) or the
         * retries, every 50 ms for up to 5 s, for the lock that truncates its table's empty end
         * ({@code VacuumTruncate}), which a table in use rarely grants.
         *
         * @param waitEvent {@code wait_event_type/wait_event}
         * @return true for the two sleeps
         */
        static boolean sleeping(String waitEvent) {
            return waitEvent.equals("Timeout/VacuumDelay") || waitEvent.equals("Timeout/VacuumTruncate");
        }

        /** Samples so far that found an autovacuum worker on one of the system's tables working, one per worker. */
        long autovacuum() {
            return autovacuum.get();
        }

        /** Samples so far that found one {@link #sleeping}. */
        long autovacuumSleeping() {
            return autovacuumSleeping.get();
        }

        /** Samples so far that found an engine session active, by statement and wait event. */
        Map<String, Long> engineByActivity() {
            return Map.copyOf(engineByActivity);
        }

        @Override
        public void close() {
            running = false;
            for (Thread thread : threads) {
                try {
                    thread.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
