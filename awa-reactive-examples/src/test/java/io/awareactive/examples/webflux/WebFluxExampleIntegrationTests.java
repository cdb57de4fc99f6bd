package io.awareactive.examples.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.QueueStorage;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.spring.boot.AwaProperties;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

/**
 * The WebFlux example against a real PostgreSQL: the application is started as {@code main} would (its
 * application.properties included), on a free port, with the test database's URL and its own schema.
 */
@AwaPostgresTest
final class WebFluxExampleIntegrationTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>> EVENT =
            new ParameterizedTypeReference<>() { };

    private static ConfigurableApplicationContext context;
    private static WebTestClient client;

    @BeforeAll
    static void startApplication(TestDatabase db) {
        context = start(db, db.newSchemaName(), "awa-webflux-example-test");
        client = client(context);
    }

    @AfterAll
    @Timeout(60) // a stop that hangs is a failure, not a stuck build
    static void stopApplication() {
        if (context != null) {
            context.close();
        }
    }

    static ConfigurableApplicationContext start(TestDatabase db, String schema, String applicationName) {
        // Command-line arguments outrank application.properties, as they would for `java -jar`.
        return new SpringApplicationBuilder(AwaWebFluxExample.class).run(
                "--server.port=0",
                "--spring.r2dbc.url=" + db.server().r2dbcUrl(db.database()) + "?applicationName=" + applicationName,
                "--awa.schema=" + schema,
                // Default slot counts: a finished job's status stays readable for about 15 rotations.
                "--awa.maintenance.rotate-interval=500ms",
                "--awa.stop-grace=2s");
    }

    static WebTestClient client(ConfigurableApplicationContext context) {
        return WebTestClient.bindToServer()
                .baseUrl("http://localhost:" + context.getEnvironment().getProperty("local.server.port"))
                .responseTimeout(TIMEOUT)
                .build();
    }

    private static long enqueue(String json) {
        return enqueue(json, "greet");
    }

    private static long enqueue(String json, String kind) {
        Map<String, Long> created = client.post().uri("/jobs?kind={kind}", kind)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(json)
                .exchange()
                .expectStatus().isCreated()
                .expectHeader().valueMatches("Location", "/jobs/\\d+")
                .expectBody(new ParameterizedTypeReference<Map<String, Long>>() { })
                .returnResult().getResponseBody();
        assertThat(created).containsKey("id");
        return created.get("id");
    }

    private static long completed() {
        Map<String, Object> counts = client.get().uri("/queues/jobs/counts")
                .exchange()
                .expectStatus().isOk()
                .expectBody(new ParameterizedTypeReference<Map<String, Object>>() { })
                .returnResult().getResponseBody();
        return ((Number) counts.get("completed")).longValue();
    }

    @Test
    void shouldEnqueueOverHttpAndCompleteTheJobWithTheWorker() {
        long before = completed();

        enqueue("{\"name\":\"Ada\"}");

        // Terminal counts are exact and outlive prunes; a finished job's own row goes with its slot's prune.
        await().atMost(TIMEOUT).until(() -> completed() > before);
        assertThat(context.getBean(GreetingHandler.class).handled()).isPositive();
    }

    @Test
    void shouldReadTheStatusOfAJob() {
        // A slow job runs for 3 s, so its slot cannot be pruned while the test reads it.
        long id = enqueue("{\"name\":\"Grace\"}", "slow");

        client.get().uri("/jobs/{id}", id)
                .exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.jobId").isEqualTo(id)
                .jsonPath("$.queue").isEqualTo("jobs")
                .jsonPath("$.kind").isEqualTo("slow")
                .jsonPath("$.state").value(state -> assertThat(state).isIn("AVAILABLE", "RUNNING"));
    }

    @Test
    void shouldAnswerNotFoundForAnUnknownJob() {
        client.get().uri("/jobs/{id}", Long.MAX_VALUE).exchange().expectStatus().isNotFound();
    }

    @Test
    void shouldBindThePruneLockTimeoutPropertyAsADuration() {
        // application.properties says awa.storage.prune-lock-timeout=50ms.
        assertThat(context.getBean(AwaProperties.class).getStorage().getPruneLockTimeout())
                .isEqualTo(Duration.ofMillis(50));
        assertThat(context.getBean(QueueStorage.class).config().effectivePruneLockTimeout())
                .isEqualTo(Duration.ofMillis(50));
        assertThat(context.getBean(QueueStorage.class).ringOperations().pruneLockTimeout())
                .isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void shouldExportTheAwaMetersOnActuatorPrometheus() {
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(client.get().uri("/actuator/prometheus")
                .exchange()
                .expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody())
                .contains("awa_maintenance_prune_attempts_total{awa_ring=\"queue\",awa_ring_outcome=\"pruned\"",
                        "awa_maintenance_prune_blocked_total{awa_ring=\"queue\",awa_ring_cause=\"lock_timeout\"}",
                        "awa_maintenance_rotate_attempts_total{", "awa_ring_generation{awa_ring=\"lease\"}",
                        "awa_maintenance_leader 1.0"));
    }

    @Test
    void shouldStreamRealPruneOutcomesAsServerSentEvents() {
        Flux<ServerSentEvent<Map<String, Object>>> events = client.get().uri("/maintenance/outcomes")
                .accept(MediaType.TEXT_EVENT_STREAM)
                .exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_EVENT_STREAM)
                .returnResult(EVENT)
                .getResponseBody();
        // Jobs give the rings rows to recycle, so prunes truncate slots for real.
        for (int i = 0; i < 5; i++) {
            enqueue("{\"n\":" + i + "}");
        }

        List<ServerSentEvent<Map<String, Object>>> received = events
                .takeUntil(event -> "pruned".equals(event.event()))
                .collectList()
                .block(TIMEOUT);

        assertThat(received).isNotEmpty().allSatisfy(event -> {
            assertThat(event.data()).containsKeys("ring", "outcome", "at");
            assertThat(event.data().get("ring")).isIn("queue", "lease", "claim");
            assertThat(event.event()).isEqualTo(event.data().get("outcome"));
        });
        ServerSentEvent<Map<String, Object>> pruned = received.get(received.size() - 1);
        assertThat(pruned.event()).isEqualTo("pruned");
        assertThat(pruned.data()).containsKeys("slot", "generation");
    }

    @Test
    void shouldReportMaintenanceLeadershipAndRingHealth() {
        await().atMost(TIMEOUT).untilAsserted(() -> client.get().uri("/actuator/health")
                .exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.components.awa.status").isEqualTo("UP")
                .jsonPath("$.components.awa.details.maintenance").isEqualTo("running")
                .jsonPath("$.components.awa.details.leader").isEqualTo(true)
                .jsonPath("$.components.awa.details.rings.queue.slotCount").isEqualTo(16)
                .jsonPath("$.components.awa.details.rings.lease.slotCount").isEqualTo(8)
                .jsonPath("$.components.awa.details.rings.claim.generation").isNumber()
                .jsonPath("$.components.awa.details.rings.queue.lastOutcome").isNotEmpty());
    }
}
