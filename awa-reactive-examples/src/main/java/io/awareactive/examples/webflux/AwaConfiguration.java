package io.awareactive.examples.webflux;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import java.time.Duration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The awa-reactive beans of the example: a connection pool, the queue storage (schema installed at startup), the
 * ring-maintenance engine reporting to the application's {@link MeterRegistry}, and the lifecycle that starts
 * maintenance and the worker with the application context and stops them with it.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AwaProperties.class)
class AwaConfiguration {

    @Bean(destroyMethod = "close")
    ExampleDatabase exampleDatabase(AwaProperties properties) {
        return ExampleDatabase.of(properties.getR2dbcUrl());
    }

    @Bean(destroyMethod = "dispose")
    ConnectionPool awaConnectionPool(ExampleDatabase database, AwaProperties properties) {
        return new ConnectionPool(ConnectionPoolConfiguration.builder(ConnectionFactories.get(database.r2dbcUrl()))
                .maxSize(properties.getPoolMaxSize())
                .maxAcquireTime(Duration.ofSeconds(10))
                .build());
    }

    // tag::storage[]
    @Bean
    QueueStorage queueStorage(ConnectionPool pool, AwaProperties properties) {
        QueueStorage storage = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(pool)
                .schema(properties.getSchema())
                .queueSlotCount(properties.getQueueSlotCount())
                .leaseSlotCount(properties.getLeaseSlotCount())
                .claimSlotCount(properties.getClaimSlotCount())
                .pruneLockTimeout(properties.getPruneLockTimeout())
                .build());
        if (properties.isInstallSchema()) {
            storage.install().block(Duration.ofMinutes(1)); // once, at startup: idempotent
        }
        return storage;
    }

    @Bean
    RingMaintenance ringMaintenance(QueueStorage storage, AwaProperties properties, MeterRegistry registry) {
        return RingMaintenance.create(storage, RingMaintenanceConfig.builder()
                .rotate(Ring.QUEUE, t -> t.interval(properties.getRotateInterval()))
                .rotate(Ring.LEASE, t -> t.interval(properties.getRotateInterval()))
                .rotate(Ring.CLAIM, t -> t.interval(properties.getRotateInterval()))
                .meterRegistry(registry)        // awa.* meters appear on /actuator/prometheus
                .blockerDiagnostics(properties.isBlockerDiagnostics())
                .build());
    }
    // end::storage[]

    @Bean
    AwaLifecycle awaLifecycle(QueueStorage storage, RingMaintenance maintenance, AwaProperties properties,
            GreetingHandler handler, OutcomeTracker tracker) {
        return new AwaLifecycle(storage, maintenance, properties, handler, tracker);
    }

    @Bean
    OutcomeTracker outcomeTracker() {
        return new OutcomeTracker();
    }

    @Bean
    AwaHealthIndicator awaHealthIndicator(QueueStorage storage, RingMaintenance maintenance, AwaLifecycle lifecycle,
            OutcomeTracker tracker) {
        return new AwaHealthIndicator(storage, maintenance, lifecycle, tracker, Ring.values());
    }
}
