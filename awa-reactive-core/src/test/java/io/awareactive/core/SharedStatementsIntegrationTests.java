package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Claims of one queue, and completions, that share a statement ({@link QueueStorageConfig#maxStatementsInFlight()}).
 * Each test holds a table the statements need locked from a second session, so that the statements in flight stay in
 * flight and later calls wait in the storage, then lets them run.
 */
@AwaPostgresTest
final class SharedStatementsIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String CLAIMS_WAITING_ON_THE_LOCK = waitingOnALock("claim_jobs_v2");
    private static final String COMPLETIONS_WAITING_ON_THE_LOCK = waitingOnALock("complete_attempts");

    private final TestDatabase db;
    private final List<String> statements = new CopyOnWriteArrayList<>();
    private String schema;
    private QueueStorage storage;

    SharedStatementsIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installWithOneClaimStatementInFlight() {
        schema = db.newSchemaName();
        Fixtures.installed(db.connectionFactory(), schema);
        storage = QueueStorage.create(Fixtures.config(CountingConnections.of(db.connectionFactory(), statements,
                new AtomicInteger()), schema, b -> b.maxStatementsInFlight(1)));
    }

    private List<Long> enqueue(int jobs) {
        return storage.enqueueAll(Flux.range(0, jobs).map(i -> JobRequest.of("q", "k", "{}"))).collectList()
                .block(WAIT);
    }

    private static String waitingOnALock(String function) {
        return "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%" + function
                + "%'";
    }

    private long claimStatements() {
        return statements.stream().filter(sql -> sql.contains("claim_jobs_v2")).count();
    }

    private long completionStatements() {
        return statements.stream().filter(sql -> sql.contains("complete_attempts")).count();
    }

    private long count(String sql) {
        return db.queryLong(sql.replace("{s}", "\"" + schema + "\""));
    }

    /** Opens a transaction that holds the table every claim statement reads first; close it to let them run. */
    private Connection holdClaims() throws Exception {
        return hold("lease_ring_rotations");
    }

    /** Opens a transaction that holds the table of run closures, which every completion reads and writes. */
    private Connection holdCompletions() throws Exception {
        return hold("lease_run_closures");
    }

    private Connection hold(String table) throws Exception {
        Connection hold = db.openJdbc();
        hold.setAutoCommit(false);
        try (Statement statement = hold.createStatement()) {
            statement.execute("LOCK TABLE \"" + schema + "\"." + table + " IN ACCESS EXCLUSIVE MODE");
        }
        return hold;
    }

    /** Claims in the background, keeping what arrives (or the error) for the test. */
    private static final class Claim {
        final AtomicReference<List<Job>> jobs = new AtomicReference<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final Disposable subscription;

        Claim(QueueStorage storage, int maxBatch, String workerId) {
            subscription = storage.claim("q", maxBatch, workerId).collectList().subscribe(jobs::set, error::set);
        }

        boolean ended() {
            return jobs.get() != null || error.get() != null;
        }
    }

    /** Completes in the background, keeping the results (or the error) for the test. */
    private static final class Completion {
        final AtomicReference<List<AttemptResult>> results = new AtomicReference<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();

        Completion(QueueStorage storage, List<Job> jobs) {
            storage.completeAll(jobs).subscribe(results::set, error::set);
        }

        boolean ended() {
            return results.get() != null || error.get() != null;
        }
    }

    /** Sends a claim and waits until its statement is blocked on the held lock. */
    private Claim claimInFlight(String workerId) {
        Claim claim = new Claim(storage, 10, workerId);
        await().atMost(WAIT).until(() -> count(CLAIMS_WAITING_ON_THE_LOCK) == 1);
        return claim;
    }

    /** Sends claims that wait in the storage behind the statement in flight. */
    private List<Claim> claimsThatWait(int claims, int maxBatch) {
        List<Claim> waiting = new ArrayList<>();
        for (int i = 0; i < claims; i++) {
            waiting.add(new Claim(storage, maxBatch, "waited-" + i));
        }
        return waiting;
    }

    private void terminateTheBlockedClaim() {
        terminateTheOneWaiting("claim_jobs_v2");
    }

    private void terminateTheOneWaiting(String function) {
        await().atMost(WAIT).until(() -> count(waitingOnALock(function)) == 1);
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                + " WHERE wait_event_type = 'Lock' AND query LIKE '%" + function + "%'");
    }

    private List<List<Job>> claimBatches(int batches) {
        List<List<Job>> claimed = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            claimed.add(storage.claim("q", 10, "w" + i).collectList().block(WAIT));
        }
        assertThat(claimed).allSatisfy(batch -> assertThat(batch).hasSize(10));
        return claimed;
    }

    @Test
    void shouldCompleteTheBatchesThatWaitedInOneStatementAndAnswerEachCaller() throws Exception {
        enqueue(40);
        List<List<Job>> batches = claimBatches(4);
        List<Completion> completions = new ArrayList<>();
        try (Connection hold = holdCompletions()) {
            completions.add(new Completion(storage, batches.get(0)));
            await().atMost(WAIT).until(() -> count(COMPLETIONS_WAITING_ON_THE_LOCK) == 1);
            completions.add(new Completion(storage, batches.get(1)));
            completions.add(new Completion(storage, batches.get(2)));
            // A duplicate of another caller's attempt: in the shared statement it is that attempt's second mention.
            completions.add(new Completion(storage, List.of(batches.get(3).get(0), batches.get(1).get(0))));
            assertThat(completionStatements()).isOne();
            hold.rollback();
        }
        await().atMost(WAIT).until(() -> completions.stream().allMatch(Completion::ended));

        assertThat(completionStatements()).isEqualTo(2);
        assertThat(completions.subList(0, 3)).allSatisfy(completion -> assertThat(completion.results.get())
                .hasSize(10).containsOnly(AttemptResult.COMPLETED));
        assertThat(completions.get(3).results.get()).containsExactly(AttemptResult.COMPLETED, AttemptResult.LOST);
        assertThat(db.queryLong("SELECT count(DISTINCT xmin::text) FROM \"" + schema + "\".lease_run_closures"))
                .isEqualTo(2);
        assertThat(Fixtures.closedPlaces(db, schema)).isEqualTo(31);
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(31);
    }

    @Test
    void shouldFailEveryCompletionOfASharedStatementThatFailsAndWriteNothing() throws Exception {
        enqueue(30);
        List<List<Job>> batches = claimBatches(3);
        Completion first;
        List<Completion> waited = new ArrayList<>();
        try (Connection hold = holdCompletions()) {
            first = new Completion(storage, batches.get(0));
            await().atMost(WAIT).until(() -> count(COMPLETIONS_WAITING_ON_THE_LOCK) == 1);
            waited.add(new Completion(storage, batches.get(1)));
            waited.add(new Completion(storage, batches.get(2)));
            terminateTheOneWaiting("complete_attempts");
            await().atMost(WAIT).until(first::ended);
            terminateTheOneWaiting("complete_attempts");
            await().atMost(WAIT).until(() -> waited.stream().allMatch(Completion::ended));
            hold.rollback();
        }

        assertThat(first.error.get()).isNotNull();
        assertThat(waited).allSatisfy(completion -> assertThat(completion.error.get()).isNotNull());
        assertThat(completionStatements()).isEqualTo(2);
        assertThat(Fixtures.closedPlaces(db, schema)).isZero();
        // Every attempt is still open: completed now, once each.
        List<Job> all = batches.stream().flatMap(List::stream).toList();
        assertThat(storage.completeAll(all).block(WAIT)).hasSize(30).containsOnly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldSendTheClaimsThatWaitedAsOneStatementAndGiveEachJobToOneClaimInArrivalOrder() throws Exception {
        List<Long> ids = enqueue(45);
        List<Claim> waited;
        Claim first;
        try (Connection hold = holdClaims()) {
            first = claimInFlight("first");
            waited = claimsThatWait(5, 10);
            // The five wait in the storage: no statement of theirs has been created.
            assertThat(claimStatements()).isOne();
            hold.rollback();
        }
        await().atMost(WAIT).until(() -> first.ended() && waited.stream().allMatch(Claim::ended));

        assertThat(claimStatements()).isEqualTo(2);
        assertThat(first.jobs.get()).extracting(Job::id).containsExactlyElementsOf(ids.subList(0, 10));
        // The shared claim took the 35 left and dealt them out in the order the claims arrived.
        assertThat(waited).extracting(claim -> claim.jobs.get().size()).containsExactly(10, 10, 10, 5, 0);
        List<Long> dealt = waited.stream().flatMap(claim -> claim.jobs.get().stream()).map(Job::id).toList();
        assertThat(dealt).containsExactlyElementsOf(ids.subList(10, 45));
        assertThat(count("SELECT sum(live) FROM {s}.lease_tallies")).isEqualTo(45);
        assertThat(storage.completeAll(waited.get(3).jobs.get()).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldFailEveryClaimOfASharedStatementThatFailsAndLeaveItsJobsClaimable() throws Exception {
        List<Long> ids = enqueue(20);
        List<Claim> waited;
        Claim first;
        try (Connection hold = holdClaims()) {
            first = claimInFlight("first");
            waited = claimsThatWait(3, 5);
            terminateTheBlockedClaim();
            await().atMost(WAIT).until(first::ended);
            // The three now share one statement, blocked in turn: its backend is killed too.
            terminateTheBlockedClaim();
            await().atMost(WAIT).until(() -> waited.stream().allMatch(Claim::ended));
            hold.rollback();
        }

        assertThat(first.error.get()).isNotNull();
        assertThat(waited).allSatisfy(claim -> assertThat(claim.error.get()).isNotNull());
        assertThat(claimStatements()).isEqualTo(2);
        // Nothing was claimed, nothing skipped: the next claim, sent at once, gets every job.
        assertThat(storage.claim("q", 100, "next").map(Job::id).collectList().block(WAIT))
                .containsExactlyElementsOf(ids);
    }

    @Test
    void shouldDropAClaimCancelledWhileItWaits() throws Exception {
        enqueue(30);
        Claim first;
        Claim kept;
        try (Connection hold = holdClaims()) {
            first = claimInFlight("first");
            Claim cancelled = new Claim(storage, 10, "cancelled");
            kept = new Claim(storage, 10, "kept");
            cancelled.subscription.dispose();
            hold.rollback();
        }
        await().atMost(WAIT).until(() -> first.ended() && kept.ended());

        assertThat(kept.jobs.get()).hasSize(10);
        // The shared statement claimed for the kept claim only: two runs of 10, ten jobs still available.
        assertThat(db.query("SELECT cardinality(job_ids) FROM \"" + schema + "\".lease_runs ORDER BY run_id",
                rs -> rs.getInt(1))).containsExactly(10, 10);
        assertThat(storage.counts("q").block(WAIT).available()).isEqualTo(10);
    }

    @Test
    void shouldReleaseTheJobsOfAClaimCancelledWhileItsStatementRuns() throws Exception {
        List<Long> ids = enqueue(20);
        Claim cancelled;
        Claim waited;
        try (Connection hold = holdClaims()) {
            cancelled = claimInFlight("cancelled");
            waited = new Claim(storage, 10, "waited");
            cancelled.subscription.dispose();
            hold.rollback();
        }
        await().atMost(WAIT).until(waited::ended);
        assertThat(waited.jobs.get()).hasSize(10);

        // The cancelled claim's statement claimed ten jobs for nobody: they are released, ready again at once and
        // on their first attempt, and every job is held by exactly one claimer.
        await().atMost(WAIT).until(() -> storage.counts("q").block(WAIT).available() == 10);
        List<Job> again = storage.claim("q", 100, "next").collectList().block(WAIT);
        assertThat(again).hasSize(10).extracting(Job::attempt).containsOnly(1);
        List<Long> held = new ArrayList<>(waited.jobs.get().stream().map(Job::id).toList());
        held.addAll(again.stream().map(Job::id).toList());
        assertThat(held).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(cancelled.jobs.get()).isNull();
    }

    @Test
    void shouldRunClaimsUpToTheLimitAtOnce() throws Exception {
        storage = QueueStorage.create(Fixtures.config(CountingConnections.of(db.connectionFactory(), statements,
                new AtomicInteger()), schema, b -> b.maxStatementsInFlight(3)));
        enqueue(30);
        List<Claim> claims = new ArrayList<>();
        try (Connection hold = holdClaims()) {
            for (int i = 0; i < 4; i++) {
                claims.add(new Claim(storage, 10, "w" + i));
            }
            // Three statements run (blocked on the lock), the fourth claim waits in the storage.
            await().atMost(WAIT).until(() -> count(CLAIMS_WAITING_ON_THE_LOCK) == 3);
            assertThat(claimStatements()).isEqualTo(3);
            hold.rollback();
        }
        await().atMost(WAIT).until(() -> claims.stream().allMatch(Claim::ended));

        assertThat(claimStatements()).isEqualTo(4);
        // Claims running at once skip the one lane another holds; none is handed a job twice, none loses one.
        List<Long> claimed = claims.stream().flatMap(claim -> claim.jobs.get().stream()).map(Job::id).toList();
        assertThat(claimed).doesNotHaveDuplicates().isNotEmpty();
        assertThat(storage.counts("q").block(WAIT).available()).isEqualTo(30 - claimed.size());
    }
}
