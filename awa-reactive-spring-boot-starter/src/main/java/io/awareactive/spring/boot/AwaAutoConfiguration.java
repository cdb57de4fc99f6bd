package io.awareactive.spring.boot;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of awa-reactive from the application's single R2DBC {@link ConnectionFactory} bean (Spring
 * Boot's, from {@code spring.r2dbc.*}, pooled by r2dbc-pool, or the application's own) and the {@code awa.*}
 * properties ({@link AwaProperties}). Every bean backs off when the application defines one of its type:
 *
 * <ul>
 *   <li>{@link QueueStorage}: {@code awa.schema} and {@code awa.storage.*}; no I/O at creation;</li>
 *   <li>{@link RingMaintenance} (unless {@code awa.maintenance.enabled=false}): {@code awa.maintenance.*}, reporting to
 *       the application's {@link MeterRegistry} when there is one;</li>
 *   <li>{@link AwaWorkers}: a worker per {@link QueueHandler} bean, {@code awa.worker.*};</li>
 *   <li>{@link PruneOutcomeTracker} and {@link AwaLifecycle}, which starts and stops everything with the context.</li>
 * </ul>
 *
 * <p>Every option is validated by the library's builders when its bean is created, so a bad value fails the startup
 * with the library's message. Health and the outcome stream come from {@link AwaHealthAutoConfiguration} and
 * {@link AwaWebAutoConfiguration}.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration"})
@ConditionalOnClass({QueueStorage.class, RingMaintenance.class, ConnectionFactory.class})
@ConditionalOnSingleCandidate(ConnectionFactory.class)
@EnableConfigurationProperties(AwaProperties.class)
public class AwaAutoConfiguration {

    /** Created by Spring from the auto-configuration imports. */
    public AwaAutoConfiguration() {
    }

    /**
     * The queue storage on the application's connection factory.
     *
     * @param connectionFactory the application's connection factory (use a pool)
     * @param properties {@code awa.schema} and {@code awa.storage.*}
     * @return the storage; the schema is installed by {@link AwaLifecycle}
     * @throws IllegalArgumentException with the library's message when an option is invalid
     */
    @Bean
    @ConditionalOnMissingBean
    public QueueStorage queueStorage(ConnectionFactory connectionFactory, AwaProperties properties) {
        AwaProperties.Storage options = properties.getStorage();
        return QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(connectionFactory)
                .schema(properties.getSchema())
                .queueSlotCount(options.getQueueSlotCount())
                .leaseSlotCount(options.getLeaseSlotCount())
                .claimSlotCount(options.getClaimSlotCount())
                .pruneLockTimeout(options.getPruneLockTimeout())
                .heartbeatInterval(options.getHeartbeatInterval())
                .leaseStaleAfter(options.getLeaseStaleAfter())
                .retryBackoffBase(options.getRetryBackoffBase())
                .retryBackoffFactor(options.getRetryBackoffFactor())
                .retryBackoffMax(options.getRetryBackoffMax())
                .retryBackoffJitter(options.getRetryBackoffJitter())
                .maxArgsBytes(options.getMaxArgsBytes())
                .deadLetterRetention(options.getDeadLetterRetention())
                .maxStatementsInFlight(options.getMaxStatementsInFlight())
                .build());
    }

    /**
     * The ring-maintenance engine: the one place that creates it.
     *
     * @param storage the queue storage
     * @param properties {@code awa.maintenance.*}
     * @param registry the application's meter registry, when it has one
     * @return the engine, not started (its meters are registered)
     * @throws IllegalArgumentException with the library's message when an option is invalid
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "awa.maintenance.enabled", matchIfMissing = true)
    public RingMaintenance ringMaintenance(QueueStorage storage, AwaProperties properties,
            ObjectProvider<MeterRegistry> registry) {
        AwaProperties.Maintenance options = properties.getMaintenance();
        Duration rotate = options.getRotateInterval();
        RingMaintenanceConfig.Builder builder = RingMaintenanceConfig.builder()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(orElse(options.getQueueRotateInterval(), rotate)))
                .task(MaintenanceTask.RING_LEASE, t -> t.interval(orElse(options.getLeaseRotateInterval(), rotate)))
                .task(MaintenanceTask.RING_CLAIM, t -> t.interval(orElse(options.getClaimRotateInterval(), rotate)))
                .task(MaintenanceTask.ROLLUP, r -> r.interval(options.getRollupInterval())
                        .maxSlots(options.getRollupMaxSlots()).mvccPinMinAge(options.getMvccPinMinAge())
                        .mvccPinMinXids(options.getMvccPinMinXids()))
                .task(MaintenanceTask.PROMOTE, p -> p.interval(options.getPromoteInterval())
                        .batchSize(options.getPromoteBatchSize()))
                .task(MaintenanceTask.RESCUE, r -> r.interval(options.getRescueInterval())
                        .batchSize(options.getRescueBatchSize()))
                .task(MaintenanceTask.DLQ_PURGE, d -> d.interval(options.getDlqPurgeInterval())
                        .batchSize(options.getDlqPurgeBatchSize()))
                .leaderElectionInterval(options.getLeaderElectionInterval())
                .leaderCheckInterval(options.getLeaderCheckInterval())
                .taskTimeout(options.getTaskTimeout())
                .meterTags(meterTags(properties))
                .blockerDiagnostics(options.isBlockerDiagnostics());
        registry.ifUnique(builder::meterRegistry);
        return RingMaintenance.create(storage, builder.build());
    }

    /**
     * A worker per handler bean.
     *
     * @param storage the queue storage
     * @param handlers the application's handler beans, in their order
     * @param properties {@code awa.worker.*} and the meter tags
     * @param registry the application's meter registry, when it has one
     * @return the workers, not started
     * @throws IllegalArgumentException with the library's message when an option or a queue name is invalid
     */
    @Bean
    @ConditionalOnMissingBean
    public AwaWorkers awaWorkers(QueueStorage storage, ObjectProvider<QueueHandler> handlers, AwaProperties properties,
            ObjectProvider<MeterRegistry> registry) {
        return AwaWorkers.create(storage, handlers.orderedStream().toList(), properties.getWorker(),
                registry.getIfUnique(), meterTags(properties));
    }

    /**
     * The latest prune outcome per ring.
     *
     * @return an empty tracker
     */
    @Bean
    @ConditionalOnMissingBean
    public PruneOutcomeTracker pruneOutcomeTracker() {
        return new PruneOutcomeTracker();
    }

    /**
     * Starts and stops awa-reactive with the context.
     *
     * @param storage the queue storage
     * @param maintenance the engine, absent when disabled
     * @param workers the workers
     * @param tracker the outcome tracker
     * @param properties the startup and shutdown options
     * @return the lifecycle
     * @throws IllegalArgumentException when {@code awa.startup-timeout} or {@code awa.stop-grace} is invalid
     */
    @Bean
    @ConditionalOnMissingBean
    public AwaLifecycle awaLifecycle(QueueStorage storage, ObjectProvider<RingMaintenance> maintenance,
            AwaWorkers workers, PruneOutcomeTracker tracker, AwaProperties properties) {
        return new AwaLifecycle(storage, maintenance.getIfUnique(), workers, tracker, properties);
    }

    private static Duration orElse(@Nullable Duration value, Duration fallback) {
        return value != null ? value : fallback;
    }

    private static Tags meterTags(AwaProperties properties) {
        return Tags.of(properties.getMaintenance().getMeterTags().entrySet().stream()
                .map(tag -> Tag.of(tag.getKey(), tag.getValue()))
                .toList());
    }
}
