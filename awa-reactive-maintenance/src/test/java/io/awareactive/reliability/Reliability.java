package io.awareactive.reliability;

import io.awareactive.core.QueueCounts;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.maintenance.Fixtures;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;

/** Shared fixtures of the reliability tests: rings 4/2/2 in the test's own schema, short engine intervals. */
final class Reliability {

    static final Duration WAIT = Duration.ofSeconds(30);

    private Reliability() {
    }

    static QueueStorageConfig.Builder storage(ConnectionFactory factory, String schema) {
        return QueueStorageConfig.builder()
                .connectionFactory(factory)
                .schema(schema)
                .queueSlotCount(4)
                .leaseSlotCount(2)
                .claimSlotCount(2);
    }

    /** Installs rings 4/2/2 in a new schema of {@code db} and returns its storage configuration. */
    static QueueStorageConfig installed(TestDatabase db, ConnectionFactory factory) {
        QueueStorageConfig config = storage(factory, db.newSchemaName()).build();
        QueueStorage.create(config).install().block(WAIT);
        return config;
    }

    /** Every task hourly (tests shorten what they drive), short election and check intervals, 20 s task timeout. */
    static RingMaintenanceConfig.Builder engine() {
        return Fixtures.intervals(RingMaintenanceConfig.builder());
    }

    /** Quoted {@code schema.table}. */
    static String t(QueueStorageConfig storage, String table) {
        return "\"" + storage.schema() + "\"." + table;
    }

    static long filenode(TestDatabase db, QueueStorageConfig storage, String table) {
        return db.queryLong("SELECT pg_relation_filenode('" + t(storage, table) + "'::regclass)");
    }

    static long rows(TestDatabase db, QueueStorageConfig storage, String table) {
        return db.queryLong("SELECT count(*) FROM " + t(storage, table));
    }

    static long count(List<PruneEvent> events, String label) {
        return events.stream().filter(e -> e.outcome().label().equals(label)).count();
    }

    /** How many times the engine rotated {@code ring}, from its {@code awa.maintenance.rotate.attempts} counter. */
    static double rotations(MeterRegistry registry, Ring ring) {
        return registry.find("awa.maintenance.rotate.attempts").tag("awa.ring", ring.label())
                .tag("awa.ring.outcome", "rotated").counters().stream().mapToDouble(Counter::count).sum();
    }

    /**
     * Whether a queue is quiet after a fault: nothing runs or waits, and each of the {@code jobsThatRan} jobs whose
     * handler ran has ended (completed or failed). "Nothing running or scheduled" alone is not quiet: a run whose
     * completion the fault lost is rescued once its lease goes stale, waits as a retry and is promoted, and a run
     * whose claim the fault rolled back is available at once; either is available for a moment before a worker claims
     * it again. A job that ran and never ends keeps the queue from ever being quiet, so a wait on this fails.
     */
    static boolean quiet(QueueCounts counts, long jobsThatRan) {
        return counts.running() == 0 && counts.scheduled() == 0
                && counts.completed() + counts.failed() == jobsThatRan;
    }

    static void stopQuietly(RingMaintenance engine) {
        engine.stop(Duration.ofSeconds(5)).onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(WAIT);
    }
}
