package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** Storage fixtures for integration tests: small rings (4/2/2 slots) in the test class's own schema. */
final class Fixtures {

    private Fixtures() {
    }

    /**
     * A pool over the test database.
     *
     * @param db the test database
     * @param maxSize the pool size
     * @return the pool; dispose it after the test class
     */
    static ConnectionPool pool(TestDatabase db, int maxSize) {
        return new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0)
                .maxSize(maxSize)
                .maxAcquireTime(Duration.ofSeconds(30))
                .build());
    }

    /**
     * A configuration with rings 4/2/2 in the given schema.
     *
     * @param factory the connections
     * @param schema the schema
     * @param customizer further settings
     * @return the configuration
     */
    static QueueStorageConfig config(ConnectionFactory factory, String schema,
            UnaryOperator<QueueStorageConfig.Builder> customizer) {
        return customizer.apply(QueueStorageConfig.builder()
                .connectionFactory(factory)
                .schema(schema)
                .queueSlotCount(4)
                .leaseSlotCount(2)
                .claimSlotCount(2)).build();
    }

    /**
     * An installed storage with rings 4/2/2.
     *
     * @param factory the connections
     * @param schema the schema
     * @return the storage
     */
    static QueueStorage installed(ConnectionFactory factory, String schema) {
        QueueStorage storage = QueueStorage.create(config(factory, schema, UnaryOperator.identity()));
        storage.install().block(Duration.ofSeconds(60));
        return storage;
    }

    /**
     * Rotates {@code ring} and checks that it turned to {@code slot}.
     *
     * @param storage the storage
     * @param ring the ring
     * @param slot the slot the ring must now be in
     * @param wait the longest wait for each call
     */
    static void rotated(QueueStorage storage, Ring ring, int slot, Duration wait) {
        assertThat(storage.ringOperations().rotate(ring).block(wait)).isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(storage.ringOperations().cursor(ring).block(wait).slot()).isEqualTo(slot);
    }

    /**
     * Prunes until the outcome is no longer Blocked (tolerated up to 5 s), as an engine's ticks would.
     *
     * @param storage the storage
     * @param ring the ring
     * @param wait the longest wait for one prune
     * @return the first outcome that is not Blocked, or the last Blocked after 5 s
     */
    static PruneOutcome pruneUntilNotBlocked(QueueStorage storage, Ring ring, Duration wait) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        PruneOutcome outcome = storage.ringOperations().prune(ring).block(wait);
        while (outcome instanceof PruneOutcome.Blocked && System.nanoTime() < deadline) {
            outcome = storage.ringOperations().prune(ring).block(wait);
        }
        return outcome;
    }

    /**
     * The attempts that completions closed (schema step 19: one place per completed attempt in its run's closures),
     * each place counted once per closure row.
     *
     * @param db the test database
     * @param schema the schema
     * @return the places of every {@code lease_run_closures} row
     */
    static long closedPlaces(TestDatabase db, String schema) {
        return db.queryLong("SELECT coalesce(sum(cardinality(places)), 0) FROM \"" + schema + "\".lease_run_closures");
    }

    /**
     * Ages the claimed attempts in {@code leaseTable} ({@code lease_runs}, or {@code leases} before schema step 18) by
     * an hour, as a stuck worker's would be: their heartbeats, and the opening of every lease slot with them. Rescue
     * reads only the slots opened before its staleness horizon (schema step 15), and an attempt is never older than
     * its slot; aging the heartbeats alone left the test depending on how long the install took.
     *
     * @param db the test database
     * @param schema the schema
     * @param leaseTable the table of the attempts
     */
    static void makeLeasesStale(TestDatabase db, String schema, String leaseTable) {
        db.execute("UPDATE \"" + schema + "\"." + leaseTable
                        + " SET heartbeat_at = clock_timestamp() - interval '1 hour'",
                "UPDATE \"" + schema + "\".lease_ring_rotations SET rotated_at = rotated_at - interval '1 hour'");
    }
}
