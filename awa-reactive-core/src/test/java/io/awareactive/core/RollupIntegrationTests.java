package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RollupOutcome;
import io.awareactive.core.ring.RollupOutcome.Blocked;
import io.awareactive.core.ring.RollupOutcome.Rolled;
import io.awareactive.core.ring.RollupOutcome.SkippedMvccPinned;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The terminal-count rollup, the hand-off fold and the ledger trim. */
@AwaPostgresTest
final class RollupIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration PIN_AGE = Duration.ofSeconds(5);

    private final TestDatabase db;
    private QueueStorage storage;
    private RingRows rows;

    RollupIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    /** Queue cursor (2, 2): slots 0 and 1 sealed, each with terminal counts not yet rolled up. */
    @BeforeEach
    void installWithTwoSealedSlotsHoldingDeltas() {
        String schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
        rows = new RingRows(db, schema);
        rows.ledger(Ring.QUEUE, 1, 1);
        rows.ledger(Ring.QUEUE, 2, 2);
        rows.done(0, 0, 1, "completed");
        rows.done(0, 0, 2, "completed");
        rows.done(1, 1, 3, "failed");
        rows.done(2, 2, 4, "completed");
    }

    private List<RollupOutcome> rollup(int maxSlots) {
        return storage.ringOperations().rollup(maxSlots, PIN_AGE, 10_000).collectList().block(WAIT);
    }

    @Test
    void shouldFoldSealedSlotsOldestFirstWithCountsUnchanged() {
        long completed = rows.terminalCount("completed");
        long failed = rows.terminalCount("failed");

        List<RollupOutcome> outcomes = rollup(4);

        assertThat(outcomes).containsExactly(new Rolled(0, 0, 2), new Rolled(1, 1, 1));
        assertThat(outcomes).extracting(RollupOutcome::label).containsOnly("rolled");
        assertThat(rows.rows("queue_terminal_count_deltas_0") + rows.rows("queue_terminal_count_deltas_1")).isZero();
        assertThat(rows.rows("queue_terminal_count_deltas_2")).as("the current slot is not folded").isEqualTo(1);
        assertThat(db.queryLong("SELECT count FROM " + rows.t("queue_terminal_live_counts")
                + " WHERE ready_slot = 0 AND state = 'completed'")).isEqualTo(2);
        assertThat(rows.terminalCount("completed")).isEqualTo(completed);
        assertThat(rows.terminalCount("failed")).isEqualTo(failed);

        assertThat(rollup(4)).isEmpty();
        rows.done(0, 0, 5, "completed");
        assertThat(rollup(4)).containsExactly(new Rolled(0, 0, 1));
        assertThat(db.queryLong("SELECT count FROM " + rows.t("queue_terminal_live_counts")
                + " WHERE ready_slot = 0 AND state = 'completed'")).isEqualTo(3);
        assertThat(rows.terminalCount("completed")).isEqualTo(completed + 1);
    }

    @Test
    void shouldFoldAtMostMaxSlots() {
        assertThat(rollup(1)).containsExactly(new Rolled(0, 0, 2));
        assertThat(rows.rows("queue_terminal_count_deltas_1")).isEqualTo(1);
    }

    @Test
    void shouldBeBlockedByAReaderOfTheDeltaChildAndTruncateNothing() throws Exception {
        long filenode = rows.filenode("queue_terminal_count_deltas_0");
        try (Connection reader = rows.reader("queue_terminal_count_deltas_0")) {
            List<RollupOutcome> outcomes = rollup(1);

            assertThat(outcomes).containsExactly(new Blocked(0, BlockedCause.LOCK_TIMEOUT));
            assertThat(outcomes.get(0).label()).isEqualTo("blocked");
            assertThat(rows.rows("queue_terminal_count_deltas_0")).isEqualTo(2);
            assertThat(rows.rows("queue_terminal_live_counts")).isZero();
            reader.rollback();
        }
        assertThat(rows.filenode("queue_terminal_count_deltas_0")).isEqualTo(filenode);
        assertThat(rollup(1)).containsExactly(new Rolled(0, 0, 2));
        assertThat(rows.filenode("queue_terminal_count_deltas_0")).isNotEqualTo(filenode);
    }

    @Test
    void shouldBeBlockedWhenTheQueueSerializerIsHeld() throws Exception {
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(hashtextextended('awa-reactive.ring:"
                    + storage.config().schema() + ":queue', 0))");
            assertThat(rollup(4)).containsExactly(new Blocked(0, BlockedCause.SERIALIZER_BUSY),
                    new Blocked(1, BlockedCause.SERIALIZER_BUSY));
        }
        assertThat(rows.rows("queue_terminal_live_counts")).isZero();
    }

    @Test
    void shouldSkipWhileAnOldRepeatableReadSnapshotPinsTheHorizon() throws Exception {
        Duration pinAge = Duration.ofMillis(100);
        try (Connection reader = db.openJdbc(); Statement statement = reader.createStatement()) {
            reader.setAutoCommit(false);
            statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            statement.execute("SELECT count(*) FROM " + rows.t("queue_ring_rotations"));
            await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_stat_activity WHERE backend_xmin"
                    + " IS NOT NULL AND clock_timestamp() - xact_start > interval '200 milliseconds'"
                    + " AND pid <> pg_backend_pid()") >= 1);

            List<RollupOutcome> outcomes = storage.ringOperations().rollup(4, pinAge, 10_000).collectList().block(WAIT);

            assertThat(outcomes).containsExactly(new SkippedMvccPinned(0));
            assertThat(outcomes.get(0).label()).isEqualTo("skipped_mvcc_pinned");
            assertThat(rows.rows("queue_terminal_count_deltas_0")).isEqualTo(2);
            assertThat(rows.rows("queue_terminal_live_counts")).isZero();
            reader.rollback();
        }
        assertThat(storage.ringOperations().rollup(4, pinAge, 10_000).collectList().block(WAIT))
                .containsExactly(new Rolled(0, 0, 2), new Rolled(1, 1, 1));
    }

    @Test
    void shouldFoldHandOffDeltasIntoRollupsWithCountsUnchanged() {
        rows.ledger(Ring.QUEUE, 3, 3);
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        long completed = rows.terminalCount("completed");
        assertThat(rows.rows("queue_terminal_rollup_deltas")).isEqualTo(1);

        assertThat(storage.ringOperations().foldTerminalCounts().block(WAIT)).isEqualTo(1);
        assertThat(rows.rows("queue_terminal_rollup_deltas")).isZero();
        assertThat(db.queryLong("SELECT count FROM " + rows.t("queue_terminal_rollups")
                + " WHERE state = 'completed'")).isEqualTo(2);
        assertThat(rows.terminalCount("completed")).isEqualTo(completed);
        assertThat(storage.ringOperations().foldTerminalCounts().block(WAIT)).isZero();
    }

    @Test
    void shouldTrimEachLedgerToOneLapWithoutMovingTheCursor() {
        for (long generation = 3; generation <= 9; generation++) {
            rows.ledger(Ring.QUEUE, generation, (int) (generation % 4));
        }
        rows.ledger(Ring.LEASE, 1, 1);
        rows.ledger(Ring.LEASE, 2, 0);
        rows.ledger(Ring.LEASE, 3, 1);

        assertThat(storage.ringOperations().trimLedgers().block(WAIT)).isEqualTo(6 + 2);
        assertThat(rows.rows("queue_ring_rotations")).isEqualTo(4);
        assertThat(rows.rows("lease_ring_rotations")).isEqualTo(2);
        assertThat(rows.rows("claim_ring_rotations")).isEqualTo(1);
        assertThat(storage.ringOperations().cursor(Ring.QUEUE).block(WAIT)).isEqualTo(new RingCursor(Ring.QUEUE, 1, 9));
        assertThat(storage.ringOperations().cursor(Ring.LEASE).block(WAIT)).isEqualTo(new RingCursor(Ring.LEASE, 1, 3));
        assertThat(storage.ringOperations().trimLedgers().block(WAIT)).isZero();
    }

    @Test
    void shouldRejectBadArgumentsAtCallTime() {
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().rollup(0, PIN_AGE, 1))
                .withMessage("maxSlots must be between 1 and 64, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().rollup(65, PIN_AGE, 1))
                .withMessage("maxSlots must be between 1 and 64, was 65");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().rollup(4, Duration.ZERO, 1))
                .withMessage("mvccPinMinAge must be greater than 0, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().rollup(4, null, 1))
                .withMessage("mvccPinMinAge must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().rollup(4, PIN_AGE, 0))
                .withMessage("mvccPinMinXids must be greater than 0, was 0");
    }
}
