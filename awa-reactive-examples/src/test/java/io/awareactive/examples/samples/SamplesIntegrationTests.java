package io.awareactive.examples.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

@AwaPostgresTest
final class SamplesIntegrationTests {

    @Test
    void shouldRunTheReadmeQuickStart(TestDatabase db) {
        // The quick start uses the default schema awa_reactive: give it a database of its own.
        TestDatabase own = db.newDatabase();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        QuickStart.Started started = QuickStart.run(own.connectionFactory(), registry);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    started.storage().counts("emails").block(Duration.ofSeconds(5)).completed() == 1);
            await().atMost(Duration.ofSeconds(20)).until(started.maintenance()::isLeader);
            assertThat(registry.find("awa.maintenance.prune.attempts").counters()).isNotEmpty();
            assertThat(own.queryLong("SELECT count(*) FROM awa_reactive.awa_reactive_schema_version")).isPositive();
        } finally {
            started.worker().stop(Duration.ofSeconds(5)).block(Duration.ofSeconds(15));
            started.maintenance().stop(Duration.ofSeconds(5)).block(Duration.ofSeconds(15));
        }
    }
}
