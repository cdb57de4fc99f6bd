package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.PruneOutcome.Noop;
import io.awareactive.core.ring.PruneOutcome.Pruned;
import io.awareactive.core.ring.PruneOutcome.SkippedActive;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RotateOutcome.Rotated;
import io.awareactive.core.ring.RotateOutcome.SkippedIdle;
import io.awareactive.core.ring.SkipReason;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Prune's live-work gates before and after the locks, live work (design §12 scenario 10, through the real job
 * lifecycle), real truncates, the count hand-off and drain. The other scenarios write their rows with {@link RingRows}.
 */
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
    void install() {
        schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
        rows = new RingRows(db, schema);
    }

    /** For the JDBC fixtures: a ledger row {@code (1, 1)} per ring makes slot 0, generation 0 the prune target. */
    private void targetSlotZero() {
        for (Ring ring : Ring.values()) {
            rows.ledger(ring, 1, 1);
        }
    }

    private PruneOutcome prune(Ring ring) {
        return storage.ringOperations().prune(ring).block(WAIT);
    }

    private QueueStorage patient() {
        return QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                b -> b.pruneLockTimeout(Duration.ofSeconds(2))));
    }

    private PruneOutcome pruneUntilNotBlocked(Ring ring) {
        return Fixtures.pruneUntilNotBlocked(storage, ring, WAIT);
    }

    @Test
    void shouldReportNoopOnAFreshRingEvenWithTheSerializerHeld() throws Exception {
        for (Ring ring : Ring.values()) {
            assertThat(prune(ring)).isEqualTo(new Noop());
            assertThat(storage.ringOperations().sealedSlots(ring).block(WAIT)).isZero();
        }
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(hashtextextended('awa-reactive.ring:" + schema + ":claim', 0))");
            assertThat(prune(Ring.CLAIM)).isEqualTo(new Noop());
        }
    }

    @Test
    void shouldReportNoopWhenTheSlotRowIsMissing() {
        targetSlotZero();
        db.execute("DELETE FROM " + rows.t("lease_ring_slots") + " WHERE slot = 0");
        long filenode = rows.filenode("leases_0");
        assertThat(prune(Ring.LEASE)).isEqualTo(new Noop());
        assertThat(rows.filenode("leases_0")).isEqualTo(filenode);
    }

    @Test
    void shouldSkipAnOpenReceiptBeforeLockingSoAReaderCausesNoWait() throws Exception {
        targetSlotZero();
        db.execute(rows.receiptSql(0, 1, 1, 0, 0, 0));
        try (Connection reader = rows.reader("lease_claims_0")) {
            assertThat(prune(Ring.CLAIM)).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));
            reader.rollback();
        }
        assertThat(rows.rows("lease_claims_0")).isEqualTo(1);
    }

    @Test
    void shouldKeepATombstonedJobPendingUntilAClaimPassesIt() {
        targetSlotZero();
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
        targetSlotZero();
        long laneSeq = rows.enqueue(0, 0, 1);
        RingRows.Job job = rows.claim(0, 0, 1, laneSeq, 1, 1);
        rows.complete(job);
        // The after-commit advance failed: the cursor lags, the committed range covers the row.
        db.execute("SELECT setval(claim_seq, 0) FROM " + rows.t("queue_lanes"));

        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class);
    }

    @Test
    void shouldJudgeEachLaneOfTheSlotByItsOwnCursor() {
        // Lane (q, 1) runs three positions ahead of lane (q, 4), whose only job is still unclaimed.
        for (int priority : new int[] {1, 1, 1, 4}) {
            storage.enqueue(JobRequest.builder("q", "k").priority(priority).build()).block(WAIT);
        }
        List<Job> urgent = storage.claim("q", 3, "w").collectList().block(WAIT);
        assertThat(urgent).extracting(Job::priority).containsOnly(1);
        urgent.forEach(job -> storage.complete(job).block(WAIT));
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isInstanceOf(Rotated.class);
        // The lease slot holding the finished runs goes first: a queue slot outlives the claimed runs of its rows.
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(Rotated.class);
        assertThat(prune(Ring.LEASE)).isInstanceOf(Pruned.class);

        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_PENDING_READY));

        Job last = storage.claim("q", 1, "w").single().block(WAIT);
        assertThat(last.priority()).isEqualTo(4);
        storage.complete(last).block(WAIT);
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(Rotated.class);
        assertThat(prune(Ring.LEASE)).isInstanceOf(Pruned.class);
        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class);
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(4);
    }

    @Test
    void shouldSeeAReceiptCommittedWhileThePruneWaitedForItsLock() throws Exception {
        targetSlotZero();
        CompletableFuture<PruneOutcome> prune;
        try (Connection writer = db.openJdbc(); Statement statement = writer.createStatement()) {
            writer.setAutoCommit(false);
            statement.execute(rows.receiptSql(0, 1, 1, 0, 0, 0));

            prune = patient().ringOperations().prune(Ring.CLAIM).toFuture();
            await().atMost(WAIT).until(() -> rows.waiters("lease_claims_0") == 1);
            writer.commit();
        }
        assertThat(prune.get(3, TimeUnit.SECONDS)).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));
        assertThat(rows.rows("lease_claims_0")).isEqualTo(1);
    }

    @Test
    void shouldSeeAReadyRowCommittedWhileThePruneWaitedForItsLock() throws Exception {
        targetSlotZero();
        CompletableFuture<PruneOutcome> prune;
        // The prune waits for ready_segments_0, then locks the slot's other children NOWAIT. A writer releases its
        // locks in no set order at commit, so the prune could wake while the writer still held ready_entries_0. A
        // second transaction keeps the prune waiting until the writer has committed and released everything.
        try (Connection writer = db.openJdbc(); Statement statement = writer.createStatement();
                Connection holder = db.openJdbc(); Statement hold = holder.createStatement()) {
            writer.setAutoCommit(false);
            statement.execute(rows.enqueueSql(0, 0, 1));
            holder.setAutoCommit(false);
            hold.execute("LOCK TABLE " + rows.t("ready_segments_0") + " IN ROW EXCLUSIVE MODE");

            prune = patient().ringOperations().prune(Ring.QUEUE).toFuture();
            await().atMost(WAIT).until(() -> rows.waiters("ready_segments_0") == 1);
            writer.commit();
            assertThat(prune).isNotDone();
            holder.commit();
        }
        assertThat(prune.get(3, TimeUnit.SECONDS)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_PENDING_READY));
        assertThat(rows.rows("ready_entries_0")).isEqualTo(1);
        assertThat(rows.rows("ready_segments_0")).isEqualTo(1);
    }

    /** Enqueues one job through the API and claims it: slots 0 of every ring, generation 0. */
    private Job runningJob(JobRequest request) {
        long id = storage.enqueue(request).block(WAIT);
        Job job = storage.claim(RingRows.QUEUE, 1, "w").single().block(WAIT);
        assertThat(job.id()).isEqualTo(id);
        assertThat(List.of(job.readySlot(), job.leaseSlot(), job.claimSlot())).containsOnly(0);
        assertThat(job.readyGeneration()).isZero();
        return job;
    }

    private QueueCounts counts() {
        return storage.counts(RingRows.QUEUE).block(WAIT);
    }

    @Test
    void shouldKeepEveryRingOfARunningJobUntilItCompletes() {
        Job job = runningJob(JobRequest.builder(RingRows.QUEUE, "k").build());
        // The queue and lease rings move on, so the running job's slots become the prune targets. The claim ring
        // holds nothing (since schema step 7 a claim writes no receipt), so it stays where it is.
        for (Ring ring : List.of(Ring.QUEUE, Ring.LEASE)) {
            assertThat(storage.ringOperations().rotate(ring).block(WAIT)).isEqualTo(new Rotated(1, 1));
        }
        assertThat(storage.ringOperations().rotate(Ring.CLAIM).block(WAIT)).isEqualTo(new SkippedIdle(0, 0));
        QueueCounts running = new QueueCounts(RingRows.QUEUE, 0, 1, 0, 0, 0, 0);
        assertThat(counts()).isEqualTo(running);

        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        assertThat(prune(Ring.LEASE)).isEqualTo(new SkippedActive(0, SkipReason.LEASE_ACTIVE));
        assertThat(prune(Ring.CLAIM)).isEqualTo(new Noop());
        assertThat(storage.heartbeat(job).block(WAIT)).isTrue();
        assertThat(counts()).isEqualTo(running);

        assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        QueueCounts completed = new QueueCounts(RingRows.QUEUE, 0, 0, 0, 1, 0, 0);
        assertThat(counts()).isEqualTo(completed);
        assertThat(storage.status(job.id()).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        // The lease slot first: a queue slot outlives the claimed runs of its rows.
        for (Ring ring : List.of(Ring.LEASE, Ring.QUEUE)) {
            assertThat(pruneUntilNotBlocked(ring)).as(ring.label()).isInstanceOf(Pruned.class)
                    .satisfies(o -> assertThat(((Pruned) o).slot()).isZero())
                    .satisfies(o -> assertThat(((Pruned) o).generation()).isZero());
            assertThat(storage.ringOperations().cursor(ring).block(WAIT)).isEqualTo(new RingCursor(ring, 1, 1));
        }
        // The job's ring history is gone; its count is not.
        assertThat(storage.status(job.id()).blockOptional(WAIT)).isEmpty();
        assertThat(counts()).isEqualTo(completed);
    }

    @Test
    void shouldKeepAnExpiredUnrescuedLeaseOpenUntilRescueClosesIt() {
        Job job = runningJob(JobRequest.builder(RingRows.QUEUE, "k").timeout(Duration.ofMillis(1)).build());
        assertThat(job.deadline()).isNotNull();
        await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM " + rows.t("lease_runs")
                + " WHERE deadlines[1] < now()") == 1);
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isEqualTo(new Rotated(1, 1));

        // Expired but not rescued (no engine runs): the attempt still counts as running and its run as live.
        assertThat(prune(Ring.LEASE)).isEqualTo(new SkippedActive(0, SkipReason.LEASE_ACTIVE));
        assertThat(counts()).isEqualTo(new QueueCounts(RingRows.QUEUE, 0, 1, 0, 0, 0, 0));

        // Rescue ends the attempt; the retry waits out its backoff elsewhere.
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isEqualTo(1);
        QueueCounts rescued = new QueueCounts(RingRows.QUEUE, 0, 0, 1, 0, 0, 0);
        assertThat(counts()).isEqualTo(rescued);
        assertThat(pruneUntilNotBlocked(Ring.LEASE)).isInstanceOf(Pruned.class)
                .satisfies(o -> assertThat(((Pruned) o).slot()).isZero());
        assertThat(rows.rows("lease_runs_0")).isZero();
        assertThat(counts()).isEqualTo(rescued);
        assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.LOST);
    }

    @Test
    void shouldReportEachReachableSkipReasonFromRealRows() {
        targetSlotZero();
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
        targetSlotZero();
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
    void shouldHandOffTheSlotsCountsPerQueuePriorityAndStateExactly() {
        targetSlotZero();
        String deltas = rows.t("queue_terminal_count_deltas_0");
        String live = rows.t("queue_terminal_live_counts");
        // Deltas of several sizes in every group, a group with only a folded count, and another slot's folded count.
        db.execute("INSERT INTO " + deltas + " (ready_slot, ready_generation, queue, priority, state, delta)"
                        + " SELECT 0, 0, q, p, s, d FROM unnest(ARRAY['a', 'b']) q, unnest(ARRAY[1, 2]::smallint[]) p,"
                        + " unnest(ARRAY['completed', 'failed']) s, unnest(ARRAY[1, 3, 7]) d",
                "INSERT INTO " + deltas + " (ready_slot, ready_generation, queue, priority, state, delta)"
                        + " VALUES (0, 0, 'a', 1, 'completed', 100)",
                "INSERT INTO " + live + " (ready_slot, queue, priority, state, count) VALUES"
                        + " (0, 'a', 1, 'completed', 1000), (0, 'b', 2, 'cancelled', 5), (1, 'a', 1, 'completed', 9)");

        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class);

        List<String> handedOff = db.query("SELECT queue || ' ' || priority || ' ' || state || ' ' || count FROM "
                + rows.t("queue_terminal_rollup_deltas") + " ORDER BY 1", rs -> rs.getString(1));
        assertThat(handedOff).containsExactly("a 1 completed 1111", "a 1 failed 11", "a 2 completed 11",
                "a 2 failed 11", "b 1 completed 11", "b 1 failed 11", "b 2 cancelled 5", "b 2 completed 11",
                "b 2 failed 11");
        assertThat(db.query("SELECT ready_slot || ' ' || count FROM " + live, rs -> rs.getString(1)))
                .containsExactly("1 9");
    }

    @Test
    void shouldCountASealedLeaseSlotFromItsTalliesWithoutReadingItsLeases() throws Exception {
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        Job job = storage.claim("q", 1, "w").blockFirst(WAIT);
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isEqualTo(new Rotated(1, 1));
        // With the sealed slot's children locked, a count that read them would fail with 55P03.
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("LOCK TABLE " + rows.t("leases_0") + ", " + rows.t("lease_runs_0")
                    + " IN ACCESS EXCLUSIVE MODE");
            try {
                assertThat(storage.ringOperations().sealedSlots(Ring.LEASE).block(WAIT)).isEqualTo(1);
            } finally {
                holder.rollback();
            }
        }

        // Ended, the attempt's claimed run still holds the slot until its prune (schema step 18).
        storage.complete(job).block(WAIT);
        assertThat(storage.ringOperations().sealedSlots(Ring.LEASE).block(WAIT)).isEqualTo(1);
        assertThat(prune(Ring.LEASE)).isInstanceOf(Pruned.class);
        assertThat(storage.ringOperations().sealedSlots(Ring.LEASE).block(WAIT)).isZero();
    }

    @Test
    void shouldCountASealedQueueSlotByItsPagesUntilItsPruneTruncatesThem() {
        rows.ledger(Ring.QUEUE, 1, 1);
        rows.ledger(Ring.QUEUE, 2, 2);
        // Slot 0 has pages but no visible row (a rolled-back tombstone); slot 1 was never written.
        db.execute("BEGIN; INSERT INTO " + rows.t("ready_tombstones") + " (ready_slot, queue, priority, enqueue_shard,"
                + " lane_seq, job_id) VALUES (0, 'q', 2, 0, 1, 1); ROLLBACK");
        // The current slot's rows never count.
        rows.done(2, 2, 2, "completed");
        assertThat(storage.ringOperations().sealedSlots(Ring.QUEUE).block(WAIT)).isEqualTo(1);

        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class)
                .satisfies(o -> assertThat(((Pruned) o).slot()).isZero());
        assertThat(storage.ringOperations().sealedSlots(Ring.QUEUE).block(WAIT)).isZero();
    }

    @Test
    void shouldDrainSealedSlotsThenLetRotationFreeze() {
        targetSlotZero();
        rows.ledger(Ring.QUEUE, 2, 2);
        rows.done(0, 0, 1, "completed");
        rows.done(1, 1, 2, "failed");
        assertThat(storage.ringOperations().sealedSlots(Ring.QUEUE).block(WAIT)).isEqualTo(2);

        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new Rotated(3, 3));
        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class)
                .satisfies(o -> assertThat(((Pruned) o).slot()).isZero());
        assertThat(storage.ringOperations().sealedSlots(Ring.QUEUE).block(WAIT)).isEqualTo(1);
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new Rotated(0, 4));
        PruneOutcome second = prune(Ring.QUEUE);
        assertThat(second).isInstanceOf(Pruned.class);
        assertThat(((Pruned) second).slot()).isEqualTo(1);
        assertThat(((Pruned) second).generation()).isEqualTo(1);
        assertThat(storage.ringOperations().sealedSlots(Ring.QUEUE).block(WAIT)).isZero();

        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new SkippedIdle(0, 4));
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new SkippedIdle(0, 4));
        assertThat(storage.ringOperations().cursor(Ring.QUEUE).block(WAIT)).isEqualTo(new RingCursor(Ring.QUEUE, 0, 4));
        assertThat(rows.terminalCount("completed")).isEqualTo(1);
        assertThat(rows.terminalCount("failed")).isEqualTo(1);
    }
}
