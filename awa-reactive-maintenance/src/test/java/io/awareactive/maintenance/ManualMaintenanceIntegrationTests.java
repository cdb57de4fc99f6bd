package io.awareactive.maintenance;

import static io.awareactive.maintenance.Fixtures.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.awareactive.core.JobRequest;
import io.awareactive.core.JobState;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

@AwaPostgresTest
final class ManualMaintenanceIntegrationTests {

    private final TestDatabase db;

    ManualMaintenanceIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @Test
    void shouldPruneTheTargetSlotWhenTheQueueRingTickIsRunOnDemand() {
        QueueStorageConfig storage = Fixtures.installed(db, db.connectionFactory());
        Fixtures.makeSlotZeroTheTarget(db, storage);
        long filenodeBefore = Fixtures.filenode(db, storage, "done_entries_0");

        try (ManualMaintenance maintenance = ManualMaintenance.create(QueueStorage.create(storage))) {
            List<PruneEvent> events = maintenance.run(MaintenanceTask.RING_QUEUE).block(WAIT);

            assertThat(events).singleElement().satisfies(event -> {
                assertThat(event.ring()).isEqualTo(Ring.QUEUE);
                assertThat(event.outcome()).isInstanceOf(PruneOutcome.Pruned.class);
                assertThat(event.at()).isEqualTo(maintenance.clock().instant());
            });
            assertThat(Fixtures.filenode(db, storage, "done_entries_0")).isNotEqualTo(filenodeBefore);
        }
    }

    @Test
    void shouldPromoteADueJobOnlyWhenThePromotionRuns() {
        QueueStorageConfig storage = Fixtures.installed(db, db.connectionFactory());
        QueueStorage queue = QueueStorage.create(storage);
        long id = queue.enqueue(JobRequest.builder("mail", "send").runAt(Instant.now()).build()).block(WAIT);

        try (ManualMaintenance maintenance = ManualMaintenance.create(queue)) {
            assertThat(queue.status(id).block(WAIT).state()).isEqualTo(JobState.SCHEDULED);

            assertThat(maintenance.run(MaintenanceTask.PROMOTE).block(WAIT)).isEmpty();

            assertThat(queue.status(id).block(WAIT).state()).isEqualTo(JobState.AVAILABLE);
        }
    }

    @Test
    void shouldRunOnlyTheTasksWhoseIntervalElapsedWhenTimeAdvances() {
        QueueStorageConfig storage = Fixtures.installed(db, db.connectionFactory());
        QueueStorage queue = QueueStorage.create(storage);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (ManualMaintenance maintenance = ManualMaintenance.create(queue, b -> b.meterRegistry(registry)
                .task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofSeconds(1)))
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofSeconds(5))))) {
            Instant start = maintenance.clock().instant();
            long id = queue.enqueue(JobRequest.builder("mail", "send").runAt(Instant.now()).build()).block(WAIT);

            // Nothing is due before the first interval: the job stays scheduled and no ring ticks.
            assertThat(maintenance.advance(Duration.ofMillis(999)).block(WAIT)).isEmpty();
            assertThat(queue.status(id).block(WAIT).state()).isEqualTo(JobState.SCHEDULED);
            assertThat(generation(registry)).isNaN();

            // At 1 s the promotion is due (1 s), the lease and claim ticks (1 s default) too, the queue tick (5 s) not.
            List<PruneEvent> events = maintenance.advance(Duration.ofMillis(1)).block(WAIT);
            assertThat(maintenance.clock().instant()).isEqualTo(start.plusSeconds(1));
            assertThat(queue.status(id).block(WAIT).state()).isEqualTo(JobState.AVAILABLE);
            assertThat(events).extracting(PruneEvent::ring).containsExactly(Ring.LEASE, Ring.CLAIM);

            // Ten seconds at once: every ring ticks once (missed ticks coalesce).
            assertThat(maintenance.advance(Duration.ofSeconds(10)).block(WAIT)).extracting(PruneEvent::ring)
                    .containsExactly(Ring.QUEUE, Ring.LEASE, Ring.CLAIM);
            assertThat(generation(registry)).isNotNaN();
            assertThat(maintenance.advance(Duration.ZERO).block(WAIT)).isEmpty();
        }
        assertThat(registry.find("awa.ring.generation").gauges()).isEmpty();
    }

    @Test
    void shouldRunEveryTaskOnceInOrder() {
        QueueStorageConfig storage = Fixtures.installed(db, db.connectionFactory());

        try (ManualMaintenance maintenance = ManualMaintenance.create(QueueStorage.create(storage))) {
            assertThat(maintenance.runOnce().block(WAIT)).extracting(PruneEvent::ring)
                    .containsExactly(Ring.QUEUE, Ring.LEASE, Ring.CLAIM);
            assertThat(maintenance.runOnce().block(WAIT)).hasSize(3);
        }
    }

    @Test
    void shouldRejectBadArgumentsBeforeAnySql() {
        QueueStorage storage = QueueStorage.create(Fixtures.storage(db.connectionFactory(), db.newSchemaName()));

        assertThatIllegalArgumentException().isThrownBy(() -> ManualMaintenance.create(null))
                .withMessage("storage must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> ManualMaintenance.create(storage, null))
                .withMessage("options must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> ManualMaintenance.create(storage,
                        b -> b.task(MaintenanceTask.PROMOTE, p -> p.batchSize(0))))
                .withMessage("promote.batchSize must be between 1 and 10000, was 0");
        try (ManualMaintenance maintenance = ManualMaintenance.create(storage)) {
            assertThatIllegalArgumentException().isThrownBy(() -> maintenance.advance(Duration.ofMillis(-1)))
                    .withMessage("elapsed must not be null or negative, was PT-0.001S");
            assertThatIllegalArgumentException().isThrownBy(() -> maintenance.run(null))
                    .withMessage("task must not be null");
        }
    }

    private static double generation(SimpleMeterRegistry registry) {
        return registry.get("awa.ring.generation").tag("awa.ring", "queue").gauge().value();
    }
}
