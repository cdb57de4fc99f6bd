package io.awareactive.core;

import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
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
}
