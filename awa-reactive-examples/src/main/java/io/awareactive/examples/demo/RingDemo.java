package io.awareactive.examples.demo;

import io.awareactive.core.AwaReactiveException;
import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueCounts;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.maintenance.MaintenanceMeters;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.awareactive.maintenance.StartupWarning;
import io.awareactive.testkit.PostgresProviders;
import io.awareactive.testkit.PostgresServer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactoryProvider;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.R2dbcException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * The main demo: producers, workers and the ring-maintenance engine of awa-reactive on one schema, for a bounded time,
 * with a live line per second, a contending reader midway, and a summary at the end. Everything it starts it stops,
 * also when it fails.
 */
final class RingDemo {

    /** The queue the demo's producers and workers use. */
    static final String QUEUE = "demo";
    /** The {@code application_name} of the demo's own connections. */
    static final String APPLICATION_NAME = "awa-reactive-demo";
    /** The {@code application_name} of the contending reader, so blocker diagnostics name it. */
    static final String READER_APPLICATION_NAME = "awa-demo-contending-reader";

    // Small rings and short intervals make laps visible within seconds.
    private static final int QUEUE_SLOTS = 4;
    private static final int LEASE_SLOTS = 2;
    private static final int CLAIM_SLOTS = 2;
    private static final Duration PRODUCER_TICK = Duration.ofMillis(100);
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_GRACE = Duration.ofSeconds(3);

    private final DemoOptions options;
    private final PrintStream out;
    private final Consumer<MetricsHttpServer> onMetricsServer;
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private final AtomicLong enqueued = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong producerErrors = new AtomicLong();
    private final OutcomeTally tally = new OutcomeTally();
    private final AtomicReference<String> contention = new AtomicReference<>("");

    /**
     * Creates the demo.
     *
     * @param options the parsed command line
     * @param out where the live lines and the summary go
     * @param onMetricsServer told the metrics server once it listens (tests use it to scrape)
     */
    RingDemo(DemoOptions options, PrintStream out, Consumer<MetricsHttpServer> onMetricsServer) {
        this.options = options;
        this.out = out;
        this.onMetricsServer = onMetricsServer;
    }

    /**
     * Runs the demo to its end and stops everything it started.
     *
     * @return the summary (also printed)
     * @throws DemoException for a failure worth one line (unreachable database, port in use, ...)
     */
    DemoSummary run() {
        try {
            return runStarted();
        } finally {
            closeAll();
        }
    }

    private DemoSummary runStarted() {
        out.println("awa-reactive demo: " + options.describe());
        String url = options.r2dbcUrl() != null ? options.r2dbcUrl() : startEmbeddedPostgres();
        ConnectionFactoryOptions connectionOptions = connectionOptions(url, APPLICATION_NAME);
        String where = describe(connectionOptions);
        ConnectionFactory direct = ConnectionFactories.get(connectionOptions);
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(direct)
                .initialSize(0)
                .maxSize(16)
                .maxAcquireTime(Duration.ofSeconds(10))
                .build());
        started.push(pool::dispose);

        // The storage: schema, slot counts and the prune lock timeout.
        QueueStorageConfig storageConfig = QueueStorageConfig.builder()
                .connectionFactory(pool)
                .schema(options.schema())
                .queueSlotCount(QUEUE_SLOTS)
                .leaseSlotCount(LEASE_SLOTS)
                .claimSlotCount(CLAIM_SLOTS)
                .pruneLockTimeout(options.pruneLockTimeout())
                .heartbeatInterval(Duration.ofSeconds(1))
                .leaseStaleAfter(Duration.ofSeconds(5))
                .build();
        QueueStorage storage = QueueStorage.create(storageConfig);
        await(storage.install(), "install the schema " + options.schema() + " at " + where, where);
        out.println("Schema " + options.schema() + " installed at " + where + " (rings: queue " + QUEUE_SLOTS
                + " slots, lease " + LEASE_SLOTS + ", claim " + CLAIM_SLOTS + ")");

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        started.push(registry::close);
        MetricsHttpServer metrics = MetricsHttpServer.start(registry, options.metricsPort());
        started.push(metrics);
        out.println("Prometheus metrics: curl " + metrics.url());
        onMetricsServer.accept(metrics);

        RingMaintenance maintenance = RingMaintenance.create(storage, RingMaintenanceConfig.builder()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(options.rotateInterval()))
                .task(MaintenanceTask.RING_LEASE, t -> t.interval(options.rotateInterval()))
                .task(MaintenanceTask.RING_CLAIM, t -> t.interval(options.rotateInterval()))
                .task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofMillis(250)))
                .task(MaintenanceTask.RESCUE, p -> p.interval(Duration.ofSeconds(2)))
                .task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ofSeconds(5)))
                .leaderElectionInterval(Duration.ofSeconds(1))
                .leaderCheckInterval(Duration.ofSeconds(1))
                .meterRegistry(registry)
                .blockerDiagnostics(true)
                .build());
        Disposable outcomes = maintenance.outcomes().subscribe(this::onOutcome,
                error -> out.println("  outcome stream failed: " + error));
        started.push(() -> {
            if (!maintenance.isDisposed()) {
                maintenance.stop(STOP_GRACE).block(STOP_GRACE.multipliedBy(3));
            }
        });
        started.push(outcomes::dispose);
        await(maintenance.start(), "start ring maintenance", where);
        for (StartupWarning warning : await(maintenance.diagnose(), "diagnose", where)) {
            out.println("  note: " + warning.message());
        }

        List<Worker> workers = new ArrayList<>();
        for (int i = 1; i <= options.workers(); i++) {
            Worker worker = storage.worker(WorkerConfig.builder(QUEUE, job ->
                            // A few milliseconds of "work" per job.
                            Mono.delay(Duration.ofMillis(2 + job.id() % 8)).doOnSuccess(done -> completed.incrementAndGet()))
                    .concurrency(16)
                    .batchSize(20)
                    .pollInterval(Duration.ofMillis(200))
                    .workerId("demo-worker-" + i)
                    .build());
            workers.add(worker);
            started.push(() -> worker.stop(STOP_GRACE).block(STOP_GRACE.multipliedBy(3)));
            await(worker.start(), "start a worker", where);
        }

        // Producers stop at a signal, after their in-flight batch, so every committed job is counted.
        Sinks.Empty<Void> stopProducers = Sinks.empty();
        List<Mono<Void>> producers = new ArrayList<>();
        for (int p = 0; p < options.producers(); p++) {
            producers.add(producer(storage, p, stopProducers.asMono()).cache());
        }
        Disposable.Composite running = Disposables.composite();
        started.push(running::dispose);
        producers.forEach(producer -> running.add(producer.subscribe()));
        Instant start = Instant.now();
        if (!options.contentionHold().isZero()) {
            running.add(contendingReader(connectionOptions(url, READER_APPLICATION_NAME), start));
        }

        out.println("Running for " + DemoOptions.format(options.duration()) + ". Per ring: current slot/generation, "
                + "sealed slots not yet pruned, prune outcomes so far (skipped = skipped_active, backoff = backed_off, "
                + "already = already_pruned).");
        long seconds = Math.max(1, options.duration().toSeconds());
        long[] previous = {0, 0};
        Flux.interval(Duration.ofSeconds(1), Schedulers.parallel())
                .take(seconds)
                .doOnNext(tick -> out.println(liveLine(tick + 1, registry, previous)))
                .blockLast();

        // Stop in reverse order of dependence: producers, workers, then read the final state, then maintenance.
        stopProducers.tryEmitEmpty();
        Mono.when(producers).block(STOP_GRACE.multipliedBy(3));
        running.dispose();
        for (Worker worker : workers) {
            worker.stop(STOP_GRACE).block(STOP_GRACE.multipliedBy(3));
        }
        Map<Ring, RingCursor> cursors = new EnumMap<>(Ring.class);
        for (Ring ring : Ring.values()) {
            cursors.put(ring, await(storage.ringOperations().cursor(ring), "read the " + ring.label() + " cursor", where));
        }
        QueueCounts counts = await(storage.counts(QUEUE), "count the demo queue", where);
        maintenance.stop(STOP_GRACE).block(STOP_GRACE.multipliedBy(3));

        DemoSummary summary = new DemoSummary(Duration.between(start, Instant.now()), enqueued.get(),
                completed.get(), producerErrors.get(), counts, cursors, tally.snapshot(), tally.blockedCauses(),
                tally.blockers(), resumedAfterContention(), metrics.url(), metrics.scrapes());
        out.print(summary.render());
        return summary;
    }

    private String startEmbeddedPostgres() {
        out.println("Starting an embedded PostgreSQL 17 (the first run unpacks it, a few seconds) ...");
        PostgresServer server;
        try {
            server = PostgresProviders.embedded();
        } catch (RuntimeException e) {
            throw new DemoException("cannot start the embedded PostgreSQL: " + rootMessage(e)
                    + " (or give a database with --url)");
        }
        started.push(server);
        return server.r2dbcUrl(server.database());
    }

    /** The connection options of a URL, with the demo's application name and a connect timeout. */
    static ConnectionFactoryOptions connectionOptions(String url, String applicationName) {
        ConnectionFactoryOptions parsed;
        try {
            parsed = ConnectionFactoryOptions.parse(url);
        } catch (IllegalArgumentException e) {
            throw new DemoException("--url is not a valid R2DBC URL: " + e.getMessage());
        }
        return ConnectionFactoryOptions.builder().from(parsed)
                .option(PostgresqlConnectionFactoryProvider.APPLICATION_NAME, applicationName)
                .option(ConnectionFactoryOptions.CONNECT_TIMEOUT, Duration.ofSeconds(5))
                .build();
    }

    private static String describe(ConnectionFactoryOptions options) {
        Object port = options.getValue(ConnectionFactoryOptions.PORT);
        return "PostgreSQL " + options.getValue(ConnectionFactoryOptions.HOST) + ":" + (port == null ? 5432 : port)
                + "/" + options.getValue(ConnectionFactoryOptions.DATABASE);
    }

    private Mono<Void> producer(QueueStorage storage, int index, Mono<Void> stop) {
        int producers = options.producers();
        long rate = options.rate();
        // Jobs per 100 ms tick, spread so that the producers together enqueue exactly `rate` per second.
        return Flux.interval(PRODUCER_TICK, Schedulers.parallel())
                .onBackpressureDrop()
                .takeUntilOther(stop)
                .concatMap(tick -> {
                    long before = (tick * rate * 100 / 1000 + index) / producers;
                    long after = ((tick + 1) * rate * 100 / 1000 + index) / producers;
                    int jobs = (int) (after - before);
                    if (jobs == 0) {
                        return Mono.empty();
                    }
                    return storage.enqueueAll(Flux.range(0, jobs).map(i -> JobRequest.builder(QUEUE, "demo.greet")
                                    .args("{\"producer\":" + index + ",\"tick\":" + tick + "}")
                                    .build()))
                            .count()
                            .doOnNext(enqueued::addAndGet)
                            .onErrorResume(error -> {
                                producerErrors.incrementAndGet();
                                return Mono.empty();
                            });
                }, 0)
                .then();
    }

    /**
     * Midway, one session holds {@code ACCESS SHARE} on the {@code ready_segments} parent (which locks every child)
     * in an open transaction, as a long report would, so queue prunes are {@code blocked}; then it rolls back.
     */
    private Disposable contendingReader(ConnectionFactoryOptions readerOptions, Instant start) {
        String table = '"' + options.schema() + "\".ready_segments";
        ConnectionFactory factory = ConnectionFactories.get(readerOptions);
        return Mono.delay(options.contentionAt())
                .then(Mono.usingWhen(Mono.from(factory.create()),
                        connection -> Mono.from(connection.beginTransaction())
                                .then(single(connection, "LOCK TABLE " + table + " IN ACCESS SHARE MODE"))
                                .then(single(connection, "SELECT pg_backend_pid()"))
                                .flatMap(pid -> {
                                    contention.set(" [reader holds " + table + "]");
                                    out.println("  >> contending reader pid " + pid + " (" + READER_APPLICATION_NAME
                                            + ") now holds ACCESS SHARE on " + table + " and its children for "
                                            + DemoOptions.format(options.contentionHold()));
                                    return Mono.delay(options.contentionHold());
                                })
                                .then(Mono.from(connection.rollbackTransaction()))
                                .doFinally(signal -> {
                                    contention.set("");
                                    tally.contentionEnded(Instant.now());
                                    out.println("  >> contending reader released its lock at "
                                            + seconds(Duration.between(start, Instant.now())));
                                }),
                        Connection::close))
                .subscribe(done -> { }, error -> out.println("  >> contending reader failed: " + rootMessage(error)));
    }

    /** Runs one statement and returns its first column of its first row ("" for none), consuming every result. */
    private static Mono<String> single(Connection connection, String sql) {
        return Flux.from(connection.createStatement(sql).execute())
                .concatMap(result -> result.map((row, meta) -> String.valueOf(row.get(0))))
                .collectList()
                .map(rows -> rows.isEmpty() ? "" : rows.get(0));
    }

    private void onOutcome(PruneEvent event) {
        for (String blocker : tally.record(event)) {
            out.println("  >> blocked " + blocker);
        }
    }

    private String liveLine(long second, PrometheusMeterRegistry registry, long[] previous) {
        long enq = enqueued.get();
        long done = completed.get();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%4ds  enqueued %4d/s  completed %4d/s",
                second, enq - previous[0], done - previous[1]));
        previous[0] = enq;
        previous[1] = done;
        for (Ring ring : Ring.values()) {
            line.append(" | ").append(ring.label()).append(' ')
                    .append(gauge(registry, MaintenanceMeters.RING_CURRENT_SLOT, ring)).append('/')
                    .append(gauge(registry, MaintenanceMeters.RING_GENERATION, ring))
                    .append(" sealed ").append(gauge(registry, MaintenanceMeters.RING_SEALED_SLOTS, ring))
                    .append(" pruned ").append(tally.count(ring, "pruned"));
            for (String label : OutcomeTally.LABELS.subList(1, OutcomeTally.LABELS.size())) {
                long count = tally.count(ring, label);
                if (count > 0) {
                    line.append(' ').append(OutcomeTally.shortLabel(label)).append(' ').append(count);
                }
            }
        }
        return line.append(contention.get()).toString();
    }

    private static String gauge(PrometheusMeterRegistry registry, MaintenanceMeters meter, Ring ring) {
        Gauge gauge = registry.find(meter.meterName()).tag(MaintenanceMeters.RING, ring.label()).gauge();
        double value = gauge == null ? Double.NaN : gauge.value();
        return Double.isNaN(value) ? "-" : Long.toString((long) value);
    }

    private @Nullable Duration resumedAfterContention() {
        Instant resumed = tally.firstQueuePruneAfterContention();
        Instant ended = tally.contentionEndedAt();
        return resumed == null || ended == null ? null : Duration.between(ended, resumed);
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
    }

    /** Waits for a startup or shutdown step, turning database failures into one-line errors. */
    private static <T> T await(Mono<T> step, String what, String where) {
        try {
            return step.block(STARTUP_TIMEOUT);
        } catch (RuntimeException e) {
            throw failure(e, what, where);
        }
    }

    static DemoException failure(Throwable e, String what, String where) {
        if (e instanceof IllegalStateException && e.getMessage() != null && e.getMessage().startsWith("Timeout")) {
            return new DemoException("cannot " + what + ": no answer within " + DemoOptions.format(STARTUP_TIMEOUT));
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException || cause.getClass().getName().contains("Connect")) {
                return new DemoException("cannot reach " + where + ": " + rootMessage(e)
                        + " (is it running? see --url and $" + DemoOptions.URL_ENV + ")");
            }
            if (cause instanceof AwaReactiveException || cause instanceof R2dbcException) {
                return new DemoException("cannot " + what + ": " + cause.getMessage());
            }
        }
        return new DemoException("cannot " + what + ": " + rootMessage(e));
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : message;
    }

    private void closeAll() {
        RuntimeException first = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = new DemoException("stopping failed: " + rootMessage(e));
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
