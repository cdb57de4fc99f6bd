package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.core.ring.SkipReason;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Issue 9: moving and reprioritising jobs no worker has claimed, point reads that never show a moved job's
 * tombstoned source row (in one slot, and after the ring wrapped), and claim-versus-move races.
 */
@AwaPostgresTest
final class MoveIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    MoveIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, b -> b
                .retryBackoffBase(Duration.ZERO)));
        storage.install().block(WAIT);
    }

    private long count(String sql) {
        return db.queryLong(sql.replace("{s}", "\"" + schema + "\""));
    }

    private long enqueue(String queue, int priority) {
        return storage.enqueue(JobRequest.builder(queue, "k").priority(priority).build()).block(WAIT);
    }

    private List<Long> claimIds(String queue, int max) {
        return storage.claim(queue, max, "w").map(Job::id).collectList().block(WAIT);
    }

    private JobStatus status(long id) {
        return storage.status(id).block(WAIT);
    }

    private JobStatus move(long id, String queue, int priority) {
        return storage.move(id, queue, priority).block(WAIT);
    }

    /** Asserts where the point read finds the job, and that it waits there. */
    private void assertAvailableIn(long id, String queue, int priority) {
        assertThat(status(id)).satisfies(s -> {
            assertThat(s.state()).isEqualTo(JobState.AVAILABLE);
            assertThat(s.queue()).isEqualTo(queue);
            assertThat(s.priority()).isEqualTo(priority);
        });
    }

    @Test
    void shouldMoveAnAvailableJobToAnotherQueueKeepingItsIdArgumentsAndAttempt() {
        long id = storage.enqueue(JobRequest.builder("a", "render").args("{\"page\": 7}").maxAttempts(3)
                .timeout(Duration.ofSeconds(10)).build()).block(WAIT);
        Job first = storage.claim("a", 1, "w").single().block(WAIT);
        assertThat(storage.fail(first, "flaky").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);

        JobStatus moved = move(id, "b", 2);

        assertThat(moved).isEqualTo(new JobStatus(id, JobState.AVAILABLE, "b", "render", 2, 2, 3, null, null));
        assertThat(status(id)).isEqualTo(moved);
        assertThat(claimIds("a", 10)).isEmpty();
        Job again = storage.claim("b", 10, "w").single().block(WAIT);
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(again.maxAttempts()).isEqualTo(3);
        assertThat(again.kind()).isEqualTo("render");
        assertThat(again.args()).isEqualTo("{\"page\": 7}");
        assertThat(again.timeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(storage.complete(again).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.counts("a").block(WAIT)).isEqualTo(new QueueCounts("a", 0, 0, 0, 0, 0, 0));
        assertThat(storage.counts("b").block(WAIT)).isEqualTo(new QueueCounts("b", 0, 0, 0, 1, 0, 0));
    }

    @Test
    void shouldReprioritiseAJobWithinItsQueue() {
        long first = enqueue("q", 3);
        long second = enqueue("q", 3);
        long urgent = enqueue("q", 3);

        assertThat(move(urgent, "q", 1).priority()).isEqualTo(1);

        assertThat(claimIds("q", 1)).containsExactly(urgent);
        assertThat(claimIds("q", 10)).containsExactly(first, second);
        assertThat(storage.counts("q").block(WAIT).available()).isZero();
    }

    @Test
    void shouldMoveAScheduledJobAndKeepItScheduled() {
        Instant runAt = Instant.now().plusMillis(800).truncatedTo(ChronoUnit.MICROS);
        long id = storage.enqueue(JobRequest.builder("a", "k").runAt(runAt).build()).block(WAIT);

        JobStatus moved = move(id, "b", 4);

        assertThat(moved).isEqualTo(new JobStatus(id, JobState.SCHEDULED, "b", "k", 4, 1, 25, runAt, null));
        assertThat(status(id)).isEqualTo(moved);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> storage.ringOperations().promote(100).block(WAIT) == 1);
        assertThat(claimIds("a", 10)).isEmpty();
        assertThat(claimIds("b", 10)).containsExactly(id);
    }

    @Test
    void shouldLeaveAJobMovedToItsOwnQueueAndPriorityAsItIs() {
        long id = enqueue("q", 2);

        assertThat(move(id, "q", 2)).isEqualTo(status(id));

        assertThat(count("SELECT count(*) FROM {s}.ready_tombstones")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.ready_entries")).isEqualTo(1);
        assertThat(claimIds("q", 10)).containsExactly(id);
    }

    @Test
    void shouldRefuseToMoveAClaimedFinishedOrUnknownJobAndBadInputChangingNothing() {
        long running = enqueue("q", 2);
        Job job = storage.claim("q", 1, "w").single().block(WAIT);
        long done = enqueue("q", 2);
        storage.complete(storage.claim("q", 1, "w").single().block(WAIT)).block(WAIT);
        String before = snapshot();

        assertThatThrownBy(() -> move(running, "other", 1))
                .isInstanceOfSatisfying(JobStateException.class, e -> {
                    assertThat(e.jobId()).isEqualTo(running);
                    assertThat(e.state()).isEqualTo(JobState.RUNNING);
                })
                .hasMessage("job " + running + " cannot be moved: a worker has claimed it; only a scheduled or"
                        + " available job can be moved");
        assertThatThrownBy(() -> move(done, "other", 1))
                .isInstanceOfSatisfying(JobStateException.class,
                        e -> assertThat(e.state()).isEqualTo(JobState.COMPLETED))
                .hasMessage("job " + done + " cannot be moved: it has finished (completed)");
        assertThatThrownBy(() -> move(done + 1000, "other", 1))
                .isInstanceOfSatisfying(JobStateException.class, e -> assertThat(e.state()).isNull())
                .hasMessage("job " + (done + 1000) + " cannot be moved: it is not in the deferred table or the queue"
                        + " ring (unknown, or its history was pruned)");

        assertThatIllegalArgumentException().isThrownBy(() -> storage.move(running, "Other Queue", 1))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was \"Other Queue\"");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.move(running, null, 1))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was null");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.move(running, "x".repeat(64), 1))
                .withMessageStartingWith("queue must be 1 to 63 characters of [a-z0-9_.-], was \"xxx");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.move(running, "other", 0))
                .withMessage("priority must be between 1 and 4, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.move(running, "other", 5))
                .withMessage("priority must be between 1 and 4, was 5");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.move(0, "other", 1))
                .withMessage("jobId must be greater than 0, was 0");

        assertThat(snapshot()).isEqualTo(before);
        assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
    }

    /** Ready rows, tombstones, claim ranges, deferred rows and lanes, to prove a refused move wrote nothing. */
    private String snapshot() {
        String s = "\"" + schema + "\".";
        return db.query("SELECT (SELECT count(*) FROM " + s + "ready_entries) || '/' || (SELECT count(*) FROM " + s
                + "ready_tombstones) || '/' || (SELECT count(*) FROM " + s + "ready_claim_ranges) || '/' ||"
                + " (SELECT count(*) FROM " + s + "deferred_jobs) || '/' || (SELECT string_agg(queue || priority, ','"
                + " ORDER BY queue, priority) FROM " + s + "queue_lanes)", rs -> rs.getString(1)).get(0);
    }

    @Test
    void shouldReadTheLiveRowAfterMovesAcrossQueuesAndPrioritiesWithinOneSlot() {
        // Five jobs ahead of it in lane (a, 2): the job's lane_seq there (6) exceeds its lane_seq in a fresh lane
        // (1), so ordering a slot's rows by lane_seq would pick the tombstoned source row.
        List<Long> ahead = List.of(enqueue("a", 2), enqueue("a", 2), enqueue("a", 2), enqueue("a", 2),
                enqueue("a", 2));
        long id = enqueue("a", 2);

        move(id, "b", 2);
        assertAvailableIn(id, "b", 2);
        move(id, "b", 1);
        assertAvailableIn(id, "b", 1);
        move(id, "a", 4);
        assertAvailableIn(id, "a", 4);
        assertThat(count("SELECT count(*) FROM {s}.ready_entries_0 WHERE job_id = " + id)).isEqualTo(4);
        assertThat(count("SELECT count(*) FROM {s}.ready_tombstones_0 WHERE job_id = " + id)).isEqualTo(3);

        // Cancel finds the live row too.
        assertThat(storage.cancel(id).block(WAIT)).isEqualTo(CancelResult.CANCELLED);
        assertThat(status(id).state()).isEqualTo(JobState.CANCELLED);
        assertThat(claimIds("b", 10)).isEmpty();
        assertThat(claimIds("a", 10)).containsExactlyElementsOf(ahead);
    }

    @Test
    void shouldReadTheLiveRowOfAReleasedThenMovedJobNotItsEarlierClaimedRow() {
        // Five cancelled jobs ahead of it: the job's first row gets lane_seq 6 in lane (a, 2).
        for (int i = 0; i < 5; i++) {
            assertThat(storage.cancel(enqueue("a", 2)).block(WAIT)).isEqualTo(CancelResult.CANCELLED);
        }
        long id = enqueue("a", 2);
        Job job = storage.claim("a", 1, "w").single().block(WAIT);
        assertThat(job.laneSeq()).isEqualTo(6);
        assertThat(storage.release(job).block(WAIT)).isEqualTo(AttemptResult.RELEASED);

        // Slot 0 now holds the claimed row (a, 6), the released row (a, 7, tombstoned by the move) and the live
        // row (b, 1): the live row has the lowest lane_seq, and the claimed row is not tombstoned.
        move(id, "b", 2);
        assertAvailableIn(id, "b", 2);
        Job again = storage.claim("b", 10, "w").single().block(WAIT);
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.laneSeq()).isEqualTo(1);
        assertThat(status(id)).satisfies(s -> {
            assertThat(s.state()).isEqualTo(JobState.RUNNING);
            assertThat(s.queue()).isEqualTo("b");
        });
    }

    @Test
    void shouldReadTheLiveRowAfterTheRingWrappedAndReusedTheSourceSlot() {
        // Generation 0, slot 0: the job is the only one in lane (a, 2).
        long id = enqueue("a", 2);
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(1, 1));

        // Across queues into slot 1. The source row is the next its lane would claim, so the move also spends it:
        // slot 0 prunes although queue a has no worker.
        move(id, "b", 2);
        assertAvailableIn(id, "b", 2);
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOfSatisfying(PruneOutcome.Pruned.class,
                pruned -> assertThat(pruned.slot()).isZero());

        // Wrap: slots 2, 3, then slot 0 again at generation 4.
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(2, 2));
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(3, 3));
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(0, 4));
        assertAvailableIn(id, "b", 2);

        // Back into its source lane (a, 2), now in the reused slot 0 (lane_seq 2 there), then across priorities
        // into the fresh lane (a, 1) (lane_seq 1): the live row is not the slot's highest lane_seq.
        move(id, "a", 2);
        assertAvailableIn(id, "a", 2);
        move(id, "a", 1);
        assertAvailableIn(id, "a", 1);
        assertThat(count("SELECT count(*) FROM {s}.ready_entries_0 WHERE job_id = " + id)).isEqualTo(2);
        // Slot 1 held the job only as a spent tombstone: it prunes too.
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOfSatisfying(PruneOutcome.Pruned.class,
                pruned -> assertThat(pruned.slot()).isEqualTo(1));
        assertAvailableIn(id, "a", 1);

        Job job = storage.claim("a", 10, "w").single().block(WAIT);
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.readySlot()).isZero();
        assertThat(job.readyGeneration()).isEqualTo(4);
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(status(id).state()).isEqualTo(JobState.COMPLETED);
        assertThat(storage.counts("a").block(WAIT)).isEqualTo(new QueueCounts("a", 0, 0, 0, 1, 0, 0));
        assertThat(storage.counts("b").block(WAIT)).isEqualTo(new QueueCounts("b", 0, 0, 0, 0, 0, 0));
    }

    @Test
    void shouldKeepTheSourceSlotUntilAClaimPassesAMovedRowThatWasNotNextInItsLane() {
        long ahead = enqueue("a", 2);
        long id = enqueue("a", 2);
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(1, 1));

        move(id, "b", 2);
        assertThat(count("SELECT count(*) FROM {s}.ready_claim_ranges")).isZero();
        Job first = storage.claim("a", 1, "w").single().block(WAIT);
        assertThat(first.id()).isEqualTo(ahead);
        assertThat(storage.complete(first).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        // The lease slot holding the claimed run goes first (a queue slot outlives the runs of its rows).
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(1, 1));
        assertThat(storage.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);

        // The tombstone behind `ahead` counts as pending until a claimer passes it, as after a cancel.
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT))
                .isEqualTo(new PruneOutcome.SkippedActive(0, SkipReason.QUEUE_PENDING_READY));
        assertThat(claimIds("a", 10)).isEmpty();
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOfSatisfying(PruneOutcome.Pruned.class,
                pruned -> assertThat(pruned.slot()).isZero());
        assertThat(claimIds("b", 10)).containsExactly(id);
    }

    @Test
    void shouldFailAMoveThatWaitedForAClaimOfTheSameJob() throws Exception {
        long id = enqueue("a", 2);
        try (Connection claimer = db.openJdbc()) {
            claimer.setAutoCommit(false);
            try (Statement statement = claimer.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT o_job_id FROM \"" + schema
                            + "\".claim_jobs_v2('a', 1, 'jdbc', NULL)")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getLong(1)).isEqualTo(id);
            }
            AtomicReference<Object> outcome = new AtomicReference<>();
            storage.move(id, "b", 2).map(Object.class::cast).onErrorResume(Mono::just)
                    .subscribeOn(Schedulers.parallel()).subscribe(outcome::set);
            // The move waits for lane a's claim head, which the open claim holds.
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> db.queryLong("SELECT count(*) FROM"
                    + " pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%move_job%'") == 1);
            assertThat(outcome.get()).isNull();
            claimer.commit();
            await().atMost(WAIT).until(() -> outcome.get() != null);
            assertThat(outcome.get()).isInstanceOfSatisfying(JobStateException.class,
                    e -> assertThat(e.state()).isEqualTo(JobState.RUNNING));
        }
        assertThat(status(id).state()).isEqualTo(JobState.RUNNING);
        assertThat(count("SELECT count(*) FROM {s}.ready_tombstones")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.ready_entries WHERE queue = 'b'")).isZero();
    }

    @Test
    void shouldLetClaimersPassAJobWhileAMoveOfItIsInFlight() throws Exception {
        long id = enqueue("a", 2);
        db.execute("SELECT \"" + schema + "\".create_lane('b', 2::smallint, 0)");
        try (Connection mover = db.openJdbc()) {
            mover.setAutoCommit(false);
            try (Statement statement = mover.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT o_result FROM \"" + schema + "\".move_job(" + id
                            + ", 'b', 2::smallint, 0)")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).isEqualTo("moved");
            }
            // The uncommitted move holds lane a's claim head: a claimer skips the lane instead of waiting.
            assertThat(claimIds("a", 10)).isEmpty();
            mover.commit();
        }
        assertThat(claimIds("a", 10)).isEmpty();
        assertThat(claimIds("b", 10)).containsExactly(id);
    }

    @Test
    void shouldNeverLetAConcurrentClaimAndMoveOfAJobBothSucceed() {
        int claimedRounds = 0;
        int movedRounds = 0;
        for (int round = 0; round < 40; round++) {
            long id = enqueue("race-a", 2);
            Mono<Boolean> claim = storage.claim("race-a", 1, "w").map(Job::id).collectList()
                    .map(ids -> ids.contains(id)).subscribeOn(Schedulers.parallel());
            Mono<Boolean> move = storage.move(id, "race-b", 2).thenReturn(true)
                    .onErrorResume(JobStateException.class, e -> Mono.just(false)).subscribeOn(Schedulers.parallel());
            boolean[] won = Mono.zip(claim, move).map(t -> new boolean[] {t.getT1(), t.getT2()}).block(WAIT);

            assertThat(won[0] ^ won[1]).as("round %d: claimed %s, moved %s", round, won[0], won[1]).isTrue();
            List<Long> elsewhere = claimIds("race-b", 10);
            assertThat(elsewhere).isEqualTo(won[1] ? List.of(id) : List.of());
            claimedRounds += won[0] ? 1 : 0;
            movedRounds += won[1] ? 1 : 0;
        }
        assertThat(claimedRounds + movedRounds).isEqualTo(40);
        // Every job was claimed exactly once: one attempt per job (none ended) in the claimed runs, in one queue or
        // the other; claims write no receipt since schema step 7 and no lease since step 18.
        assertThat(count("SELECT count(*) FROM {s}.lease_runs, unnest(job_ids)")).isEqualTo(40);
        assertThat(count("SELECT count(DISTINCT j) FROM {s}.lease_runs, unnest(job_ids) j")).isEqualTo(40);
        assertThat(count("SELECT count(*) FROM {s}.leases") + count("SELECT count(*) FROM {s}.lease_claims"))
                .isZero();
    }
}
