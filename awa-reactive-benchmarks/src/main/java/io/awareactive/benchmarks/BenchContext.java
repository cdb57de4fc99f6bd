package io.awareactive.benchmarks;

import io.r2dbc.pool.ConnectionPool;
import java.io.PrintStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Everything a scenario needs: options, the database, the output directory, the console, system factories. */
final class BenchContext {

    /** Connections a run opens besides its system's pool: maintenance engine, sampler, pin or fixture, spare. */
    private static final int MAINTENANCE_AND_SIDE_CONNECTIONS = 6;

    private final BenchOptions options;
    private final BenchDatabase database;
    private final Path out;
    private final PrintStream console;
    private final Set<Contender> warmedUp = new HashSet<>();

    BenchContext(BenchOptions options, BenchDatabase database, Path out, PrintStream console) {
        this.options = options;
        this.database = database;
        this.out = out;
        this.console = console;
    }

    BenchOptions options() {
        return options;
    }

    BenchDatabase database() {
        return database;
    }

    Path out() {
        return out;
    }

    /** True the first time it is asked for a contender: that contender's code has not yet run in this JVM. */
    boolean firstRunOf(Contender contender) {
        return warmedUp.add(contender);
    }

    void log(String format, Object... args) {
        console.printf(Locale.ROOT, "[%s] " + format + "%n", prepend(Instant.now().toString().substring(11, 19), args));
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    /**
     * Opens a system in a fresh schema (an older one of that name is dropped). Both systems get an application pool
     * of the same size, warmed up before any measurement.
     *
     * @param label {@code awa-reactive} or {@code baseline}
     * @param schema the schema name
     * @param extraConnections connections beyond one per producer and worker and two spare (lookup load)
     */
    QueueSystem<?> open(String label, String schema, int extraConnections) {
        return open(label, schema, options.workers(), extraConnections, Map.of());
    }

    /**
     * Opens a system for a run with {@code workers} workers (a point of the throughput sweep).
     *
     * @param label {@code awa-reactive} or {@code baseline}
     * @param schema the schema name
     * @param workers the run's worker loops
     * @param extraConnections connections beyond one per producer and worker and two spare (lookup load)
     */
    QueueSystem<?> open(String label, String schema, int workers, int extraConnections) {
        return open(label, schema, workers, extraConnections, Map.of());
    }

    /**
     * Opens a system whose pooled connections start with the given session settings (e.g. a statement timeout).
     *
     * @param label {@code awa-reactive} or {@code baseline}
     * @param schema the schema name
     * @param extraConnections connections beyond one per producer and worker and two spare
     * @param sessionSettings server parameters set at connection start
     */
    QueueSystem<?> open(String label, String schema, int extraConnections, Map<String, String> sessionSettings) {
        return open(label, schema, options.workers(), extraConnections, sessionSettings);
    }

    private QueueSystem<?> open(String label, String schema, int workers, int extraConnections,
            Map<String, String> sessionSettings) {
        database.dropSchema(schema);
        int size = options.producers() + workers + 2 + extraConnections;
        // The pool, plus the maintenance engine, the sampler and a horizon pin or fixture connection.
        database.requireConnections(size + MAINTENANCE_AND_SIDE_CONNECTIONS);
        String payload = Payload.json(options.payloadBytes());
        ConnectionPool pool = BenchDatabase.pool(database.connectionFactory(BenchDatabase.APPLICATION_NAME,
                builder -> {
                    if (!sessionSettings.isEmpty()) {
                        builder.options(sessionSettings);
                    }
                }), "bench-" + label, size, options.mostRecentlyUsedFirst());
        return switch (label) {
            case BaselineQueue.LABEL -> new BaselineQueue(schema, pool, payload);
            case AwaQueue.LABEL -> new AwaQueue(database, schema, pool, payload, options.enqueueShards(workers),
                    options.rollupInterval(), options.statementsInFlight());
            default -> throw new IllegalArgumentException("unknown system " + label);
        };
    }

    /**
     * Installs an opened system's schema, then settles the catalogs ({@link BenchDatabase#settleCatalogs(Duration)},
     * after {@code --settle}). Every install goes through here, so that no measurement pays for the benchmark's own
     * DDL.
     *
     * @param system the opened system
     * @param timeout how long the install may take
     */
    void install(QueueSystem<?> system, Duration timeout) {
        system.install().block(timeout);
        database.settleCatalogs(options.settle());
    }

    /** The environment of the run: machine, JVM, server, settings, options. */
    void describe(Report report) {
        Runtime runtime = Runtime.getRuntime();
        report.environment("started_at", Instant.now().toString());
        report.environment("machine", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + ", " + runtime.availableProcessors() + " CPUs, "
                + physicalMemory());
        report.environment("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + ", max heap " + runtime.maxMemory() / (1024 * 1024) + " MiB");
        report.environment("load_average_at_start", loadAverage());
        report.environment("server", database.serverDescription());
        report.environment("database", database.database());
        report.environment("pg_stat_statements", Boolean.toString(database.pgStatStatements()));
        report.environment("data_directory_mount", DataDirectoryMount.describe(database.dataDirectory()));
        report.environment("pool_order", options.poolOrder());
        for (Map.Entry<String, String> setting : database.settings().entrySet()) {
            report.environment("pg." + setting.getKey(), setting.getValue());
        }
        report.environment("options", String.join(" ", options.arguments()));
    }

    /** The 1, 5 and 15 minute load averages (other work on the machine skews every figure). */
    private static String loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException | RuntimeException e) {
            return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", load);
        }
    }

    private static String physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize() / (1024 * 1024) + " MiB RAM";
        }
        return "RAM unknown";
    }

    /** Sleeps, for pacing a run from the harness's main thread. */
    static void pause(Duration duration) {
        if (duration.isZero() || duration.isNegative()) {
            return;
        }
        try {
            Thread.sleep(duration.toMillis(), (int) (duration.toNanos() % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
