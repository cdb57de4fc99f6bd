package io.awareactive.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.Ring;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

@AwaPostgresTest
final class DemoIntegrationTests {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void shouldShowBlockedThenPrunedOutcomesServeMetricsAndStopEverything(TestDatabase db) throws Exception {
        DemoOptions options = new DemoOptions(false, Duration.ofSeconds(10), db.server().r2dbcUrl(db.database()),
                db.newSchemaName(), 0, Duration.ofMillis(10), Duration.ofMillis(300), 1, 100, 1,
                Duration.ofSeconds(3), Duration.ofSeconds(3));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        AtomicReference<MetricsHttpServer> metrics = new AtomicReference<>();
        RingDemo demo = new RingDemo(options, new PrintStream(printed, true, StandardCharsets.UTF_8), metrics::set);

        CompletableFuture<DemoSummary> run = CompletableFuture.supplyAsync(demo::run);

        await().atMost(Duration.ofSeconds(30)).until(() -> metrics.get() != null || run.isDone());
        String url = metrics.get().url();
        // The engine registers its meters at zero when created, so they show up in the scrape while the demo runs.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(scrape(url))
                .contains("awa_maintenance_prune_attempts_total{awa_ring=\"queue\",awa_ring_outcome=\"pruned\"",
                        "awa_maintenance_prune_blocked_total", "awa_ring_generation"));

        DemoSummary summary = run.get(60, TimeUnit.SECONDS);
        String output = printed.toString(StandardCharsets.UTF_8);

        assertThat(summary.count(Ring.QUEUE, "blocked")).as(output).isPositive();
        assertThat(summary.blockedCauses()).as(output).containsKey("queue lock_timeout");
        assertThat(summary.blockers()).as(output).anyMatch(b -> b.contains(RingDemo.READER_APPLICATION_NAME));
        assertThat(summary.count(Ring.QUEUE, "pruned")).as(output).isPositive();
        assertThat(summary.resumedAfter()).as("queue prunes resumed after the reader let go\n" + output).isNotNull();
        assertThat(summary.count(Ring.LEASE, "pruned")).as(output).isPositive();
        // Claims write no receipts since schema step 7: the claim ring stays idle and every prune of it is a noop.
        assertThat(summary.count(Ring.CLAIM, "noop")).as(output).isPositive();
        assertThat(summary.count(Ring.CLAIM, "pruned")).as(output).isZero();
        assertThat(summary.enqueued()).isPositive();
        assertThat(summary.completed()).isPositive();
        assertThat(summary.counts().completed()).isPositive().isLessThanOrEqualTo(summary.enqueued());
        assertThat(summary.scrapes()).isPositive();

        assertThat(output)
                .contains("  >> contending reader pid ", "  >> blocked queue slot ",
                        "the oldest lock holder is pid ", RingDemo.READER_APPLICATION_NAME, "Summary after ")
                .containsPattern("(?m)^queue +\\d+/\\d+ +\\d+ +[1-9]\\d* +[1-9]\\d* ")
                .containsPattern("(?m)^ +\\ds  enqueued +\\d+/s  completed +\\d+/s \\| queue ");

        // Everything the demo started is stopped: its sessions are gone and the metrics port is closed.
        await().atMost(Duration.ofSeconds(10)).until(() -> db.queryLong(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name IN (?, ?)",
                RingDemo.APPLICATION_NAME, RingDemo.READER_APPLICATION_NAME) == 0);
        assertThatThrownBy(() -> scrape(url)).isInstanceOf(IOException.class);
    }

    private String scrape(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
