package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.Job;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The prune-cost fixture writes what the lifecycle writes: a slot filled by the real lifecycle and one filled by the
 * fixture hold the same rows per family, and the fixture's slot is pruned like a real one.
 */
@AwaPostgresTest
final class SlotFixtureIntegrationTests {

    private static final int JOBS = 100;
    private static final int ENQUEUE_BATCH = 20;
    private static final int CLAIM_BATCH = 5;

    @Test
    void shouldHoldTheSameRowsPerFamilyAsASlotTheLifecycleFilled(TestDatabase db) {
        try (BenchDatabase database = new BenchDatabase(db.server(), db.database(), false, "the test server")) {
            String real = db.newSchemaName();
            try (AwaQueue queue = open(database, real)) {
                queue.install().block(Duration.ofMinutes(1));
                for (int i = 0; i < JOBS / ENQUEUE_BATCH; i++) {
                    queue.enqueue(ENQUEUE_BATCH).block(Duration.ofSeconds(30));
                }
                for (int i = 0; i < JOBS / CLAIM_BATCH; i++) {
                    List<Job> jobs = queue.claim(CLAIM_BATCH, "bench-worker-0").block(Duration.ofSeconds(30));
                    assertThat(jobs).hasSize(CLAIM_BATCH);
                    queue.completeAll(jobs).block(Duration.ofSeconds(30));
                }
            }
            String fixture = db.newSchemaName();
            try (AwaQueue queue = open(database, fixture)) {
                queue.install().block(Duration.ofMinutes(1));
                SlotFixture.fill(database, fixture, JOBS, ENQUEUE_BATCH, CLAIM_BATCH, Payload.json(256));
            }

            List<Long> expected = SlotFixture.slotZeroCounts(database, real);
            // No receipts, closures or claim tallies (schema step 7), no lease but a row per claimed run (step 18),
            // no done row but a run closure per completed run (step 19), and the ended attempts leave a lease tally
            // of 0.
            assertThat(expected).containsExactly((long) JOBS, (long) JOBS / ENQUEUE_BATCH, (long) JOBS / CLAIM_BATCH,
                    0L, (long) JOBS / CLAIM_BATCH, 0L, 0L, 0L, (long) JOBS / CLAIM_BATCH, (long) JOBS / CLAIM_BATCH,
                    0L, 0L, 0L);
            assertThat(SlotFixture.slotZeroCounts(database, fixture)).isEqualTo(expected);
            assertThat(database.queryLong("SELECT count(*) FROM \"" + fixture + "\".queue_lanes")).isOne();
        }
    }

    @Test
    void shouldLetTheQueueAndLeasePrunesReclaimTheFixtureSlot(TestDatabase db) {
        try (BenchDatabase database = new BenchDatabase(db.server(), db.database(), false, "the test server")) {
            String schema = db.newSchemaName();
            try (AwaQueue queue = open(database, schema)) {
                queue.install().block(Duration.ofMinutes(1));
                SlotFixture.fill(database, schema, JOBS, ENQUEUE_BATCH, CLAIM_BATCH, Payload.json(256));
                assertThat(queue.storage().ringOperations().rotate(Ring.QUEUE).block()).isInstanceOf(RotateOutcome.Rotated.class);
                // The lease ring rotates only away from a slot holding a live lease: one job runs through it.
                queue.enqueue(1).block(Duration.ofSeconds(30));
                List<Job> live = queue.claim(1, "bench-worker-0").block(Duration.ofSeconds(30));
                assertThat(queue.storage().ringOperations().rotate(Ring.LEASE).block()).isInstanceOf(RotateOutcome.Rotated.class);
                queue.completeAll(live).block(Duration.ofSeconds(30));

                assertThat(queue.storage().ringOperations().prune(Ring.QUEUE).block()).isInstanceOf(PruneOutcome.Pruned.class);
                assertThat(queue.storage().ringOperations().prune(Ring.LEASE).block()).isInstanceOf(PruneOutcome.Pruned.class);
                assertThat(SlotFixture.slotZeroCounts(database, schema)).containsOnly(0L);
            }
        }
    }

    private static AwaQueue open(BenchDatabase database, String schema) {
        return new AwaQueue(database, schema, BenchDatabase.pool(database.connectionFactory("awa-bench-test"),
                "fixture-test", 2, false), Payload.json(256), 1,
                MaintenanceTask.ROLLUP.defaults().interval(), QueueStorageConfig.DEFAULT_MAX_STATEMENTS_IN_FLIGHT);
    }
}
