package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.PruneOutcome.Blocked;
import io.awareactive.core.PruneOutcome.Noop;
import io.awareactive.core.PruneOutcome.Pruned;
import io.awareactive.core.PruneOutcome.SkippedActive;
import io.awareactive.core.RotateOutcome.Rotated;
import io.awareactive.core.RotateOutcome.SkippedIdle;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Prune's live-work gates before and after the locks, live work, real truncates, the count hand-off and drain. */
@AwaPostgresTest
final class PruneGatesIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;
    private RingRows rows;

    PruneGatesIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installWithSlotZeroAsTarget() {
        schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
        rows = new RingRows(db, schema);
        for (Ring ring : Ring.values()) {
            rows.ledger(ring, 1, 1);
        }
    }

    private PruneOutcome prune(Ring ring) {
        return storage.prune(ring).block(WAIT);
    }

    private QueueStorage patient() {
        return QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                b -> b.pruneLockTimeout(Duration.ofSeconds(2))));
    }

    /** Prunes until the outcome is no longer Blocked (tolerated up to 5 s), as an engine's ticks would. */
    private PruneOutcome pruneUntilNotBlocked(Ring ring) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        PruneOutcome outcome = prune(ring);
        while (outcome instanceof Blocked && System.nanoTime() < deadline) {
            outcome = prune(ring);
        }
        return outcome;
    }

    @Test
    void shouldReportNoopOnAFreshRingEvenWithTheSerializerHeld() throws Exception {
        String fresh = db.newSchemaName();
        QueueStorage freshStorage = Fixtures.installed(db.connectionFactory(), fresh);
        for (Ring ring : Ring.values()) {
            assertThat(freshStorage.prune(ring).block(WAIT)).isEqualTo(new Noop());
            assertThat(freshStorage.sealedSlots(ring).block(WAIT)).isZero();
        }
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(hashtextextended('awa-reactive.ring:" + fresh + ":claim', 0))");
            assertThat(freshStorage.prune(Ring.CLAIM).block(WAIT)).isEqualTo(new Noop());
        }
    }

    @Test
    void shouldReportNoopWhenTheSlotRowIsMissing() {
        db.execute("DELETE FROM " + rows.t("lease_ring_slots") + " WHERE slot = 0");
        long filenode = rows.filenode("leases_0");
        assertThat(prune(Ring.LEASE)).isEqualTo(new Noop());
        assertThat(rows.filenode("leases_0")).isEqualTo(filenode);
    }

    @Test
    void shouldSkipAnOpenReceiptBeforeLockingSoAReaderCausesNoWait() throws Exception {
        db.execute(rows.receiptSql(0, 1, 1, 0, 0, 0));
        try (Connection reader = rows.reader("lease_claims_0")) {
            assertThat(prune(Ring.CLAIM)).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));
            reader.rollback();
        }
        assertThat(rows.rows("lease_claims_0")).isEqualTo(1);
    }

    @Test
    void shouldKeepATombstonedJobPendingUntilAClaimPassesIt() {
        long laneSeq = rows.enqueue(0, 0, 1);
        rows.cancelUnclaimed(0, 0, 1, laneSeq);
        assertThat(rows.terminalCount("cancelled")).isEqualTo(1);

        PruneOutcome skipped = prune(Ring.QUEUE);
        assertThat(skipped).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_PENDING_READY));
        assertThat(skipped.reasonLabel()).isEqualTo("queue.pending_ready");
        assertThat(rows.rows("ready_tombstones_0")).isEqualTo(1);

        // A claimer passing a tombstoned row spends it: a range row and the cursor advance, no lease.
        db.execute("INSERT INTO " + rows.t("ready_claim_ranges") + " (ready_slot, queue, priority, enqueue_shard,"
                + " first_lane_seq, next_lane_seq) VALUES (0, 'q', 2, 0, " + laneSeq + ", " + (laneSeq + 1) + ")");
        db.execute("SELECT setval(claim_seq, " + laneSeq + ") FROM " + rows.t("queue_lanes"));

        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class);
        assertThat(rows.rows("ready_entries_0") + rows.rows("ready_tombstones_0")).isZero();
        assertThat(rows.terminalCount("cancelled")).isEqualTo(1);
    }

    @Test
    void shouldNotBePinnedByAClaimCursorLaggingBehindACommittedRange() {
        long laneSeq = rows.enqueue(0, 0, 1);
        RingRows.Job job = rows.claim(0, 0, 1, laneSeq, 1, 1);
        rows.complete(job);
        // The after-commit advance failed: the cursor lags, the committed range covers the row.
        db.execute("SELECT setval(claim_seq, 0) FROM " + rows.t("queue_lanes"));

        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class);
    }

    @Test
    void shouldSeeAReceiptCommittedWhileThePruneWaitedForItsLock() throws Exception {
        CompletableFuture<PruneOutcome> prune;
        try (Connection writer = db.openJdbc(); Statement statement = writer.createStatement()) {
            writer.setAutoCommit(false);
            statement.execute(rows.receiptSql(0, 1, 1, 0, 0, 0));

            prune = patient().prune(Ring.CLAIM).toFuture();
            await().atMost(WAIT).until(() -> rows.waiters("lease_claims_0") == 1);
            writer.commit();
        }
        assertThat(prune.get(3, TimeUnit.SECONDS)).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));
        assertThat(rows.rows("lease_claims_0")).isEqualTo(1);
    }

    @Test
    void shouldSeeAReadyRowCommittedWhileThePruneWaitedForItsLock() throws Exception {
        CompletableFuture<PruneOutcome> prune;
        try (Connection writer = db.openJdbc(); Statement statement = writer.createStatement()) {
            writer.setAutoCommit(false);
            statement.execute(rows.enqueueSql(0, 0, 1));

            prune = patient().prune(Ring.QUEUE).toFuture();
            await().atMost(WAIT).until(() -> rows.waiters("ready_segments_0") == 1);
            writer.commit();
        }
        assertThat(prune.get(3, TimeUnit.SECONDS)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_PENDING_READY));
        assertThat(rows.rows("ready_entries_0")).isEqualTo(1);
        assertThat(rows.rows("ready_segments_0")).isEqualTo(1);
    }

    @Test
    void shouldKeepEveryRingOfARunningJobUntilItCompletes() {
        RingRows.Job job = rows.running(0, 0, 1, 0, 0);

        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        assertThat(prune(Ring.LEASE)).isEqualTo(new SkippedActive(0, SkipReason.LEASE_ACTIVE));
        assertThat(prune(Ring.CLAIM)).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));
        assertThat(rows.rows("leases_0")).isEqualTo(1);

        rows.complete(job);
        long completed = rows.terminalCount("completed");
        for (Ring ring : Ring.values()) {
            assertThat(pruneUntilNotBlocked(ring)).isInstanceOf(Pruned.class);
            assertThat(storage.cursor(ring).block(WAIT)).isEqualTo(new RingCursor(ring, 1, 1));
        }
        assertThat(completed).isEqualTo(1);
        assertThat(rows.terminalCount("completed")).isEqualTo(completed);
    }

    @Test
    void shouldKeepAnExpiredUnrescuedLeaseOpenUntilRescueClosesIt() {
        RingRows.Job job = rows.running(1, 1, 1, 1, 0);
        db.execute("UPDATE " + rows.t("leases_1") + " SET deadline_at = now() - interval '1 minute'");

        assertThat(prune(Ring.CLAIM)).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));

        // Rescue: delete the lease, close the receipt as rescued (the retry goes elsewhere).
        db.execute("DELETE FROM " + rows.t("leases_1"),
                rows.closureSql(0, job.receiptId(), job.jobId(), job.readySlot(), "rescued"));
        assertThat(prune(Ring.CLAIM)).isInstanceOf(Pruned.class);
    }

    @Test
    void shouldReportEachReachableSkipReasonFromRealRows() {
        // queue.unclosed_claim_refs: a receipt for a job of queue slot 0, in claim slot 1, never closed.
        long laneSeq = rows.enqueue(0, 0, 1);
        db.execute("INSERT INTO " + rows.t("ready_claim_ranges") + " (ready_slot, queue, priority, enqueue_shard,"
                        + " first_lane_seq, next_lane_seq) VALUES (0, 'q', 2, 0, " + laneSeq + ", " + (laneSeq + 1)
                        + ")",
                "SELECT setval(claim_seq, " + laneSeq + ") FROM " + rows.t("queue_lanes"),
                rows.receiptSql(1, 1, 1, 0, 0, 1));
        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_UNCLOSED_CLAIM_REFS));

        // queue.pending_ready outranks it once an unclaimed row sits in the slot.
        rows.enqueue(0, 0, 2);
        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_PENDING_READY));

        // queue.active_leases outranks both; the same lease makes its lease slot lease.active.
        db.execute("INSERT INTO " + rows.t("leases") + " (lease_slot, job_id, run_lease, lease_generation,"
                + " ready_slot, ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq,"
                + " attempt, max_attempts, worker_id, heartbeat_at) VALUES (0, 1, 1, 0, 0, 0, 1, 1, 'q', 2, 0, "
                + laneSeq + ", 1, 3, 'w', now())");
        PruneOutcome activeLeases = prune(Ring.QUEUE);
        assertThat(activeLeases).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        assertThat(activeLeases.reasonLabel()).isEqualTo("queue.active_leases");
        assertThat(prune(Ring.LEASE)).isEqualTo(new SkippedActive(0, SkipReason.LEASE_ACTIVE));

        // claim.open: a receipt in claim slot 0 without its closure.
        db.execute(rows.receiptSql(0, 2, 2, 0, 0, 0));
        PruneOutcome claimOpen = prune(Ring.CLAIM);
        assertThat(claimOpen).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));
        assertThat(claimOpen.label()).isEqualTo("skipped_active");
        assertThat(claimOpen.reasonLabel()).isEqualTo("claim.open");

        assertThat(rows.rows("ready_entries_0")).isEqualTo(2);
        assertThat(rows.rows("leases_0")).isEqualTo(1);
        assertThat(rows.rows("lease_claims_0")).isEqualTo(1);
    }

    @Test
    void shouldTruncateEveryRingForRealAndHandOffTheTerminalCounts() {
        RingRows.Job first = rows.running(0, 0, 1, 0, 0);
        rows.complete(first);
        RingRows.Job second = rows.running(0, 0, 2, 0, 0);
        rows.complete(second);
        // The first completion was rolled up earlier: its delta became a live count of slot 0.
        db.execute("DELETE FROM " + rows.t("queue_terminal_count_deltas_0") + " WHERE ctid = (SELECT ctid FROM "
                        + rows.t("queue_terminal_count_deltas_0") + " LIMIT 1)",
                "INSERT INTO " + rows.t("queue_terminal_live_counts") + " (ready_slot, queue, priority, state, count)"
                        + " VALUES (0, 'q', 2, 'completed', 1)");
        assertThat(rows.terminalCount("completed")).isEqualTo(2);
        long readyEntries = rows.filenode("ready_entries_0");
        long leases = rows.filenode("leases_0");
        long receipts = rows.filenode("lease_claims_0");

        for (Ring ring : Ring.values()) {
            PruneOutcome outcome = prune(ring);
            assertThat(outcome).isInstanceOf(Pruned.class);
            Pruned pruned = (Pruned) outcome;
            assertThat(pruned.slot()).isZero();
            assertThat(pruned.generation()).isZero();
            assertThat(pruned.label()).isEqualTo("pruned");
            assertThat(pruned.reasonLabel()).isEqualTo("none");
            assertThat(pruned.durations().lock()).isPositive();
            assertThat(pruned.durations().truncate()).isPositive();
            assertThat(pruned.durations().commit()).isPositive();
        }
        assertThat(rows.filenode("ready_entries_0")).isNotEqualTo(readyEntries);
        assertThat(rows.filenode("leases_0")).isNotEqualTo(leases);
        assertThat(rows.filenode("lease_claims_0")).isNotEqualTo(receipts);
        for (String child : new String[] {"ready_entries_0", "ready_segments_0", "ready_claim_ranges_0",
                "done_entries_0", "queue_terminal_count_deltas_0", "lease_claims_0", "lease_claim_closures_0"}) {
            assertThat(rows.rows(child)).as(child).isZero();
        }
        assertThat(rows.rows("queue_terminal_live_counts")).isZero();
        assertThat(db.queryLong("SELECT sum(count) FROM " + rows.t("queue_terminal_rollup_deltas")
                + " WHERE state = 'completed'")).isEqualTo(2);
        assertThat(rows.terminalCount("completed")).isEqualTo(2);
    }

    @Test
    void shouldDrainSealedSlotsThenLetRotationFreeze() {
        rows.ledger(Ring.QUEUE, 2, 2);
        rows.done(0, 0, 1, "completed");
        rows.done(1, 1, 2, "failed");
        assertThat(storage.sealedSlots(Ring.QUEUE).block(WAIT)).isEqualTo(2);

        assertThat(storage.rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new Rotated(3, 3));
        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class)
                .satisfies(o -> assertThat(((Pruned) o).slot()).isZero());
        assertThat(storage.sealedSlots(Ring.QUEUE).block(WAIT)).isEqualTo(1);
        assertThat(storage.rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new Rotated(0, 4));
        PruneOutcome second = prune(Ring.QUEUE);
        assertThat(second).isInstanceOf(Pruned.class);
        assertThat(((Pruned) second).slot()).isEqualTo(1);
        assertThat(((Pruned) second).generation()).isEqualTo(1);
        assertThat(storage.sealedSlots(Ring.QUEUE).block(WAIT)).isZero();

        assertThat(storage.rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new SkippedIdle(0, 4));
        assertThat(storage.rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new SkippedIdle(0, 4));
        assertThat(storage.cursor(Ring.QUEUE).block(WAIT)).isEqualTo(new RingCursor(Ring.QUEUE, 0, 4));
        assertThat(rows.terminalCount("completed")).isEqualTo(1);
        assertThat(rows.terminalCount("failed")).isEqualTo(1);
    }
}
