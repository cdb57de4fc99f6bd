package io.awareactive.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.awareactive.core.internal.Validation;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RouterFunction;
import reactor.core.publisher.Mono;

/**
 * The auto-configuration without a database: {@code awa.auto-startup=false} keeps the lifecycle from starting, and
 * creating the beans does no I/O, so a connection factory pointing nowhere is enough.
 */
final class AwaAutoConfigurationUnitTests {

    private static final AutoConfigurations AUTO_CONFIGURATIONS = AutoConfigurations.of(AwaAutoConfiguration.class,
            AwaHealthAutoConfiguration.class, AwaWebAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AUTO_CONFIGURATIONS)
            .withUserConfiguration(Application.class)
            .withPropertyValues("awa.auto-startup=false");

    /** What an application brings: a connection factory, a registry and one handler. */
    @Configuration(proxyBeanMethods = false)
    static class Application {
        @Bean
        ConnectionFactory connectionFactory() {
            return ConnectionFactories.get("r2dbc:postgresql://nobody@127.0.0.1:1/none");
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        QueueHandler emails() {
            return QueueHandler.of("emails", job -> Mono.empty());
        }
    }

    @Test
    void shouldCreateStorageMaintenanceWorkersLifecycleAndHealthFromTheConnectionFactory() {
        runner.run(context -> {
            assertThat(context).hasNotFailed()
                    .hasSingleBean(QueueStorage.class)
                    .hasSingleBean(RingMaintenance.class)
                    .hasSingleBean(AwaWorkers.class)
                    .hasSingleBean(PruneOutcomeTracker.class)
                    .hasSingleBean(AwaLifecycle.class)
                    .hasBean("awaHealthIndicator")
                    .doesNotHaveBean("awaOutcomesRoute");
            assertThat(context.getBean(QueueStorage.class).config().connectionFactory())
                    .isSameAs(context.getBean(ConnectionFactory.class));
            assertThat(context.getBean(AwaWorkers.class).workers()).containsOnlyKeys("emails");
            assertThat(context.getBean(AwaLifecycle.class).isRunning()).isFalse();
        });
    }

    @Test
    void shouldRegisterTheMaintenanceAndWorkerMetersOnTheApplicationsRegistry() {
        runner.withPropertyValues("awa.maintenance.meter-tags.awa.schema=awa_reactive").run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("awa.maintenance.leader").tag("awa.schema", "awa_reactive").gauge()).isNotNull();
            assertThat(registry.find("awa.maintenance.prune.attempts").counters()).hasSize(25);
            assertThat(registry.find(AwaWorkers.JOB_DURATION_METER).tag("awa.queue", "emails").timers())
                    .extracting(timer -> timer.getId().getTag("awa.worker.outcome"))
                    .containsExactlyInAnyOrder("completed", "failed", "cancelled");
            assertThat(registry.find(AwaWorkers.RUNNING_METER).tag("awa.queue", "emails").gauge()).isNotNull();
        });
    }

    @Test
    void shouldBackOffWithoutAConnectionFactory() {
        new ApplicationContextRunner().withConfiguration(AUTO_CONFIGURATIONS).run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(QueueStorage.class)
                .doesNotHaveBean(RingMaintenance.class)
                .doesNotHaveBean(AwaLifecycle.class)
                .doesNotHaveBean("awaHealthIndicator"));
    }

    @Test
    void shouldRunNoMaintenanceWhenDisabled() {
        runner.withPropertyValues("awa.maintenance.enabled=false").run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(RingMaintenance.class)
                .hasSingleBean(AwaWorkers.class)
                .hasSingleBean(AwaLifecycle.class));
    }

    @Test
    void shouldLeaveOutTheHealthIndicatorWhenItIsDisabled() {
        runner.withPropertyValues("management.health.awa.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("awaHealthIndicator"));
    }

    /** An application replacing every piece. */
    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        static final QueueStorage STORAGE = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(ConnectionFactories.get("r2dbc:postgresql://nobody@127.0.0.1:1/own"))
                .schema("own_schema")
                .build());

        @Bean
        QueueStorage ownStorage() {
            return STORAGE;
        }

        @Bean
        RingMaintenance ownMaintenance() {
            // Through the auto-configuration's own method, the one place that creates an engine.
            return new AwaAutoConfiguration().ringMaintenance(STORAGE, new AwaProperties(),
                    new StaticListableBeanFactory().getBeanProvider(MeterRegistry.class));
        }

        @Bean
        AwaWorkers ownWorkers() {
            return AwaWorkers.create(STORAGE, List.of(), new AwaProperties.Worker(), null,
                    Tags.empty());
        }

        @Bean
        AwaLifecycle ownLifecycle(AwaWorkers workers) {
            AwaProperties properties = new AwaProperties();
            properties.setAutoStartup(false);
            return new AwaLifecycle(STORAGE, null, workers, new PruneOutcomeTracker(), properties);
        }

        @Bean
        ReactiveHealthIndicator awaHealthIndicator() {
            return () -> Mono.just(Health.up().build());
        }
    }

    @Test
    void shouldUseTheApplicationsOwnBeansInsteadOfItsOwn() {
        runner.withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context).hasNotFailed()
                    .hasSingleBean(QueueStorage.class)
                    .hasSingleBean(RingMaintenance.class)
                    .hasSingleBean(AwaWorkers.class)
                    .hasSingleBean(AwaLifecycle.class)
                    .doesNotHaveBean("queueStorage")
                    .doesNotHaveBean("ringMaintenance")
                    .doesNotHaveBean("awaWorkers")
                    .doesNotHaveBean("awaLifecycle");
            assertThat(context.getBean(QueueStorage.class)).isSameAs(OwnBeans.STORAGE);
            assertThat(context.getBean(RingMaintenance.class)).isSameAs(context.getBean("ownMaintenance"));
            assertThat(context.getBean("awaHealthIndicator")).isNotInstanceOf(AwaHealthIndicator.class);
        });
    }

    @Test
    void shouldHandTheBoundPropertiesToTheLibrary() {
        runner.withPropertyValues("awa.schema=jobs_schema", "awa.storage.prune-lock-timeout=50ms",
                "awa.storage.queue-slot-count=24", "awa.maintenance.rotate-interval=500ms",
                "awa.maintenance.claim-rotate-interval=2s", "awa.maintenance.promote-batch-size=50",
                "awa.maintenance.blocker-diagnostics=true").run(context -> {
                    QueueStorageConfig storage = context.getBean(QueueStorage.class).config();
                    assertThat(storage.schema()).isEqualTo("jobs_schema");
                    assertThat(storage.pruneLockTimeout()).isEqualTo(Duration.ofMillis(50));
                    assertThat(storage.slotCount(Ring.QUEUE)).isEqualTo(24);
                    RingMaintenanceConfig maintenance = context.getBean(RingMaintenance.class).config();
                    assertThat(maintenance.task(MaintenanceTask.RING_QUEUE).interval())
                            .isEqualTo(Duration.ofMillis(500));
                    assertThat(maintenance.task(MaintenanceTask.RING_LEASE).interval())
                            .isEqualTo(Duration.ofMillis(500));
                    assertThat(maintenance.task(MaintenanceTask.RING_CLAIM).interval())
                            .isEqualTo(Duration.ofSeconds(2));
                    assertThat(maintenance.task(MaintenanceTask.PROMOTE).batchSize()).isEqualTo(50);
                    assertThat(maintenance.blockerDiagnostics()).isTrue();
                });
    }

    /** A property, a bad value, and the library call that rejects the same value. */
    static Stream<Arguments> badProperties() {
        return Stream.of(
                Arguments.of("awa.schema=Bad-Schema",
                        (ThrowingCallable) () -> QueueStorageConfig.builder().schema("Bad-Schema")),
                Arguments.of("awa.storage.prune-lock-timeout=0ms",
                        (ThrowingCallable) () -> QueueStorageConfig.builder().pruneLockTimeout(Duration.ZERO)),
                Arguments.of("awa.storage.retry-backoff-jitter=1.5",
                        (ThrowingCallable) () -> QueueStorageConfig.builder().retryBackoffJitter(1.5)),
                Arguments.of("awa.maintenance.promote-batch-size=0",
                        (ThrowingCallable) () -> RingMaintenanceConfig.builder()
                                .task(MaintenanceTask.PROMOTE, p -> p.batchSize(0))),
                Arguments.of("awa.maintenance.rotate-interval=-1s",
                        (ThrowingCallable) () -> RingMaintenanceConfig.builder()
                                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofSeconds(-1)))),
                Arguments.of("awa.worker.concurrency=0",
                        (ThrowingCallable) () -> WorkerConfig.builder("emails", job -> Mono.empty()).concurrency(0)),
                Arguments.of("awa.worker.ack-max-delay=5s", (ThrowingCallable) () -> WorkerConfig
                        .builder("emails", job -> Mono.empty()).ackMaxDelay(Duration.ofSeconds(5))),
                Arguments.of("awa.stop-grace=-1s", (ThrowingCallable) () -> Validation
                        .requireNotNegative(Duration.ofSeconds(-1), "awa.stop-grace")));
    }

    @ParameterizedTest
    @MethodSource("badProperties")
    void shouldFailTheStartupWithTheLibrarysMessage(String property, ThrowingCallable library) {
        String message = catchMessage(library);

        runner.withPropertyValues(property).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message));
    }

    @Test
    void shouldFailTheStartupWhenTheDatabaseCannotBeReached() {
        runner.withPropertyValues("awa.auto-startup=true", "awa.startup-timeout=20s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(java.net.ConnectException.class);
        });
    }

    @Test
    void shouldRejectTwoHandlersForOneQueue() {
        runner.withBean("moreEmails", QueueHandler.class, () -> QueueHandler.of("emails", job -> Mono.empty()))
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("two QueueHandler beans name the queue \"emails\""));
    }

    @Test
    void shouldApplyAHandlersOwnWorkerOptionsAfterTheProperties() {
        runner.withPropertyValues("awa.worker.concurrency=4")
                .withBean("reports", QueueHandler.class, () -> QueueHandler.of("reports", job -> Mono.empty())
                        .configure(builder -> builder.concurrency(0)))
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessage(catchMessage(() -> WorkerConfig.builder("reports", job -> Mono.empty())
                                .concurrency(0))));
    }

    @Test
    void shouldServeTheOutcomeStreamOnlyInAReactiveWebApplicationThatAsksForIt() {
        ReactiveWebApplicationContextRunner web = new ReactiveWebApplicationContextRunner()
                .withConfiguration(AUTO_CONFIGURATIONS)
                .withUserConfiguration(Application.class)
                .withPropertyValues("awa.auto-startup=false");
        web.run(context -> assertThat(context).doesNotHaveBean("awaOutcomesRoute"));
        web.withPropertyValues("awa.web.outcomes-enabled=true").run(context -> assertThat(context)
                .hasNotFailed().getBean("awaOutcomesRoute").isInstanceOf(RouterFunction.class));
        runner.withPropertyValues("awa.web.outcomes-enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean("awaOutcomesRoute"));
        web.withPropertyValues("awa.web.outcomes-enabled=true", "awa.maintenance.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("awaOutcomesRoute"));
    }

    private static String catchMessage(ThrowingCallable library) {
        return assertThatIllegalArgumentException().isThrownBy(library).actual().getMessage();
    }
}
