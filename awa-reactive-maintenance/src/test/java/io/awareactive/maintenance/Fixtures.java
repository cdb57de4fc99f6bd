package io.awareactive.maintenance;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;

/** Integration-test fixtures: rings 4/2/2 in the test's own schema, short engine intervals, log capture. */
public final class Fixtures {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final String ENGINE_LOGGER = "io.awareactive.maintenance.RingMaintenance";

    private Fixtures() {
    }

    static QueueStorageConfig storage(ConnectionFactory factory, String schema) {
        return QueueStorageConfig.builder()
                .connectionFactory(factory)
                .schema(schema)
                .queueSlotCount(4)
                .leaseSlotCount(2)
                .claimSlotCount(2)
                .build();
    }

    /** Installs rings 4/2/2 in a new schema of {@code db} and returns its storage configuration. */
    static QueueStorageConfig installed(TestDatabase db, ConnectionFactory factory) {
        QueueStorageConfig config = storage(factory, db.newSchemaName());
        QueueStorage.create(config).install().block(WAIT);
        return config;
    }

    /** Every task but the ring ticks hourly, so a test sees only what it drives. */
    static RingMaintenanceConfig.Builder engine() {
        return intervals(RingMaintenanceConfig.builder());
    }

    /**
     * Every task hourly (tests shorten what they drive), short election and check intervals, a 20 s task timeout.
     *
     * @param builder the builder to set
     * @return the builder
     */
    public static RingMaintenanceConfig.Builder intervals(RingMaintenanceConfig.Builder builder) {
        for (MaintenanceTask<?> task : MaintenanceTask.values()) {
            every(builder, task, Duration.ofHours(1));
        }
        return builder
                .leaderElectionInterval(Duration.ofMillis(500))
                .leaderCheckInterval(Duration.ofMillis(300))
                .taskTimeout(Duration.ofSeconds(20));
    }

    /**
     * Sets one task's interval, whatever its options type.
     *
     * @param builder the builder to set
     * @param task the task
     * @param interval its interval
     * @param <O> the task's options type
     * @return the builder
     */
    static <O extends TaskOptions<O>> RingMaintenanceConfig.Builder every(RingMaintenanceConfig.Builder builder,
            MaintenanceTask<O> task, Duration interval) {
        return builder.task(task, options -> options.interval(interval));
    }

    static String t(QueueStorageConfig storage, String table) {
        return "\"" + storage.schema() + "\"." + table;
    }

    /**
     * Appends ledger row (1, 1) directly, so queue slot 0 (generation 0) is the prune target, and gives that slot a
     * finished job's done row and count delta, so its prune has storage to truncate (a child without pages is left
     * alone).
     */
    static void makeSlotZeroTheTarget(TestDatabase db, QueueStorageConfig storage) {
        db.execute("INSERT INTO " + t(storage, "queue_ring_rotations") + " (generation, slot) VALUES (1, 1)",
                "INSERT INTO " + t(storage, "done_entries") + " (ready_slot, job_id, run_lease, ready_generation, queue,"
                        + " priority, kind, state, attempt) VALUES (0, 1, 1, 0, 'q', 2, 'k', 'completed', 1)",
                "INSERT INTO " + t(storage, "queue_terminal_count_deltas") + " (ready_slot, ready_generation, queue,"
                        + " priority, state, delta) VALUES (0, 0, 'q', 2, 'completed', 1)");
    }

    static long filenode(TestDatabase db, QueueStorageConfig storage, String table) {
        return db.queryLong("SELECT pg_relation_filenode('" + t(storage, table) + "'::regclass)");
    }

    /** Captures the engine's log lines from now on. */
    static final class LogCapture implements AutoCloseable {

        private final Logger logger;
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
        private final Level previous;

        LogCapture(String name, Level level) {
            logger = (Logger) LoggerFactory.getLogger(name);
            previous = logger.getLevel();
            logger.setLevel(level);
            appender.start();
            logger.addAppender(appender);
        }

        List<String> lines(Level level) {
            List<ILoggingEvent> events;
            synchronized (appender) { // AppenderBase.doAppend appends under this monitor
                events = List.copyOf(appender.list);
            }
            return events.stream().filter(e -> e.getLevel() == level)
                    .map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
        }

        @Override
        public void close() {
            logger.detachAppender(appender);
            logger.setLevel(previous);
        }
    }
}
