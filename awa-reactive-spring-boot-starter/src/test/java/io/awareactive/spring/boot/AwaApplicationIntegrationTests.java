package io.awareactive.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.BlockingCallGuard;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One real Spring Boot WebFlux application against the testkit's PostgreSQL, configured only by properties and a
 * {@link QueueHandler} bean, shared by every test: jobs run, health is UP with a leader, the outcome stream delivers
 * events, the Prometheus scrape holds the awa-reactive series, and the shipped dashboard and alert rules use only
 * metrics, labels and values that scrape has. Nothing blocks a Reactor thread meanwhile.
 */
@AwaPostgresTest
final class AwaApplicationIntegrationTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicLong HANDLED = new AtomicLong();

    private static ConfigurableApplicationContext context;
    private static WebTestClient client;

    /** The application: auto-configuration and one handler. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
        @Bean
        QueueHandler greetings() {
            return QueueHandler.of("greetings", job -> Mono.fromRunnable(HANDLED::incrementAndGet));
        }
    }

    @BeforeAll
    static void startApplication(TestDatabase db) {
        BlockingCallGuard.clear();
        context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.REACTIVE).run(
                "--server.port=0",
                "--spring.r2dbc.url=" + db.server().r2dbcUrl(db.database()),
                "--awa.schema=" + db.newSchemaName(),
                "--awa.maintenance.rotate-interval=200ms",
                "--awa.web.outcomes-enabled=true",
                "--awa.stop-grace=2s",
                "--management.endpoints.web.exposure.include=health,prometheus",
                "--management.endpoint.health.show-details=always");
        client = WebTestClient.bindToServer()
                .baseUrl("http://localhost:" + context.getEnvironment().getProperty("local.server.port"))
                .responseTimeout(TIMEOUT)
                .build();
    }

    @AfterAll
    @Timeout(60) // a stop that hangs is a failure, not a stuck build
    static void stopApplication() {
        if (context != null) {
            AwaLifecycle lifecycle = context.getBean(AwaLifecycle.class);
            RingMaintenance maintenance = context.getBean(RingMaintenance.class);
            context.close();
            assertThat(lifecycle.isRunning()).isFalse();
            assertThat(maintenance.isDisposed()).isTrue();
            assertThat(maintenance.isLeader()).isFalse();
        }
        BlockingCallGuard.assertNoViolations();
    }

    private static String scrape() {
        return client.get().uri("/actuator/prometheus").exchange()
                .expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
    }

    @Test
    void shouldRunTheJobsOfAHandlerBean() {
        QueueStorage storage = context.getBean(QueueStorage.class);
        long before = HANDLED.get();

        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobs.add(JobRequest.builder("greetings", "hello").args("{\"n\":" + i + "}").build());
        }
        storage.enqueueAll(Flux.fromIterable(jobs)).collectList().block(TIMEOUT);

        await().atMost(TIMEOUT).until(() -> HANDLED.get() >= before + 5);
        await().atMost(TIMEOUT).until(() -> storage.counts("greetings").block(TIMEOUT).completed() >= 5);
    }

    @Test
    void shouldReportHealthUpWithALeaderAndEveryRing() {
        await().atMost(TIMEOUT).untilAsserted(() -> client.get().uri("/actuator/health")
                .exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.components.awa.status").isEqualTo("UP")
                .jsonPath("$.components.awa.details.maintenance").isEqualTo("running")
                .jsonPath("$.components.awa.details.leader").isEqualTo(true)
                .jsonPath("$.components.awa.details.rings.queue.slotCount").isEqualTo(16)
                .jsonPath("$.components.awa.details.rings.lease.sealedSlots").isNumber()
                .jsonPath("$.components.awa.details.rings.claim.generation").isNumber()
                .jsonPath("$.components.awa.details.rings.queue.lastOutcome").isNotEmpty());
    }

    @Test
    void shouldStreamPruneOutcomesAsServerSentEvents() {
        List<ServerSentEvent<Map<String, Object>>> events = client.get().uri("/awa/outcomes")
                .accept(MediaType.TEXT_EVENT_STREAM)
                .exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_EVENT_STREAM)
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>>() { })
                .getResponseBody()
                .take(3)
                .collectList()
                .block(TIMEOUT);

        assertThat(events).hasSize(3).allSatisfy(event -> {
            assertThat(event.data()).containsKeys("ring", "outcome", "at");
            assertThat(event.data().get("ring")).isIn("queue", "lease", "claim");
            assertThat(event.event()).isEqualTo(event.data().get("outcome"));
        });
    }

    @Test
    void shouldExportTheMaintenanceAndWorkerSeriesOnThePrometheusScrape() {
        assertThat(scrape()).contains(
                "awa_maintenance_prune_attempts_total{awa_ring=\"queue\",awa_ring_outcome=\"pruned\"",
                "awa_maintenance_prune_blocked_total{awa_ring=\"claim\",awa_ring_cause=\"nowait\"}",
                "awa_ring_sealed_slots{awa_ring=\"lease\"}",
                "awa_maintenance_leader ",
                "awa_worker_job_duration_seconds_count{awa_queue=\"greetings\",awa_worker_outcome=\"completed\"}",
                "awa_worker_claim_duration_seconds_count{awa_queue=\"greetings\"}",
                "awa_worker_running{awa_queue=\"greetings\"}");
    }

    @Test
    void shouldFindEveryMetricLabelAndValueOfTheDashboardAndTheRulesInTheScrape() throws Exception {
        String scrape = scrape();

        assertThat(MonitoringAssets.problems(MonitoringAssets.dashboardQueries(), scrape)).isEmpty();
        assertThat(MonitoringAssets.problems(MonitoringAssets.ruleQueries(), scrape)).isEmpty();
    }
}
