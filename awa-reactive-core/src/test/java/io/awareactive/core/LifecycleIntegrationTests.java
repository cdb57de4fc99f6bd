package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

@AwaPostgresTest
final class LifecycleIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Attempts claimed and not ended, from the lease tallies (exact at every commit). */
    private static final String OPEN_ATTEMPTS = "SELECT coalesce(sum(live), 0) FROM {s}.lease_tallies";

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    LifecycleIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
    }

    private QueueStorage storage(UnaryOperator<QueueStorageConfig.Builder> customizer) {
        return QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, customizer));
    }

    private String t(String table) {
        return "\"" + schema + "\"." + table;
    }

    private long count(String sql) {
        return db.queryLong(sql.replace("{s}", "\"" + schema + "\""));
    }

    private long enqueue(String queue, int priority) {
        return storage.enqueue(JobRequest.builder(queue, "k").priority(priority).build()).block(WAIT);
    }

    private List<Job> claim(QueueStorage s, int max) {
        return s.claim("q", max, "w").collectList().block(WAIT);
    }

    private Job claimOne(QueueStorage s) {
        List<Job> jobs = claim(s, 1);
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    private JobState state(long id) {
        return storage.status(id).map(JobStatus::state).block(WAIT);
    }

    @Test
    void shouldClaimInPriorityOrderThenFifoWithinALane() {
        long low1 = enqueue("q", 4);
        long normal1 = enqueue("q", 2);
        long high = enqueue("q", 1);
        long normal2 = enqueue("q", 2);
        long low2 = enqueue("q", 4);

        List<Long> order = Flux.range(0, 5).concatMap(i -> storage.claim("q", 1, "w")).map(Job::id)
                .collectList().block(WAIT);

        assertThat(order).containsExactly(high, normal1, normal2, low1, low2);
        assertThat(claim(storage, 10)).isEmpty();
    }

    /** A claim takes lane after lane (one lane per priority here) and stops at its batch size in the middle of one. */
    @Test
    void shouldStopAClaimAtItsBatchSizeAcrossLanes() {
        storage.enqueueAll(Flux.range(0, 12).map(i -> JobRequest.builder("q", "k").priority(1 + i / 3).build()))
                .blockLast(WAIT);

        assertThat(claim(storage, 10)).extracting(Job::priority).containsExactly(1, 1, 1, 2, 2, 2, 3, 3, 3, 4);
        assertThat(claim(storage, 10)).extracting(Job::priority).containsExactly(4, 4);
        assertThat(count(OPEN_ATTEMPTS)).isEqualTo(12);
    }

    @Test
    void shouldClaimABatchAcrossLanesAndRecordEachLanesRunInOneRowWithNoLeaseOrReceipt() {
        List<Long> ids = storage.enqueueAll(Flux.range(0, 6).map(i -> JobRequest.builder("q", "k")
                .args("{\"i\":" + i + "}").priority(i % 2 == 0 ? 1 : 3).build())).collectList().block(WAIT);

        List<Job> jobs = claim(storage, 10);

        assertThat(jobs).extracting(Job::id).containsExactly(ids.get(0), ids.get(2), ids.get(4), ids.get(1),
                ids.get(3), ids.get(5));
        assertThat(jobs).extracting(Job::args).startsWith("{\"i\": 0}");
        assertThat(jobs).allSatisfy(job -> {
            assertThat(job.runLease()).isNegative();
            assertThat(job.attempt()).isEqualTo(1);
        });
        // One row per lane's run (schema step 18), each attempt at its place in it (run lease = -(run * 1024 +
        // place)); no lease, and since schema step 7 nothing in the claim ring.
        assertThat(db.query("SELECT x.job_id, -(r.run_id * 1024 + x.n - 1) FROM " + t("lease_runs_0") + " r"
                        + " CROSS JOIN unnest(r.job_ids) WITH ORDINALITY AS x (job_id, n)",
                rs -> rs.getLong(1) + "/" + rs.getLong(2)))
                .containsExactlyInAnyOrderElementsOf(jobs.stream().map(j -> j.id() + "/" + j.runLease()).toList());
        assertThat(count("SELECT count(*) FROM {s}.lease_runs")).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM {s}.leases") + count("SELECT count(*) FROM {s}.lease_claims"))
                .isZero();
        assertThat(jobs).allSatisfy(job -> assertThat(state(job.id())).isEqualTo(JobState.RUNNING));
    }

    @Test
    void shouldNeverSkipTheFirstJobOfAFreshLane() {
        long first = enqueue("fresh", 3);

        Job job = storage.claim("fresh", 5, "w").single().block(WAIT);

        assertThat(job.id()).isEqualTo(first);
        assertThat(job.laneSeq()).isEqualTo(1);
        // The lane's next claim moves its cursor past the first claim's committed range.
        assertThat(storage.claim("fresh", 5, "w").collectList().block(WAIT)).isEmpty();
        assertThat(count("SELECT pg_sequence_last_value(claim_seq) FROM {s}.queue_lanes WHERE queue = 'fresh'"))
                .isEqualTo(1);
    }

    @Test
    void shouldCompleteIntoTheOriginalSlotAndCountIt() {
        long id = enqueue("q", 2);
        Job job = claimOne(storage);

        assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.LOST);

        assertThat(state(id)).isEqualTo(JobState.COMPLETED);
        assertThat(storage.counts("q").block(WAIT)).isEqualTo(new QueueCounts("q", 0, 0, 0, 1, 0, 0));
        // Counted in the job's original slot; recorded by its run's closure (schema step 19), not a done row.
        assertThat(count("SELECT count(*) FROM {s}.queue_terminal_count_deltas_0 WHERE state = 'completed'"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM {s}.lease_run_closures_0 WHERE run_id = " + (-job.runLease() >> 10)
                + " AND places = '{0}'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM {s}.done_entries")).isZero();
        assertThat(count(OPEN_ATTEMPTS)).isZero();
    }

    /**
     * A ring child's statistics say nothing about what it holds now: analyzed while empty, the ready child still holds
     * every job enqueued since. A claim reads a lane's run through the primary key and stops at the batch's size:
     * neither the child nor the rest of the lane (schema step 13's one statement per lane, as step 9's claim_run_k).
     */
    @Test
    void shouldClaimARunByPrimaryKeyProbesWhenTheReadyChildsStatisticsSayItIsEmpty() throws Exception {
        db.execute("ANALYZE " + t("ready_entries_0") + ", " + t("ready_tombstones_0") + ", "
                + t("ready_claim_ranges_0"));
        storage.enqueueAll(Flux.range(0, 500).map(i -> JobRequest.of("q", "k", "{}"))).blockLast(WAIT);

        try (java.sql.Connection jdbc = db.openJdbc()) {
            jdbc.setAutoCommit(false);
            try (Statement statement = jdbc.createStatement()) {
                statement.execute("SET search_path = \"" + schema + "\"");
                try (java.sql.ResultSet claimed = statement.executeQuery("SELECT count(*), min(o_ready_slot),"
                        + " max(o_ready_slot) FROM claim_jobs_v2('q', 10, 'w', NULL)")) {
                    claimed.next();
                    assertThat(claimed.getLong(1)).isEqualTo(10);
                    assertThat(claimed.getInt(2)).isZero();
                    assertThat(claimed.getInt(3)).isZero();
                }
                try (java.sql.ResultSet scans = statement.executeQuery(
                        "SELECT pg_stat_get_xact_numscans('ready_entries_0'::regclass),"
                                + " pg_stat_get_xact_tuples_fetched('ready_entries_0_pkey'::regclass)")) {
                    scans.next();
                    // Sequential scans of the child in this transaction.
                    assertThat(scans.getLong(1)).isZero();
                    // Ready rows read through the primary key: the run of 10, not the child's 500.
                    assertThat(scans.getLong(2)).isEqualTo(10);
                }
            }
            jdbc.commit();
        }
        assertThat(count(OPEN_ATTEMPTS)).isEqualTo(10);
    }

    /**
     * Producers lock a lane under the key lane_key computes. Schema step 13 made the function inlinable (it was
     * planned on every call) without changing a key: a producer on the old definition and one on the new would
     * otherwise not exclude each other.
     */
    @Test
    void shouldKeepEachLanesEnqueueLockKeyAndComputeItInline() {
        assertThat(count("SELECT count(*) FROM (VALUES ('q', 1, 0), ('q', 2, 3), ('a.b-c_d', 4, 63)) AS v (q, p, s)"
                + " WHERE {s}.lane_key(q, p::smallint, s) <> hashtextextended('awa-reactive.lane:" + schema
                + ":' || q || ':' || p || ':' || s, 0)")).isZero();

        String plan = String.join("\n", db.query("EXPLAIN (VERBOSE) SELECT " + t("lane_key")
                + "(l.queue, l.priority, l.enqueue_shard) FROM " + t("queue_lanes") + " l", rs -> rs.getString(1)));
        assertThat(plan).contains("hashtextextended(").doesNotContain("lane_key(");
    }

    /**
     * Done rows have no job_id index (schema step 10): a job is looked for in its slot's done rows by a probe of the
     * primary key's prefix (ready_slot, job_id), never by reading them; a completed job has none (schema step 19), and
     * its run and the run's closures are found by index probes too, never by reading a lease child.
     */
    @Test
    void shouldFindACompletedJobByIndexProbesNeverByReadingASlot() throws Exception {
        storage.enqueueAll(Flux.range(0, 500).map(i -> JobRequest.of("q", "k", "{}"))).blockLast(WAIT);
        List<Job> jobs = new ArrayList<>();
        while (jobs.size() < 500) {
            jobs.addAll(claim(storage, 500));
        }
        assertThat(storage.completeAll(jobs).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        long id = jobs.get(250).id();

        try (java.sql.Connection jdbc = db.openJdbc()) {
            jdbc.setAutoCommit(false);
            try (Statement statement = jdbc.createStatement()) {
                statement.execute("SET search_path = \"" + schema + "\"");
                try (java.sql.ResultSet found = statement.executeQuery("SELECT slot, state FROM locate_job(" + id
                        + ")")) {
                    assertThat(found.next()).isTrue();
                    assertThat(found.getInt(1)).isZero();
                    assertThat(found.getString(2)).isEqualTo("completed");
                }
                // This transaction's sequential scans of the children, and scans of their indexes.
                try (java.sql.ResultSet scans = statement.executeQuery(
                        "SELECT pg_stat_get_xact_numscans('done_entries_0'::regclass),"
                                + " pg_stat_get_xact_numscans('done_entries_0_pkey'::regclass),"
                                + " pg_stat_get_xact_numscans('lease_runs_0'::regclass),"
                                + " pg_stat_get_xact_numscans('lease_runs_0_queue_priority_enqueue_shard_lane_seqs_idx'"
                                + "::regclass),"
                                + " pg_stat_get_xact_numscans('lease_run_closures_0'::regclass)")) {
                    scans.next();
                    assertThat(scans.getLong(1)).isZero();
                    assertThat(scans.getLong(2)).isEqualTo(1);
                    assertThat(scans.getLong(3)).isZero();
                    assertThat(scans.getLong(4)).isEqualTo(1);
                    assertThat(scans.getLong(5)).isZero();
                }
            }
            jdbc.rollback();
        }
        assertThat(count("SELECT count(*) FROM pg_indexes WHERE schemaname = '" + schema
                + "' AND indexname LIKE 'done_entries%job_id%'")).isZero();
    }

    @Test
    void shouldRollBackAJobWithTheCallersTransactionAndRunACommittedOneOnce() {
        db.execute("CREATE TABLE " + t("orders") + " (id int)");
        Mono<Long> rolledBack = Mono.usingWhen(Mono.from(db.connectionFactory().create()),
                c -> Mono.from(c.beginTransaction())
                        .then(Mono.from(c.createStatement("INSERT INTO " + t("orders") + " VALUES (1)").execute())
                                .flatMap(r -> Mono.from(r.getRowsUpdated())))
                        .then(storage.enqueue(c, JobRequest.of("q", "rolled-back", "{}")))
                        .flatMap(id -> Mono.from(c.rollbackTransaction()).thenReturn(id)),
                Connection::close);
        Mono<Long> committed = Mono.usingWhen(Mono.from(db.connectionFactory().create()),
                c -> Mono.from(c.beginTransaction())
                        .then(Mono.from(c.createStatement("INSERT INTO " + t("orders") + " VALUES (2)").execute())
                                .flatMap(r -> Mono.from(r.getRowsUpdated())))
                        .then(storage.enqueue(c, JobRequest.of("q", "committed", "{}")))
                        .flatMap(id -> Mono.from(c.commitTransaction()).thenReturn(id)),
                Connection::close);

        long lost = rolledBack.block(WAIT);
        long kept = committed.block(WAIT);

        assertThat(db.query("SELECT id FROM " + t("orders"), rs -> rs.getInt(1))).containsExactly(2);
        assertThat(storage.status(lost).blockOptional(WAIT)).isEmpty();
        List<Job> runs = claim(storage, 10);
        assertThat(runs).extracting(Job::id).containsExactly(kept);
        assertThat(storage.complete(runs.get(0)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(claim(storage, 10)).isEmpty();
        assertThat(Fixtures.closedPlaces(db, schema)).isEqualTo(1);
    }

    @Test
    void shouldRetryWithExponentialBackoffUntilTheFinalFailure() {
        QueueStorage retrying = storage(b -> b.retryBackoffBase(Duration.ofMillis(300)).retryBackoffFactor(2)
                .retryBackoffJitter(0));
        long id = retrying.enqueue(JobRequest.builder("q", "k").maxAttempts(3).build()).block(WAIT);

        Job first = claimOne(retrying);
        assertThat(retrying.fail(first, "boom 1").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);
        assertThat(backoffMillis(id)).isBetween(300.0, 1300.0);
        assertThat(retrying.status(id).block(WAIT)).satisfies(s -> {
            assertThat(s.state()).isEqualTo(JobState.SCHEDULED);
            assertThat(s.attempt()).isEqualTo(2);
            assertThat(s.error()).isEqualTo("boom 1");
        });
        assertThat(claim(retrying, 10)).isEmpty();

        Job second = promoteAndClaim(retrying);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(retrying.fail(second, "boom 2").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);
        assertThat(backoffMillis(id)).isBetween(600.0, 1600.0);

        Job third = promoteAndClaim(retrying);
        assertThat(third.attempt()).isEqualTo(3);
        assertThat(retrying.fail(third, "boom 3").block(WAIT)).isEqualTo(AttemptResult.FAILED);

        assertThat(retrying.status(id).block(WAIT)).satisfies(s -> {
            assertThat(s.state()).isEqualTo(JobState.FAILED);
            assertThat(s.attempt()).isEqualTo(3);
            assertThat(s.error()).isEqualTo("boom 3");
        });
        assertThat(retrying.counts("q").block(WAIT)).isEqualTo(new QueueCounts("q", 0, 0, 0, 0, 1, 0));
        assertThat(count("SELECT count(*) FROM {s}.dead_letter_jobs WHERE job_id = " + id
                + " AND attempts = 3 AND last_error = 'boom 3'")).isEqualTo(1);
        // One terminal row, written by the third attempt; no attempt is still leased.
        assertThat(db.query("SELECT state || '/' || attempt || '/' || run_lease FROM " + t("done_entries")
                + " WHERE job_id = " + id, rs -> rs.getString(1))).containsExactly("failed/3/" + third.runLease());
        assertThat(count(OPEN_ATTEMPTS)).isZero();
    }

    @Test
    void shouldSkipTheDeadLetterRowWhenRetentionIsZeroAndRetryAtOnceWithZeroBackoff() {
        QueueStorage s = storage(b -> b.retryBackoffBase(Duration.ZERO).deadLetterRetention(Duration.ZERO));
        long id = s.enqueue(JobRequest.builder("q", "k").maxAttempts(2).build()).block(WAIT);

        assertThat(s.fail(claimOne(s), "first").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);
        assertThat(count("SELECT count(*) FROM {s}.deferred_jobs")).isZero();
        Job again = claimOne(s);
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(s.fail(again, "second").block(WAIT)).isEqualTo(AttemptResult.FAILED);
        assertThat(count("SELECT count(*) FROM {s}.dead_letter_jobs")).isZero();
        assertThat(state(id)).isEqualTo(JobState.FAILED);
    }

    private double backoffMillis(long id) {
        return db.query("SELECT extract(epoch FROM run_at - created_at) * 1000 FROM " + t("deferred_jobs")
                + " WHERE job_id = ?", rs -> rs.getDouble(1), id).get(0);
    }

    private Job promoteAndClaim(QueueStorage s) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> s.ringOperations().promote(100).block(WAIT) == 1);
        return claimOne(s);
    }

    @Test
    void shouldNotClaimAScheduledJobBeforeItsRunAt() {
        Instant runAt = Instant.now().plusSeconds(3);
        long id = storage.enqueue(JobRequest.builder("q", "k").runAt(runAt).build()).block(WAIT);
        assertThat(storage.status(id).block(WAIT).runAt()).isEqualTo(runAt.truncatedTo(
                java.time.temporal.ChronoUnit.MICROS));
        assertThat(storage.counts("q").block(WAIT).scheduled()).isEqualTo(1);

        assertThat(storage.ringOperations().promote(100).block(WAIT)).isZero();
        assertThat(claim(storage, 10)).isEmpty();

        Job job = promoteAndClaim(storage);
        assertThat(Instant.now()).isAfterOrEqualTo(runAt);
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.attempt()).isEqualTo(1);
    }

    @Test
    void shouldCancelAReadyJobSoClaimersSkipIt() {
        long cancelled = enqueue("q", 2);
        long next = enqueue("q", 2);

        assertThat(storage.cancel(cancelled).block(WAIT)).isEqualTo(CancelResult.CANCELLED);
        assertThat(storage.cancel(cancelled).block(WAIT)).isEqualTo(CancelResult.NOT_CANCELLABLE);
        assertThat(storage.counts("q").block(WAIT)).isEqualTo(new QueueCounts("q", 1, 0, 0, 0, 0, 1));

        assertThat(claim(storage, 10)).extracting(Job::id).containsExactly(next);
        assertThat(storage.cancel(next).block(WAIT)).isEqualTo(CancelResult.NOT_CANCELLABLE);
        assertThat(state(cancelled)).isEqualTo(JobState.CANCELLED);
        assertThat(state(next)).isEqualTo(JobState.RUNNING);
        assertThat(storage.cancel(987_654_321L).block(WAIT)).isEqualTo(CancelResult.NOT_FOUND);
        assertThat(storage.status(987_654_321L).blockOptional(WAIT)).isEmpty();
    }

    @Test
    void shouldCancelAScheduledJob() {
        long id = storage.enqueue(JobRequest.builder("q", "k").runAt(Instant.now().minusSeconds(1)).build())
                .block(WAIT);

        assertThat(storage.cancel(id).block(WAIT)).isEqualTo(CancelResult.CANCELLED);

        assertThat(storage.ringOperations().promote(10).block(WAIT)).isZero();
        assertThat(state(id)).isEqualTo(JobState.CANCELLED);
        assertThat(storage.counts("q").block(WAIT)).isEqualTo(new QueueCounts("q", 0, 0, 0, 0, 0, 1));
    }

    @Test
    void shouldRescueAStaleAttemptAndIgnoreItsLateCompletion() {
        QueueStorage s = storage(b -> b.heartbeatInterval(Duration.ofMillis(100))
                .leaseStaleAfter(Duration.ofSeconds(1)).retryBackoffBase(Duration.ZERO));
        long id = s.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        Job stale = claimOne(s);
        assertThat(s.ringOperations().rescue(10).block(WAIT)).isZero();

        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> s.ringOperations().rescue(10).block(WAIT) == 1);

        // The stale attempt ended and the job is ready again as its next attempt (zero backoff).
        assertThat(count(OPEN_ATTEMPTS)).isZero();
        assertThat(db.query("SELECT attempt FROM " + t("ready_entries") + " WHERE job_id = " + id + " ORDER BY lane_seq",
                rs -> rs.getInt(1))).containsExactly(1, 2);
        String rows = "SELECT (SELECT count(*) FROM {s}.done_entries)"
                + " + (SELECT coalesce(sum(cardinality(ended)), 0) FROM {s}.lease_runs)"
                + " + (SELECT count(*) FROM {s}.lease_run_closures)"
                + " + (SELECT count(*) FROM {s}.ready_entries) + (SELECT count(*) FROM {s}.deferred_jobs)";
        long rowsBefore = count(rows);
        assertThat(s.complete(stale).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(s.fail(stale, "late").block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(s.heartbeat(stale).block(WAIT)).isFalse();
        assertThat(count(rows)).isEqualTo(rowsBefore);

        Job retry = claimOne(s);
        assertThat(retry.id()).isEqualTo(id);
        assertThat(retry.attempt()).isEqualTo(2);
        assertThat(retry.runLease()).isNotEqualTo(stale.runLease());
    }

    @Test
    void shouldRescueAnAttemptPastItsDeadlineEvenWhileItHeartbeats() {
        QueueStorage s = storage(b -> b.retryBackoffBase(Duration.ZERO));
        long id = s.enqueue(JobRequest.builder("q", "k").maxAttempts(1).timeout(Duration.ofMillis(300)).build())
                .block(WAIT);
        Job job = claimOne(s);
        assertThat(job.deadline()).isNotNull();

        await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> !s.heartbeat(job).block(WAIT) || s.ringOperations().rescue(10).block(WAIT) == 1);

        assertThat(s.status(id).block(WAIT)).satisfies(st -> {
            assertThat(st.state()).isEqualTo(JobState.FAILED);
            assertThat(st.error()).isEqualTo("rescued: deadline passed");
        });
        assertThat(Instant.now()).isAfter(job.deadline());
    }

    @Test
    void shouldKeepAHeartbeatingAttemptAliveAndRescueItOnceHeartbeatsStop() {
        QueueStorage s = storage(b -> b.heartbeatInterval(Duration.ofMillis(100))
                .leaseStaleAfter(Duration.ofMillis(400)));
        s.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        Job job = claimOne(s);

        List<Integer> rescued = Flux.interval(Duration.ofMillis(100)).onBackpressureDrop()
                .take(Duration.ofMillis(1500))
                .concatMap(tick -> s.heartbeat(job).then(s.ringOperations().rescue(10)))
                .collectList().block(WAIT);

        assertThat(rescued).hasSizeGreaterThan(5).containsOnly(0);
        assertThat(s.heartbeat(job).block(WAIT)).isTrue();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> s.ringOperations().rescue(10).block(WAIT) == 1);
        assertThat(s.heartbeat(job).block(WAIT)).isFalse();
    }

    @Test
    void shouldReleaseWithoutConsumingAnAttempt() {
        long id = enqueue("q", 2);
        Job job = claimOne(storage);

        assertThat(storage.release(job).block(WAIT)).isEqualTo(AttemptResult.RELEASED);

        assertThat(state(id)).isEqualTo(JobState.AVAILABLE);
        Job again = claimOne(storage);
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.attempt()).isEqualTo(1);
        assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.LOST);
    }

    @Test
    void shouldSendOneNotificationPerTransactionAndQueue() throws Exception {
        try (java.sql.Connection listener = db.openJdbc(); Statement statement = listener.createStatement()) {
            statement.execute("LISTEN \"awa_jobs_" + schema + "\"");
            storage.enqueueAll(Flux.range(0, 9).map(i -> JobRequest.builder(i % 3 == 0 ? "other" : "q", "k")
                    .priority(1 + i % 4).build())).blockLast(WAIT);

            List<String> payloads = new java.util.ArrayList<>();
            await().atMost(WAIT).until(() -> {
                statement.execute("SELECT 1");
                PGNotification[] received = listener.unwrap(PGConnection.class).getNotifications(100);
                if (received != null) {
                    for (PGNotification n : received) {
                        payloads.add(n.getParameter());
                    }
                }
                return payloads.size() >= 2;
            });
            statement.execute("SELECT 1");
            PGNotification[] more = listener.unwrap(PGConnection.class).getNotifications(200);
            assertThat(more == null ? 0 : more.length).isZero();
            assertThat(payloads).containsExactlyInAnyOrder("q", "other");
        }
    }

    /**
     * A lane with work already has a claimer coming back for it, so only the enqueue that gives a lane work when it
     * had none notifies; a lane drained by a committed claim (its claim sequence still one claim behind) counts as
     * having none.
     */
    @Test
    void shouldNotifyOnlyWhenALaneGoesFromNoWorkToWork() throws Exception {
        try (java.sql.Connection listener = db.openJdbc(); Statement statement = listener.createStatement()) {
            statement.execute("LISTEN \"awa_jobs_" + schema + "\"");
            long first = storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            assertThat(notificationsUpTo(listener, statement, "q")).containsExactly("q");

            storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            // Notifications arrive in commit order: one for q would come before this one for the new lane of other.
            storage.enqueue(JobRequest.of("other", "k", "{}")).block(WAIT);
            assertThat(notificationsUpTo(listener, statement, "other")).containsExactly("other");

            assertThat(storage.claim("q", 10, "w").map(Job::id).collectList().block(WAIT)).hasSize(2)
                    .contains(first);
            storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            assertThat(notificationsUpTo(listener, statement, "q")).containsExactly("q");
        }
    }

    /**
     * An enqueue in the caller's REPEATABLE READ transaction sees the lane's claim ranges as of its snapshot, which
     * can predate the claim that emptied the lane: the lane has no work, so the enqueue must notify, or its job waits
     * for a worker's poll.
     */
    @Test
    void shouldNotifyAnEnqueueFromAnOlderSnapshotIntoALaneEmptiedSince() throws Exception {
        try (java.sql.Connection listener = db.openJdbc(); Statement statement = listener.createStatement()) {
            statement.execute("LISTEN \"awa_jobs_" + schema + "\"");
            storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            assertThat(notificationsUpTo(listener, statement, "q")).containsExactly("q");

            Connection caller = Mono.from(db.connectionFactory().create()).block(WAIT);
            try {
                Mono.from(caller.beginTransaction(io.r2dbc.spi.IsolationLevel.REPEATABLE_READ)).block(WAIT);
                // The transaction's snapshot, taken before the lane's job is claimed.
                Flux.from(caller.createStatement("SELECT 1").execute()).flatMap(r -> r.map((row, meta) -> 1))
                        .blockLast(WAIT);
                assertThat(claim(storage, 10)).hasSize(1);
                storage.enqueue(caller, JobRequest.of("q", "k", "{}")).block(WAIT);
                Mono.from(caller.commitTransaction()).block(WAIT);
            } finally {
                Mono.from(caller.close()).block(WAIT);
            }

            // Notifications arrive in commit order: one for q would come before this one for the new lane of other.
            storage.enqueue(JobRequest.of("other", "k", "{}")).block(WAIT);
            assertThat(notificationsUpTo(listener, statement, "other")).containsExactly("q", "other");
        }
    }

    /** The payloads the listening connection receives, up to and including the first equal to {@code last}. */
    private static List<String> notificationsUpTo(java.sql.Connection listener, Statement statement, String last) {
        List<String> payloads = new java.util.ArrayList<>();
        await().atMost(WAIT).until(() -> {
            statement.execute("SELECT 1");
            PGNotification[] received = listener.unwrap(PGConnection.class).getNotifications(100);
            for (PGNotification n : received == null ? new PGNotification[0] : received) {
                payloads.add(n.getParameter());
            }
            return payloads.contains(last);
        });
        return payloads;
    }

    @Test
    void shouldRejectBadInputAtCallTimeWritingNothing() {
        QueueStorage small = storage(b -> b.maxArgsBytes(16));
        assertThatIllegalArgumentException().isThrownBy(() -> small.enqueue(JobRequest.of("q", "k",
                "{\"much\": \"too long for sixteen bytes\"}"))).withMessage("args must be at most maxArgsBytes (16)"
                + " bytes, was 38 bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.claim("Bad Queue", 1, "w"));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.claim("q", 0, "w"))
                .withMessage("maxBatch must be between 1 and 1000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().promote(0));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.enqueue(null));
        List<Long> accepted = new java.util.ArrayList<>();
        assertThat(small.enqueueAll(Flux.just(JobRequest.of("q", "k", "{}"),
                        JobRequest.of("q", "k", "[\"" + "x".repeat(20) + "\"]")))
                .doOnNext(accepted::add)
                .then().onErrorResume(IllegalArgumentException.class, e -> Mono.empty()).thenReturn(1)
                .block(WAIT)).isEqualTo(1);
        assertThat(accepted).isEmpty();
        assertThat(count("SELECT count(*) FROM {s}.ready_entries")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.queue_lanes")).isZero();
    }
}
