package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.core.ring.SkipReason;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Claimed runs as leases (schema step 18): a claim writes one lease row per run, a completion one closure row per run
 * (step 19), and each attempt ends exactly once, whichever writers race to end it. Each race holds one ender's
 * transaction open (over JDBC) while another ends the same attempt.
 */
@AwaPostgresTest
final class ClaimRunsIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    ClaimRunsIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, b -> b
                .leaseStaleAfter(Duration.ofSeconds(1)).heartbeatInterval(Duration.ofMillis(300))
                .retryBackoffBase(Duration.ZERO)));
        storage.install().block(WAIT);
    }

    private List<Job> enqueueAndClaim(int jobs) {
        storage.enqueueAll(Flux.range(0, jobs).map(i -> JobRequest.of("q", "k", "{\"i\":" + i + "}")))
                .blockLast(WAIT);
        List<Job> claimed = new ArrayList<>();
        while (claimed.size() < jobs) {
            claimed.addAll(storage.claim("q", jobs, "w").collectList().block(WAIT));
        }
        return claimed;
    }

    private long count(String table, String where) {
        return db.queryLong("SELECT count(*) FROM \"" + schema + "\"." + table + " WHERE " + where);
    }

    private long closedPlaces() {
        return Fixtures.closedPlaces(db, schema);
    }

    private long openAttempts() {
        return db.queryLong("SELECT coalesce(sum(live), 0) FROM \"" + schema + "\".lease_tallies");
    }

    private static <T> String array(List<Job> jobs, Function<Job, T> field) {
        return jobs.stream().map(job -> String.valueOf(field.apply(job))).collect(Collectors.joining(",", "{", "}"));
    }

    private String completeSql(List<Job> jobs) {
        return "SELECT count(*) FILTER (WHERE o_result = 'completed') FROM \"" + schema + "\".complete_attempts('"
                + array(jobs, Job::leaseSlot) + "', '" + array(jobs, Job::id) + "', '" + array(jobs, Job::runLease)
                + "')";
    }

    private String failSql(Job job) {
        return "SELECT \"" + schema + "\".end_attempt(" + job.leaseSlot() + ", " + job.id() + ", " + job.runLease()
                + ", 'failed', 'boom', 0, 2, 0, 1, false)";
    }

    /** Ages the runs, and the lease slot holding them, past the storage's staleness horizon. */
    private void makeStale() {
        Fixtures.makeLeasesStale(db, schema, "lease_runs");
    }

    @Test
    void shouldWriteOneLeaseRowPerClaimedRunAndNoLeasePerJob() {
        List<Job> jobs = enqueueAndClaim(10);

        assertThat(jobs).extracting(Job::runLease).allMatch(lease -> lease < 0).doesNotHaveDuplicates();
        assertThat(count("leases", "true")).isZero();
        assertThat(count("lease_runs", "true")).isEqualTo(1);
        assertThat(db.queryLong("SELECT cardinality(job_ids) FROM \"" + schema + "\".lease_runs")).isEqualTo(10);
        assertThat(openAttempts()).isEqualTo(10);
        assertThat(storage.counts("q").block(WAIT).running()).isEqualTo(10);

        assertThat(storage.completeAll(jobs).block(WAIT)).containsOnly(AttemptResult.COMPLETED);

        assertThat(openAttempts()).isZero();
        // One closure row for the run's ten places, in its lease slot; no done row (schema step 19).
        assertThat(count("lease_run_closures_0", "run_id = " + (-jobs.get(0).runLease() >> 10))).isOne();
        assertThat(closedPlaces()).isEqualTo(10);
        assertThat(count("done_entries", "true")).isZero();
        assertThat(storage.counts("q").block(WAIT).running()).isZero();
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(10);
        assertThat(jobs).allSatisfy(job -> assertThat(storage.status(job.id()).block(WAIT).state())
                .isEqualTo(JobState.COMPLETED));
        // The run row stays until its slot is pruned; only its tallies say its attempts ended.
        assertThat(count("lease_runs", "true")).isEqualTo(1);
    }

    @Test
    void shouldCompleteAnAttemptOnceWhenTwoCompletionsRace() throws Exception {
        List<Job> jobs = enqueueAndClaim(5);
        try (Connection first = db.openJdbc(); Statement statement = first.createStatement()) {
            first.setAutoCommit(false);
            assertThat(queryLong(statement, completeSql(jobs))).isEqualTo(5);
            // The second waits for the first's run lock, then sees its closure.
            CompletableFuture<List<AttemptResult>> second = storage.completeAll(jobs)
                    .subscribeOn(Schedulers.boundedElastic()).toFuture();
            awaitLockWaiters(1);
            first.commit();
            assertThat(second.get()).containsOnly(AttemptResult.LOST);
        }
        assertThat(closedPlaces()).isEqualTo(5);
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(5);
        assertThat(openAttempts()).isZero();
    }

    @Test
    void shouldNotCompleteAnAttemptThatFailedWhileTheCompletionWaited() throws Exception {
        List<Job> jobs = enqueueAndClaim(3);
        Job failed = jobs.get(1);
        try (Connection failer = db.openJdbc(); Statement statement = failer.createStatement()) {
            failer.setAutoCommit(false);
            statement.execute(failSql(failed));
            CompletableFuture<List<AttemptResult>> completion = storage.completeAll(jobs)
                    .subscribeOn(Schedulers.boundedElastic()).toFuture();
            awaitLockWaiters(1);
            failer.commit();
            assertThat(completion.get()).containsExactly(AttemptResult.COMPLETED, AttemptResult.LOST,
                    AttemptResult.COMPLETED);
        }
        // Retried (attempt 2 is ready again), never completed.
        assertThat(count("done_entries", "job_id = " + failed.id())).isZero();
        assertThat(storage.status(failed.id()).block(WAIT).state()).isEqualTo(JobState.AVAILABLE);
        assertThat(storage.status(failed.id()).block(WAIT).attempt()).isEqualTo(2);
        assertThat(openAttempts()).isZero();
    }

    @Test
    void shouldNotFailAnAttemptThatCompletedWhileTheFailureWaited() throws Exception {
        Job job = enqueueAndClaim(1).get(0);
        try (Connection completer = db.openJdbc(); Statement statement = completer.createStatement()) {
            completer.setAutoCommit(false);
            assertThat(queryLong(statement, completeSql(List.of(job)))).isEqualTo(1);
            CompletableFuture<AttemptResult> failure = storage.fail(job, "boom")
                    .subscribeOn(Schedulers.boundedElastic()).toFuture();
            awaitLockWaiters(1);
            completer.commit();
            assertThat(failure.get()).isEqualTo(AttemptResult.LOST);
        }
        assertThat(storage.status(job.id()).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        assertThat(count("deferred_jobs", "true") + count("ready_entries", "attempt = 2")).isZero();
    }

    @Test
    void shouldSkipARunWhoseAttemptIsBeingCompletedAndRescueNothingOnceItIs() throws Exception {
        Job job = enqueueAndClaim(1).get(0);
        makeStale();
        try (Connection completer = db.openJdbc(); Statement statement = completer.createStatement()) {
            completer.setAutoCommit(false);
            assertThat(queryLong(statement, completeSql(List.of(job)))).isEqualTo(1);
            // Rescue never waits for a run's lock: it leaves the busy run to its next round.
            assertThat(storage.ringOperations().rescue(10).block(WAIT)).isZero();
            completer.commit();
        }
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isZero();
        assertThat(storage.status(job.id()).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        assertThat(count("ready_entries", "attempt = 2")).isZero();
    }

    @Test
    void shouldHandOutClaimedJobsOnlyOnceTheirClaimIsCommitted() {
        // Rows beyond the server's 8 kB output buffer leave before COMMIT: a client that handed them on at once would
        // give out jobs of a claim still uncommitted.
        String args = "{\"pad\": \"" + "x".repeat(2_000) + "\"}";
        storage.enqueueAll(Flux.range(0, 20).map(i -> JobRequest.of("q", "k", args))).blockLast(WAIT);
        // Every lease row holds its transaction's commit back for half a second (a deferred trigger runs at COMMIT).
        String s = "\"" + schema + "\".";
        db.execute("CREATE FUNCTION " + s + "hold_commit() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$BEGIN PERFORM pg_sleep(0.5); RETURN NULL; END$$",
                "DO $$DECLARE c regclass; BEGIN FOR c IN SELECT inhrelid::regclass FROM pg_inherits"
                        + " WHERE inhparent = '" + s + "lease_runs'::regclass LOOP EXECUTE format('CREATE CONSTRAINT"
                        + " TRIGGER hold_commit AFTER INSERT ON %s DEFERRABLE INITIALLY DEFERRED FOR EACH ROW"
                        + " EXECUTE FUNCTION " + s + "hold_commit()', c); END LOOP; END$$");

        // A completion starts as soon as its job is handed out, on another connection: it must see the job's run.
        PostgresqlConnection reader = db.connectionFactory().create().block(WAIT);
        try {
            long visibleRuns = storage.claim("q", 20, "w").next()
                    .flatMap(job -> reader.createStatement("SELECT count(*) FROM " + s + "lease_runs"
                                    + " WHERE " + job.id() + " = ANY (job_ids)").execute()
                            .flatMap(result -> result.map(row -> row.get(0, Long.class))).next())
                    .block(WAIT);

            assertThat(visibleRuns).isEqualTo(1);
        } finally {
            reader.close().block(WAIT);
        }
    }

    @Test
    void shouldRescueAStaleAttemptOnceAndLoseItsLateCompletion() {
        List<Job> jobs = enqueueAndClaim(2);
        assertThat(storage.completeAll(List.of(jobs.get(0))).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        makeStale();

        // Only the open attempt of the run is rescued; the completed one is not touched.
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isEqualTo(1);
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isZero();

        assertThat(storage.complete(jobs.get(1)).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(storage.status(jobs.get(1).id()).block(WAIT).attempt()).isEqualTo(2);
        assertThat(storage.status(jobs.get(0).id()).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        assertThat(openAttempts()).isZero();
    }

    @Test
    void shouldEndNothingForAHandleWhoseJobIsNotTheRunsJobAtThatPlace() {
        List<Job> jobs = enqueueAndClaim(2);
        Job real = jobs.get(0);
        Job forged = new Job(jobs.get(1).id(), real.queue(), real.kind(), real.args(), real.priority(),
                real.attempt(), real.maxAttempts(), real.timeout(), real.deadline(), real.runLease(),
                real.readySlot(), real.readyGeneration(), real.leaseSlot(), real.claimSlot(), real.enqueueShard(),
                real.laneSeq());

        assertThat(storage.complete(forged).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(storage.fail(forged, "boom").block(WAIT)).isEqualTo(AttemptResult.LOST);

        assertThat(count("done_entries", "true") + closedPlaces()).isZero();
        assertThat(openAttempts()).isEqualTo(2);
        assertThat(storage.completeAll(jobs).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldReportAnAttemptLiveToItsHeartbeatUntilItEnds() {
        List<Job> jobs = enqueueAndClaim(3);
        long before = db.queryLong("SELECT extract(epoch FROM heartbeat_at) * 1000000 FROM \"" + schema
                + "\".lease_runs");

        assertThat(storage.heartbeat(jobs).collectList().block(WAIT))
                .containsExactlyInAnyOrderElementsOf(jobs.stream().map(Job::id).toList());
        assertThat(db.queryLong("SELECT extract(epoch FROM heartbeat_at) * 1000000 FROM \"" + schema
                + "\".lease_runs")).isGreaterThan(before);

        storage.complete(jobs.get(0)).block(WAIT);
        storage.fail(jobs.get(1), "boom").block(WAIT);
        assertThat(storage.heartbeat(jobs).collectList().block(WAIT)).containsExactly(jobs.get(2).id());
    }

    /**
     * A queue slot outlives every lease slot holding a run of its jobs (gate G1's runs part, from schema step 18, when
     * an attempt counted as completed by its done row in the queue slot; since step 19 it is closed in the run's lease
     * slot, and the gate only delays the prune): after both prunes, late calls find nothing.
     */
    @Test
    void shouldKeepAQueueSlotUntilTheLeaseSlotHoldingItsCompletedRunsIsPruned() {
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        List<Job> jobs = new ArrayList<>();
        while (jobs.size() < 2) {
            jobs.addAll(storage.claim("q", 2, "w").collectList().block(WAIT));
        }
        Job finished = jobs.get(0);
        Job running = jobs.get(1);
        assertThat(List.of(finished.readySlot(), running.readySlot(), finished.leaseSlot(), running.leaseSlot()))
                .containsExactly(0, 1, 0, 0);
        assertThat(storage.complete(finished).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);

        // No open attempt points at queue slot 0, but lease slot 0 still holds the finished job's run.
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT))
                .isEqualTo(new PruneOutcome.SkippedActive(0, SkipReason.QUEUE_ACTIVE_LEASES));
        makeStale();
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isOne();
        assertThat(storage.status(running.id()).block(WAIT).attempt()).isEqualTo(2);

        // Once the lease slot is pruned (its attempts all ended), the queue slot goes, and late calls find nothing.
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(Fixtures.pruneUntilNotBlocked(storage, Ring.LEASE, WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(Fixtures.pruneUntilNotBlocked(storage, Ring.QUEUE, WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        makeStale();
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isZero();
        assertThat(storage.complete(finished).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(storage.counts("q").block(WAIT).completed()).isOne();
    }

    /**
     * A completion locks no queue child but those it writes (its count deltas): a queue prune locks its slot's
     * children NOWAIT, and would end blocked while any completion is open.
     */
    @Test
    void shouldPruneAQueueSlotWhileACompletionOfAJobOfAnotherSlotIsOpen() throws Exception {
        Job first = enqueueAndClaim(1).get(0);
        assertThat(storage.complete(first).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        Job second = enqueueAndClaim(1).get(0);
        assertThat(List.of(second.readySlot(), second.leaseSlot())).containsExactly(1, 1);
        assertThat(storage.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);

        try (Connection completer = db.openJdbc(); Statement statement = completer.createStatement()) {
            completer.setAutoCommit(false);
            assertThat(queryLong(statement, completeSql(List.of(second)))).isEqualTo(1);
            assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT))
                    .isInstanceOfSatisfying(PruneOutcome.Pruned.class, pruned -> assertThat(pruned.slot()).isZero());
            completer.commit();
        }
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(2);
    }

    /**
     * A completion closes only attempts still open (schema step 19: no insert that skips a conflict): a batch that
     * repeats an attempt completed before and gives another one twice closes each open attempt once and reports the
     * repeats lost.
     */
    @Test
    void shouldCloseOnlyTheOpenAttemptsOfABatchThatRepeatsAttempts() {
        List<Job> jobs = enqueueAndClaim(3);
        assertThat(storage.complete(jobs.get(0)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);

        assertThat(storage.completeAll(List.of(jobs.get(0), jobs.get(1), jobs.get(1), jobs.get(2))).block(WAIT))
                .containsExactly(AttemptResult.LOST, AttemptResult.COMPLETED, AttemptResult.LOST,
                        AttemptResult.COMPLETED);

        assertThat(db.query("SELECT places::text FROM \"" + schema + "\".lease_run_closures ORDER BY places[1]",
                rs -> rs.getString(1))).containsExactly("{0}", "{1,2}");
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(3);
        assertThat(openAttempts()).isZero();
    }

    /**
     * A completed job has no done row: its status comes from its run's closure while a lease slot holds the run, and
     * from the absence of any other ending once that slot is pruned; a failed job keeps its done row throughout.
     */
    @Test
    void shouldTellACompletedJobFromAFailedOneBeforeAndAfterTheirRunsLeaseSlotIsPruned() {
        storage.enqueueAll(Flux.range(0, 3).map(i -> JobRequest.builder("q", "k").maxAttempts(1).build()))
                .blockLast(WAIT);
        List<Job> jobs = new ArrayList<>();
        while (jobs.size() < 3) {
            jobs.addAll(storage.claim("q", 3, "w").collectList().block(WAIT));
        }
        assertThat(storage.complete(jobs.get(0)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.fail(jobs.get(1), "boom").block(WAIT)).isEqualTo(AttemptResult.FAILED);
        assertThat(jobs).extracting(job -> storage.status(job.id()).block(WAIT).state())
                .containsExactly(JobState.COMPLETED, JobState.FAILED, JobState.RUNNING);

        assertThat(storage.complete(jobs.get(2)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(Fixtures.pruneUntilNotBlocked(storage, Ring.LEASE, WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(count("lease_runs", "true") + closedPlaces()).isZero();

        assertThat(jobs).extracting(job -> storage.status(job.id()).block(WAIT).state())
                .containsExactly(JobState.COMPLETED, JobState.FAILED, JobState.COMPLETED);
        assertThat(storage.status(jobs.get(1).id()).block(WAIT).error()).isEqualTo("boom");
        assertThat(storage.cancel(jobs.get(0).id()).block(WAIT)).isEqualTo(CancelResult.NOT_CANCELLABLE);
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(2);
    }

    /** A job's place in its run has 10 bits of its run lease: a larger batch is refused before anything is read. */
    @Test
    void shouldRefuseAClaimOfMoreThanAThousandJobsInSql() {
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        assertThatThrownBy(() -> db.queryLong("SELECT count(*) FROM \"" + schema
                        + "\".claim_jobs_v2('q', 1001, 'w', NULL)"))
                .hasMessageContaining("claim_jobs_v2 takes at most 1000 jobs, was 1001");
        assertThat(count("lease_runs", "true") + count("ready_claim_ranges", "true")).isZero();
        assertThat(storage.claim("q", 1000, "w").collectList().block(WAIT)).hasSize(1);
    }

    private static long queryLong(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Waits until {@code n} sessions wait for an advisory lock (a run's). */
    private void awaitLockWaiters(int n) {
        await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_locks"
                + " WHERE locktype = 'advisory' AND NOT granted") >= n);
    }
}
