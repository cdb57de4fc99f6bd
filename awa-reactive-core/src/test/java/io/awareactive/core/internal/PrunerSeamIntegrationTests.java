package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.SkipReason;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Prune through its package-private seam: the {@code lease.current} and {@code claim.current} guards, which cannot
 * fire through the public API (the target is always at least one slot behind the cursor), and a probe inside the
 * transaction.
 */
@AwaPostgresTest
final class PrunerSeamIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private ConnectionFactory factory;
    private Schema schema;

    PrunerSeamIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installWithCursorOneOnEveryRing() {
        factory = db.connectionFactory();
        String name = db.newSchemaName();
        QueueStorage.create(QueueStorageConfig.builder().connectionFactory(factory).schema(name)
                .queueSlotCount(4).leaseSlotCount(2).claimSlotCount(2).build()).install().block(WAIT);
        schema = new Schema(name);
        for (Ring ring : Ring.values()) {
            db.execute("INSERT INTO " + schema.ledger(ring) + " (generation, slot) VALUES (1, 1)");
        }
    }

    private Pruner forcingCurrentSlot() {
        UnaryOperator<SealedSlot> current = t -> new SealedSlot(t.currentSlot(), t.generation() + 1, t.currentSlot());
        return new Pruner(factory, schema, 10, new Pruner.Hooks(current, (c, t) -> Mono.empty()));
    }

    @Test
    void shouldGuardTheCurrentLeaseSlot() {
        db.execute("INSERT INTO " + schema.table(Table.LEASES) + " (lease_slot, job_id, run_lease, lease_generation,"
                + " ready_slot, ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq,"
                + " attempt, max_attempts, worker_id, heartbeat_at) VALUES (1, 1, 1, 1, 1, 1, 1, 1, 'q', 2, 0, 1, 1,"
                + " 3, 'w', now())");

        PruneOutcome outcome = forcingCurrentSlot().prune(Ring.LEASE).block(WAIT);

        assertThat(outcome).isEqualTo(new PruneOutcome.SkippedActive(1, SkipReason.LEASE_CURRENT));
        assertThat(outcome.reasonLabel()).isEqualTo("lease.current");
        assertThat(db.queryLong("SELECT count(*) FROM " + schema.child(Table.LEASES, 1))).isEqualTo(1);
    }

    @Test
    void shouldGuardTheCurrentClaimSlot() {
        db.execute("INSERT INTO " + schema.table(Table.LEASE_CLAIMS) + " (claim_slot, receipt_id, claim_generation,"
                        + " job_id, run_lease, ready_slot, ready_generation, lease_slot) VALUES (1, 1, 1, 1, 1, 1, 1, 1)",
                "INSERT INTO " + schema.table(Table.LEASE_CLAIM_CLOSURES) + " (claim_slot, receipt_id, job_id, run_lease,"
                        + " ready_slot, ready_generation, outcome) VALUES (1, 1, 1, 1, 1, 1, 'completed')");

        PruneOutcome outcome = forcingCurrentSlot().prune(Ring.CLAIM).block(WAIT);

        assertThat(outcome).isEqualTo(new PruneOutcome.SkippedActive(1, SkipReason.CLAIM_CURRENT));
        assertThat(outcome.reasonLabel()).isEqualTo("claim.current");
        assertThat(db.queryLong("SELECT count(*) FROM " + schema.child(Table.LEASE_CLAIMS, 1))).isEqualTo(1);
    }

    @Test
    void shouldRunEveryPruneStatementUnderTheTransactionLocalTimeoutAndGenericPlans() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Pruner probed = new Pruner(factory, schema, 777, new Pruner.Hooks(UnaryOperator.identity(),
                (c, t) -> Db.queryOne(c, "SELECT current_setting('lock_timeout') || ', '"
                        + " || current_setting('plan_cache_mode')",
                        row -> Db.get(row, 0, String.class)).doOnNext(seen::add).then()));

        for (Ring ring : Ring.values()) {
            assertThat(probed.prune(ring).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        }
        assertThat(seen).containsExactly("777ms, force_generic_plan", "777ms, force_generic_plan",
                "777ms, force_generic_plan");
    }
}
