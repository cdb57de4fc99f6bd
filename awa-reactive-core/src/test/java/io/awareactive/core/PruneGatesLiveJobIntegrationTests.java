package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.PruneOutcome.Pruned;
import io.awareactive.core.ring.PruneOutcome.SkippedActive;
import io.awareactive.core.ring.RotateOutcome.Rotated;
import io.awareactive.core.ring.RotateOutcome.SkippedIdle;
import io.awareactive.core.ring.SkipReason;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gates of schema step 6 (tallies and per-lane probes, {@code docs/architecture.md}, "Prune gates"): a slot holding
 * one live job among finished ones, in each place a live job can be, is never truncated, and the tallies every gate
 * reads equal the rows they count after each lifecycle step. Jobs run through the real lifecycle where it can put
 * them; {@link RingRows} writes the places only a fault can reach (a receipt without its lease).
 */
@AwaPostgresTest
final class PruneGatesLiveJobIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String QUEUE = RingRows.QUEUE;

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;
    private RingRows rows;

    PruneGatesLiveJobIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void install() {
        schema = db.newSchemaName();
        storage = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                b -> b.retryBackoffBase(Duration.ofHours(1)).retryBackoffMax(Duration.ofHours(1))));
        storage.install().block(WAIT);
        rows = new RingRows(db, schema);
    }

    private PruneOutcome prune(Ring ring) {
        return storage.ringOperations().prune(ring).block(WAIT);
    }

    private PruneOutcome pruneUntilNotBlocked(Ring ring) {
        return Fixtures.pruneUntilNotBlocked(storage, ring, WAIT);
    }

    private void rotate(Ring ring) {
        assertThat(storage.ringOperations().rotate(ring).block(WAIT)).isInstanceOf(Rotated.class);
    }

    /**
     * Rotates the queue and lease rings. The claim ring has nothing to rotate: since schema step 7 a claim writes no
     * receipt, so its current slot stays empty.
     */
    private void rotateTheRingsThatHoldAttempts() {
        rotate(Ring.QUEUE);
        rotate(Ring.LEASE);
        assertThat(storage.ringOperations().rotate(Ring.CLAIM).block(WAIT)).isInstanceOf(SkippedIdle.class);
    }

    private List<Long> enqueue(int n) {
        return IntStream.range(0, n)
                .mapToObj(i -> storage.enqueue(JobRequest.builder(QUEUE, "k").build()).block(WAIT))
                .toList();
    }

    /** Claims exactly n jobs (a claim takes one slot of a lane at a time, so it may take several). */
    private List<Job> claim(int n) {
        List<Job> jobs = new ArrayList<>();
        while (jobs.size() < n) {
            List<Job> claimed = storage.claim(QUEUE, n - jobs.size(), "w").collectList().block(WAIT);
            assertThat(claimed).as("jobs left to claim").isNotEmpty();
            jobs.addAll(claimed);
        }
        return jobs;
    }

    /**
     * Queue slot 0 still holds its ready rows and claim slot 0 its receipts (none, unless written as an attempt
     * claimed before schema step 7): nothing was truncated.
     */
    private void assertSlotZeroKept(long readyRows, long receipts) {
        assertThat(rows.rows("ready_entries_0")).isEqualTo(readyRows);
        assertThat(rows.rows("lease_claims_0")).isEqualTo(receipts);
    }

    /**
     * The open attempts per (lease slot, ready slot): the leases, and the attempts of claimed runs (schema step 18)
     * whose place is neither in a closure of their run (step 19) nor in their run's ended list.
     */
    private String openAttempts() {
        return "SELECT lease_slot, ready_slot, count(*) FROM (SELECT lease_slot, ready_slot FROM " + rows.t("leases")
                + " UNION ALL SELECT r.lease_slot, r.ready_slot FROM " + rows.t("lease_runs") + " r"
                + " CROSS JOIN unnest(r.job_ids) WITH ORDINALITY AS x (job_id, n)"
                + " WHERE (x.n - 1)::int <> ALL (r.ended) AND NOT EXISTS (SELECT 1 FROM "
                + rows.t("lease_run_closures") + " c WHERE c.lease_slot = r.lease_slot AND c.run_id = r.run_id"
                + " AND (x.n - 1)::int = ANY (c.places))) a GROUP BY 1, 2";
    }

    /**
     * The tallies equal what they count: per (lease slot, ready slot) the open attempts, per (claim slot, ready slot)
     * the receipts and the closures. This is what makes each tally gate exact.
     */
    private void assertTalliesMatchRows() {
        String leases = openAttempts();
        String leaseTallies = "SELECT lease_slot, ready_slot, sum(live) FROM " + rows.t("lease_tallies")
                + " GROUP BY 1, 2 HAVING sum(live) <> 0";
        assertThat(triples(leaseTallies)).containsExactlyInAnyOrderElementsOf(triples(leases));
        String claims = "SELECT claim_slot, ready_slot, count(*) FROM " + rows.t("lease_claims") + " GROUP BY 1, 2";
        String opened = "SELECT claim_slot, ready_slot, sum(opened) FROM " + rows.t("claim_tallies")
                + " GROUP BY 1, 2 HAVING sum(opened) <> 0";
        assertThat(triples(opened)).containsExactlyInAnyOrderElementsOf(triples(claims));
        String closures = "SELECT claim_slot, ready_slot, count(*) FROM " + rows.t("lease_claim_closures")
                + " GROUP BY 1, 2";
        String closed = "SELECT claim_slot, ready_slot, sum(closed) FROM " + rows.t("claim_tallies")
                + " GROUP BY 1, 2 HAVING sum(closed) <> 0";
        assertThat(triples(closed)).containsExactlyInAnyOrderElementsOf(triples(closures));
    }

    private List<String> triples(String sql) {
        return db.query(sql, rs -> rs.getInt(1) + "/" + rs.getInt(2) + "/" + rs.getLong(3));
    }

    @Test
    void shouldNeverTruncateASlotWhoseOneLiveJobIsUnclaimed() {
        enqueue(5);
        storage.completeAll(claim(4)).block(WAIT);
        rotateTheRingsThatHoldAttempts();
        // The finished runs' lease slot goes first: a queue slot outlives the claimed runs of its rows.
        assertThat(pruneUntilNotBlocked(Ring.LEASE)).isInstanceOf(Pruned.class);

        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_PENDING_READY));
        assertSlotZeroKept(5, 0);

        Job last = claim(1).get(0);
        assertThat(last.readySlot()).isZero();
        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        assertThat(storage.complete(last).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertTalliesMatchRows();
        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        rotate(Ring.LEASE);
        assertThat(pruneUntilNotBlocked(Ring.LEASE)).isInstanceOf(Pruned.class);
        assertThat(pruneUntilNotBlocked(Ring.QUEUE)).isInstanceOf(Pruned.class);
        assertThat(storage.counts(QUEUE).block(WAIT).completed()).isEqualTo(5);
    }

    @Test
    void shouldNeverTruncateAnySlotOfOneRunningJobAmongFinishedOnes() {
        enqueue(6);
        List<Job> jobs = claim(6);
        // One statement completes five attempts: the tallies drop by five at once, and one attempt stays live.
        assertThat(storage.completeAll(jobs.subList(0, 5)).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        rotateTheRingsThatHoldAttempts();
        assertTalliesMatchRows();

        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        assertThat(prune(Ring.LEASE)).isEqualTo(new SkippedActive(0, SkipReason.LEASE_ACTIVE));
        assertThat(prune(Ring.CLAIM)).isEqualTo(new PruneOutcome.Noop());
        assertSlotZeroKept(6, 0);
        assertThat(triples(openAttempts())).containsExactly("0/0/1");

        assertThat(storage.complete(jobs.get(5)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertTalliesMatchRows();
        for (Ring ring : List.of(Ring.LEASE, Ring.QUEUE)) {
            assertThat(pruneUntilNotBlocked(ring)).as(ring.label()).isInstanceOf(Pruned.class);
        }
        assertThat(db.queryLong("SELECT count(*) FROM " + rows.t("lease_tallies_0"))
                + db.queryLong("SELECT count(*) FROM " + rows.t("claim_tallies_0"))).isZero();
        assertThat(storage.counts(QUEUE).block(WAIT).completed()).isEqualTo(6);
    }

    @Test
    void shouldNeverTruncateASlotWithAReceiptThatHasNeitherLeaseNorClosure() {
        rows.ledger(Ring.QUEUE, 1, 1);
        rows.ledger(Ring.CLAIM, 1, 1);
        RingRows.Job done = rows.running(0, 0, 1, 0, 0);
        rows.complete(done);
        long laneSeq = rows.enqueue(0, 0, 2);
        RingRows.Job open = rows.claim(0, 0, 2, laneSeq, 0, 0);
        db.execute("DELETE FROM " + rows.t("leases_0") + " WHERE job_id = 2");
        assertTalliesMatchRows();

        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_UNCLOSED_CLAIM_REFS));
        assertThat(prune(Ring.CLAIM)).isEqualTo(new SkippedActive(0, SkipReason.CLAIM_OPEN));
        assertSlotZeroKept(2, 2);

        // Its closure, written by another session, frees both slots.
        db.execute(rows.closureSql(open.claimSlot(), open.receiptId(), open.jobId(), 0, "completed"));
        assertThat(prune(Ring.QUEUE)).isInstanceOf(Pruned.class);
        assertThat(prune(Ring.CLAIM)).isInstanceOf(Pruned.class);
    }

    @Test
    void shouldKeepARetriedAReleasedAndAScheduledJobWhileTheirOldSlotIsPruned() {
        List<Long> ids = enqueue(3);
        storage.enqueue(JobRequest.builder(QUEUE, "k").runAt(Instant.now().plusSeconds(3600)).build())
                .block(WAIT);
        List<Job> jobs = claim(3);
        rotateTheRingsThatHoldAttempts();
        assertThat(storage.fail(jobs.get(0), "boom").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);
        assertThat(storage.release(jobs.get(1)).block(WAIT)).isEqualTo(AttemptResult.RELEASED);
        assertThat(prune(Ring.QUEUE)).isEqualTo(new SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        assertThat(storage.complete(jobs.get(2)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertTalliesMatchRows();

        // Slot 0 holds none of them any more: the retry waits in deferred_jobs, the release is a ready row of slot 1.
        // Their runs' lease slot goes first.
        assertThat(pruneUntilNotBlocked(Ring.LEASE)).isInstanceOf(Pruned.class);
        assertThat(pruneUntilNotBlocked(Ring.QUEUE)).isInstanceOf(Pruned.class);
        assertThat(storage.status(ids.get(0)).block(WAIT).state()).isEqualTo(JobState.SCHEDULED);
        assertThat(storage.status(ids.get(1)).block(WAIT).state()).isEqualTo(JobState.AVAILABLE);
        assertThat(db.queryLong("SELECT count(*) FROM " + rows.t("deferred_jobs"))).isEqualTo(2);
        Job again = claim(1).get(0);
        assertThat(again.id()).isEqualTo(ids.get(1));
        assertThat(again.readySlot()).isEqualTo(1);
    }

    /**
     * Ends a job in lease slot 0, moves the lease ring on, and prunes slot 0 while another session, standing for a
     * claim in flight, has written {@code writes} there: it commits once the prune waits for {@code waitedChild}, so
     * its rows are not visible when the prune looks first.
     */
    private PruneOutcome pruneWhileAClaimInFlightCommits(String waitedChild, String... writes) throws Exception {
        enqueue(1);
        assertThat(storage.complete(claim(1).get(0)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        rotate(Ring.LEASE);
        QueueStorage patient = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                b -> b.pruneLockTimeout(Duration.ofSeconds(2))));
        CompletableFuture<PruneOutcome> prune;
        try (Connection writer = db.openJdbc(); Statement statement = writer.createStatement()) {
            writer.setAutoCommit(false);
            for (String write : writes) {
                statement.execute(write);
            }
            prune = patient.ringOperations().prune(Ring.LEASE).toFuture();
            await().atMost(WAIT).until(() -> rows.waiters(waitedChild) == 1);
            writer.commit();
        }
        return prune.get(3, TimeUnit.SECONDS);
    }

    @Test
    void shouldSeeALeaseCommittedWhileThePruneWaitedForItsLock() throws Exception {
        // A lease (an attempt claimed before schema step 18), tallied by its trigger.
        assertThat(pruneWhileAClaimInFlightCommits("leases_0", "INSERT INTO " + rows.t("leases") + " (lease_slot,"
                + " job_id, run_lease, lease_generation, ready_slot, ready_generation, claim_slot, receipt_id, queue,"
                + " priority, enqueue_shard, lane_seq, attempt, max_attempts, worker_id, heartbeat_at) VALUES (0, 99,"
                + " 99, 0, 0, 0, 0, 99, 'q', 2, 0, 99, 1, 3, 'w', now())"))
                .isEqualTo(new SkippedActive(0, SkipReason.LEASE_ACTIVE));
        assertThat(rows.rows("leases_0")).isEqualTo(1);
        assertTalliesMatchRows();
    }

    @Test
    void shouldSeeAClaimedRunCommittedWhileThePruneWaitedForItsLock() throws Exception {
        // A claimed run and its tally, as the claim writes them.
        assertThat(pruneWhileAClaimInFlightCommits("lease_runs_0", "INSERT INTO " + rows.t("lease_runs")
                        + " (lease_slot, run_id, ready_slot, ready_generation, queue, priority, enqueue_shard,"
                        + " worker_id, heartbeat_at, job_ids, lane_seqs, attempts, max_attempts, kinds, deadlines)"
                        + " VALUES (0, 99, 0, 0, 'q', 2, 0, 'w', now(), '{99}', '{99}', '{1}', '{3}', '{k}', '{NULL}')",
                "INSERT INTO " + rows.t("lease_tallies") + " (lease_slot, ready_slot, queue, backend, live)"
                        + " VALUES (0, 0, 'q', pg_backend_pid(), 1)"))
                .isEqualTo(new SkippedActive(0, SkipReason.LEASE_ACTIVE));
        assertThat(rows.rows("lease_runs_0")).isEqualTo(2);
    }

    @Test
    void shouldTallyExactlyTheRowsOfEveryLifecycleStep() {
        List<Long> ids = enqueue(12);
        storage.enqueue(JobRequest.builder(QUEUE, "k").maxAttempts(1).build()).block(WAIT);
        storage.enqueue(JobRequest.builder(QUEUE, "k").timeout(Duration.ofMillis(1)).build()).block(WAIT);
        assertTalliesMatchRows();
        List<Job> jobs = claim(8);
        assertTalliesMatchRows();
        storage.completeAll(jobs.subList(0, 3)).block(WAIT);
        assertTalliesMatchRows();
        rotateTheRingsThatHoldAttempts();
        storage.complete(jobs.get(3)).block(WAIT);
        storage.fail(jobs.get(4), "retry").block(WAIT);
        storage.release(jobs.get(5)).block(WAIT);
        assertTalliesMatchRows();
        // A completion that lost its lease writes nothing, and neither does its tally.
        assertThat(storage.complete(jobs.get(4)).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertTalliesMatchRows();
        assertThat(storage.cancel(ids.get(11)).block(WAIT)).isEqualTo(CancelResult.CANCELLED);
        List<Job> more = claim(6);
        assertTalliesMatchRows();
        Job terminal = more.stream().filter(j -> j.maxAttempts() == 1).findFirst().orElseThrow();
        assertThat(storage.fail(terminal, "terminal").block(WAIT)).isEqualTo(AttemptResult.FAILED);
        await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM " + rows.t("lease_runs")
                + " r, unnest(r.deadlines) d WHERE d < now()") >= 1);
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isPositive();
        assertTalliesMatchRows();
        storage.completeAll(more.stream().filter(j -> j != terminal && j.timeout() == null).toList()).block(WAIT);
        storage.completeAll(jobs.subList(6, 8)).block(WAIT);
        assertTalliesMatchRows();
        for (Ring ring : Ring.values()) {
            pruneUntilNotBlocked(ring);
        }
        assertTalliesMatchRows();
    }
}
