package io.awareactive.spring.boot;

import io.awareactive.core.QueueStorage;
import io.awareactive.maintenance.RingMaintenance;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The actuator health component {@code awa} ({@link AwaHealthIndicator}), on when {@code management.health.awa.enabled}
 * is not false and awa-reactive is configured; backs off when the application defines a bean named
 * {@code awaHealthIndicator}.
 */
@AutoConfiguration(after = AwaAutoConfiguration.class)
@ConditionalOnClass(ReactiveHealthIndicator.class)
@ConditionalOnBean({QueueStorage.class, AwaLifecycle.class})
@ConditionalOnEnabledHealthIndicator("awa")
public class AwaHealthAutoConfiguration {

    /** Created by Spring from the auto-configuration imports. */
    public AwaHealthAutoConfiguration() {
    }

    /**
     * The health indicator; its bean name makes the component {@code awa}.
     *
     * @param storage the queue storage
     * @param maintenance the engine, absent when disabled
     * @param lifecycle the lifecycle
     * @param tracker the latest outcomes
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "awaHealthIndicator")
    public AwaHealthIndicator awaHealthIndicator(QueueStorage storage, ObjectProvider<RingMaintenance> maintenance,
            AwaLifecycle lifecycle, PruneOutcomeTracker tracker) {
        return new AwaHealthIndicator(storage, maintenance.getIfUnique(), lifecycle, tracker);
    }
}
