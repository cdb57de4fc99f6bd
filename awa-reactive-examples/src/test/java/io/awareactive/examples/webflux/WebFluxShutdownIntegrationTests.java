package io.awareactive.examples.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.spring.boot.AwaLifecycle;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

@AwaPostgresTest
final class WebFluxShutdownIntegrationTests {

    @Test
    @Timeout(90) // a stop that hangs is a failure, not a stuck build
    void shouldStopMaintenanceAndTheWorkerWithTheApplicationContext(TestDatabase db) {
        String applicationName = "awa-webflux-shutdown-test";
        ConfigurableApplicationContext context = WebFluxExampleIntegrationTests.start(db, db.newSchemaName(),
                applicationName);
        RingMaintenance maintenance = context.getBean(RingMaintenance.class);
        AwaLifecycle lifecycle = context.getBean(AwaLifecycle.class);
        await().atMost(Duration.ofSeconds(20)).until(maintenance::isLeader);
        assertThat(lifecycle.isRunning()).isTrue();
        // The leader holds its session-level advisory lock on a connection of the application (awaited: a ring
        // step in flight may hold its transaction-level serializer lock for a moment as well).
        await().atMost(Duration.ofSeconds(10)).until(() -> db.queryLong("SELECT count(*) FROM pg_locks l"
                + " JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND a.application_name = ?",
                applicationName) == 1);

        context.close();

        assertThat(maintenance.isDisposed()).isTrue();
        assertThat(maintenance.isLeader()).isFalse();
        assertThat(lifecycle.isRunning()).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> db.queryLong(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", applicationName) == 0);
    }
}
