package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/** Group commit of completions: {@link QueueStorage#completeAll} and a worker's grouped acknowledgements. */
@AwaPostgresTest
final class CompleteAllIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    CompleteAllIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
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

    /** How many transactions wrote the run closures (schema step 19: a completion's record). */
    private long completingTransactions() {
        return db.queryLong("SELECT count(DISTINCT xmin::text) FROM \"" + schema + "\".lease_run_closures");
    }

    private long closedPlaces() {
        return Fixtures.closedPlaces(db, schema);
    }

    @Test
    void shouldCompleteABatchInOneTransactionWithAResultPerJobInOrder() {
        List<Job> jobs = enqueueAndClaim(30);
        Collections.shuffle(jobs);

        List<AttemptResult> results = storage.completeAll(jobs).block(WAIT);

        assertThat(results).hasSize(30).containsOnly(AttemptResult.COMPLETED);
        assertThat(completingTransactions()).isEqualTo(1);
        assertThat(closedPlaces()).isEqualTo(30);
        assertThat(count("done_entries", "true")).isZero();
        assertThat(count("lease_claims", "true") + count("lease_claim_closures", "true")).isZero();
        assertThat(count("leases", "true")).isZero();
        assertThat(db.queryLong("SELECT sum(live) FROM \"" + schema + "\".lease_tallies")).isZero();
        // One count delta for the batch's one (slot, generation, queue, priority), not one per job.
        assertThat(db.queryLong("SELECT sum(delta) FROM \"" + schema + "\".queue_terminal_count_deltas"))
                .isEqualTo(30);
        assertThat(count("queue_terminal_count_deltas", "true")).isEqualTo(1);
        for (Job job : jobs) {
            assertThat(storage.status(job.id()).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        }
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(30);
    }

    /**
     * A ring child's statistics say nothing about what it holds now: analyzed while empty, a lease child still holds
     * the claimed runs of every claim since. A completion must find its runs by primary-key probes, never by reading
     * the child (which would cost every run written to the slot since its last truncation).
     */
    @Test
    void shouldFindTheRunsByIndexWhenTheLeaseChildsStatisticsSayItIsEmpty() throws Exception {
        db.execute("ANALYZE \"" + schema + "\".lease_runs_0");
        List<Job> jobs = new ArrayList<>();
        storage.enqueueAll(Flux.range(0, 200).map(i -> JobRequest.of("q", "k", "{}"))).blockLast(WAIT);
        while (jobs.size() < 200) {
            jobs.addAll(storage.claim("q", 2, "w").collectList().block(WAIT));
        }
        assertThat(jobs).extracting(Job::leaseSlot).containsOnly(0);
        assertThat(count("lease_runs_0", "true")).isEqualTo(100);

        try (java.sql.Connection jdbc = db.openJdbc()) {
            jdbc.setAutoCommit(false);
            try (java.sql.Statement statement = jdbc.createStatement()) {
                statement.execute("SET search_path = \"" + schema + "\"");
                List<Job> batch = jobs.subList(0, 10);
                statement.execute("SELECT * FROM complete_attempts('" + toArray(batch, Job::leaseSlot)
                        + "', '" + toArray(batch, Job::id) + "', '" + toArray(batch, Job::runLease) + "')");
                try (java.sql.ResultSet scans = statement.executeQuery(
                        "SELECT pg_stat_get_xact_numscans('lease_runs_0'::regclass),"
                                + " pg_stat_get_xact_tuples_fetched('lease_runs_0_pkey'::regclass)")) {
                    scans.next();
                    // Sequential scans of the child in this transaction.
                    assertThat(scans.getLong(1)).isZero();
                    // Runs read through the primary key: one probe per attempt, not the child's 100 runs.
                    assertThat(scans.getLong(2)).isEqualTo(batch.size());
                }
            }
            jdbc.commit();
        }
        assertThat(closedPlaces()).isEqualTo(10);
    }

    /**
     * A batch takes its runs' advisory locks in key order, whatever order the caller gives: waiting for the first, it
     * holds none of the others, so two completions sharing runs wait for each other in one direction only.
     */
    @Test
    void shouldTakeABatchsRunLocksInKeyOrderWhateverTheCallersOrder() throws Exception {
        List<Job> jobs = new ArrayList<>();
        storage.enqueueAll(Flux.range(0, 3).map(i -> JobRequest.of("q", "k", "{}"))).blockLast(WAIT);
        while (jobs.size() < 3) {
            jobs.addAll(storage.claim("q", 1, "w").collectList().block(WAIT));
        }
        String runKey = "\"" + schema + "\".run_key";
        List<Long> keys = jobs.stream().map(job -> db.queryLong("SELECT " + runKey + "((-?::bigint) >> 10)",
                job.runLease())).toList();
        List<Job> byKey = new ArrayList<>(jobs);
        byKey.sort(java.util.Comparator.comparingLong(job -> keys.get(jobs.indexOf(job))));
        long firstKey = keys.stream().min(Long::compare).orElseThrow();
        try (java.sql.Connection holder = db.openJdbc()) {
            holder.setAutoCommit(false);
            try (java.sql.Statement statement = holder.createStatement()) {
                statement.execute("SELECT pg_advisory_xact_lock(" + firstKey + ")");
            }
            java.util.concurrent.CompletableFuture<List<AttemptResult>> completion =
                    completionWaitingOnALock(List.of(byKey.get(2), byKey.get(1), byKey.get(0)));

            try (java.sql.Connection probe = db.openJdbc()) {
                probe.setAutoCommit(false);
                for (long key : keys) {
                    if (key != firstKey) {
                        try (java.sql.Statement statement = probe.createStatement();
                                java.sql.ResultSet free = statement.executeQuery(
                                        "SELECT pg_try_advisory_xact_lock(" + key + ")")) {
                            free.next();
                            assertThat(free.getBoolean(1)).as("run lock %d free", key).isTrue();
                        }
                    }
                }
                probe.rollback();
            }
            holder.rollback();
            assertThat(completion.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                    .containsOnly(AttemptResult.COMPLETED);
        }
    }

    /** A heartbeat updates the run row; a completion reads it without a lock, so it never waits for a heartbeat. */
    @Test
    void shouldCompleteARunsAttemptsWhileAHeartbeatOfTheRunIsUncommitted() throws Exception {
        List<Job> jobs = enqueueAndClaim(2);
        try (java.sql.Connection heartbeat = db.openJdbc()) {
            heartbeat.setAutoCommit(false);
            try (java.sql.Statement statement = heartbeat.createStatement()) {
                assertThat(statement.executeUpdate("UPDATE \"" + schema + "\".lease_runs SET heartbeat_at ="
                        + " clock_timestamp()")).isEqualTo(1);
            }

            assertThat(storage.completeAll(jobs).block(WAIT))
                    .containsExactly(AttemptResult.COMPLETED, AttemptResult.COMPLETED);

            heartbeat.commit();
        }
        assertThat(closedPlaces()).isEqualTo(2);
        assertThat(db.queryLong("SELECT sum(live) FROM \"" + schema + "\".lease_tallies")).isZero();
        assertThat(completingTransactions()).isEqualTo(1);
    }

    /** Starts {@code completeAll(jobs)} and returns once its statement waits on a lock. */
    private java.util.concurrent.CompletableFuture<List<AttemptResult>> completionWaitingOnALock(List<Job> jobs) {
        java.util.concurrent.CompletableFuture<List<AttemptResult>> completion = storage.completeAll(jobs).toFuture();
        await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_stat_activity"
                + " WHERE wait_event_type = 'Lock' AND query LIKE '%" + schema + "%complete_attempts%'") == 1);
        return completion;
    }

    private static String toArray(List<Job> jobs, java.util.function.Function<Job, Object> field) {
        return jobs.stream().map(field).map(String::valueOf).collect(java.util.stream.Collectors.joining(",", "{",
                "}"));
    }

    @Test
    void shouldReportLostOnlyForAttemptsNoLongerLive() {
        List<Job> jobs = enqueueAndClaim(4);
        assertThat(storage.complete(jobs.get(1)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.release(jobs.get(3)).block(WAIT)).isEqualTo(AttemptResult.RELEASED);

        List<AttemptResult> results = storage.completeAll(List.of(jobs.get(0), jobs.get(1), jobs.get(2),
                jobs.get(3), jobs.get(0))).block(WAIT);

        assertThat(results).containsExactly(AttemptResult.COMPLETED, AttemptResult.LOST, AttemptResult.COMPLETED,
                AttemptResult.LOST, AttemptResult.LOST);
        assertThat(closedPlaces()).isEqualTo(3);
        assertThat(storage.status(jobs.get(3).id()).block(WAIT).state()).isEqualTo(JobState.AVAILABLE);
    }

    /**
     * A batch runs its lease slot's statement once: completed whole, it needs nothing else (schema step 21 answers
     * it in one statement); completed in part, only the positions it did not complete go through {@code end_attempt}.
     */
    @Test
    void shouldRunTheLeaseSlotsStatementOnceForABatchInOneSlotAndEndOnlyWhatItLeft() throws Exception {
        List<Job> jobs = enqueueAndClaim(4);
        assertThat(jobs).extracting(Job::leaseSlot).containsOnly(0);
        assertThat(storage.complete(jobs.get(1)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);

        Map<String, Object> partial = completeAttemptsCountingCalls(jobs);
        Map<String, Object> repeated = completeAttemptsCountingCalls(List.of(jobs.get(0), jobs.get(2)));
        List<Job> fresh = enqueueAndClaim(3);
        Map<String, Object> whole = completeAttemptsCountingCalls(fresh);

        assertThat(partial).containsEntry("results", List.of("completed", "lost", "completed", "completed"))
                .containsEntry("slot statements", 1L).containsEntry("end_attempt calls", 1L);
        assertThat(repeated).containsEntry("results", List.of("lost", "lost"))
                .containsEntry("slot statements", 1L).containsEntry("end_attempt calls", 2L);
        assertThat(whole).containsEntry("results", List.of("completed", "completed", "completed"))
                .containsEntry("slot statements", 1L).containsEntry("end_attempt calls", 0L);
        assertThat(closedPlaces()).isEqualTo(7);
        assertThat(db.queryLong("SELECT sum(live) FROM \"" + schema + "\".lease_tallies")).isZero();
    }

    /**
     * Calls {@code complete_attempts} for jobs of lease slot 0 in one transaction that counts its function calls
     * ({@code track_functions = pl}): the results by position, and the calls of the slot's statement and of
     * {@code end_attempt}.
     */
    private Map<String, Object> completeAttemptsCountingCalls(List<Job> jobs) throws Exception {
        String s = "\"" + schema + "\".";
        try (java.sql.Connection c = db.openJdbc(); java.sql.Statement statement = c.createStatement()) {
            c.setAutoCommit(false);
            statement.execute("SET LOCAL track_functions = 'pl'");
            List<String> results = new ArrayList<>(Collections.nCopies(jobs.size(), (String) null));
            try (java.sql.ResultSet rs = statement.executeQuery("SELECT o_ord, o_result FROM " + s
                    + "complete_attempts('" + toArray(jobs, Job::leaseSlot) + "', '" + toArray(jobs, Job::id) + "', '"
                    + toArray(jobs, Job::runLease) + "')")) {
                while (rs.next()) {
                    results.set(rs.getInt(1) - 1, rs.getString(2));
                }
            }
            Map<String, Object> counted = new java.util.LinkedHashMap<>();
            counted.put("results", results);
            try (java.sql.ResultSet rs = statement.executeQuery("SELECT"
                    + " coalesce(pg_stat_get_xact_function_calls('" + s + "complete_in_lease_slot_0'::regproc), 0),"
                    + " coalesce(pg_stat_get_xact_function_calls('" + s + "end_attempt'::regproc), 0)")) {
                rs.next();
                counted.put("slot statements", rs.getLong(1));
                counted.put("end_attempt calls", rs.getLong(2));
            }
            c.commit();
            return counted;
        }
    }

    /** A handle of the job's attempt that names lease slot 63, which the ring does not have. */
    private static Job inMissingLeaseSlot(Job job) {
        return new Job(job.id(), "q", "k", "{}", 2, 1, 25, null, null, job.runLease(), 0, 0, 63, 0, 0, 0);
    }

    @Test
    void shouldWriteNothingWhenTheBatchFailsAndLeaveItsAttemptsLive() {
        List<Job> jobs = enqueueAndClaim(3);
        Job broken = inMissingLeaseSlot(jobs.get(2));

        assertThatThrownBy(() -> storage.completeAll(List.of(jobs.get(0), jobs.get(1), broken)).block(WAIT))
                .hasMessageContaining("lease slot 63 does not exist");

        assertThat(closedPlaces()).isZero();
        assertThat(db.queryLong("SELECT sum(live) FROM \"" + schema + "\".lease_tallies")).isEqualTo(3);
        assertThat(storage.completeAll(jobs).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldCompleteABatchWhoseRunsLieInTwoLeaseSlotsInOneTransaction() {
        List<Job> first = enqueueAndClaim(3);
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT))
                .isInstanceOf(RotateOutcome.Rotated.class);
        List<Job> second = enqueueAndClaim(3);
        assertThat(first).extracting(Job::leaseSlot).containsOnly(0);
        assertThat(second).extracting(Job::leaseSlot).containsOnly(1);
        List<Job> batch = new ArrayList<>(second);
        batch.addAll(first);
        batch.add(first.get(0));

        assertThat(storage.completeAll(batch).block(WAIT)).containsExactly(AttemptResult.COMPLETED,
                AttemptResult.COMPLETED, AttemptResult.COMPLETED, AttemptResult.COMPLETED, AttemptResult.COMPLETED,
                AttemptResult.COMPLETED, AttemptResult.LOST);
        assertThat(completingTransactions()).isEqualTo(1);
        assertThat(closedPlaces()).isEqualTo(6);
    }

    @Test
    void shouldRefuseABatchInALeaseSlotTheRingDoesNotHaveAndWriteNothing() {
        List<Job> jobs = enqueueAndClaim(2);
        List<Job> broken = jobs.stream().map(CompleteAllIntegrationTests::inMissingLeaseSlot).toList();

        // All in one lease slot, as a claimed batch is: the same error as for a batch that only partly lies there.
        assertThatThrownBy(() -> storage.completeAll(broken).block(WAIT))
                .hasMessageContaining("lease slot 63 does not exist");

        assertThat(closedPlaces()).isZero();
        assertThat(storage.completeAll(jobs).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldEndEachAttemptOnceWhenBatchesAndRescueRace() {
        for (int round = 0; round < 3; round++) {
            installFreshSchema();
            QueueStorage rescuer = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                    b -> b.heartbeatInterval(Duration.ofMillis(1)).leaseStaleAfter(Duration.ofMillis(3))
                            .retryBackoffBase(Duration.ZERO)));
            List<Job> jobs = enqueueAndClaim(60);
            List<Job> reversed = new ArrayList<>(jobs);
            Collections.reverse(reversed);

            List<List<AttemptResult>> outcomes = Flux.merge(
                            storage.completeAll(jobs).subscribeOn(Schedulers.parallel()),
                            storage.completeAll(reversed).subscribeOn(Schedulers.parallel()),
                            rescuer.ringOperations().rescue(60).subscribeOn(Schedulers.parallel()).map(n -> List.<AttemptResult>of()))
                    .collectList().block(WAIT);

            long completed = outcomes.stream().flatMap(List::stream).filter(r -> r == AttemptResult.COMPLETED)
                    .count();
            assertThat(db.queryLong("SELECT sum(live) FROM \"" + schema + "\".lease_tallies")).isZero();
            // Every attempt ended exactly once: completed by one batch (its place in one run closure) or rescued
            // (ready again as attempt 2, zero backoff), never both or twice.
            String s = "\"" + schema + "\".";
            String closedJobs = "SELECT r.job_ids[p + 1] AS job_id FROM " + s + "lease_run_closures c JOIN " + s
                    + "lease_runs r ON r.lease_slot = c.lease_slot AND r.run_id = c.run_id"
                    + " CROSS JOIN unnest(c.places) p";
            assertThat(db.queryLong("SELECT count(*) FROM (SELECT job_id FROM (" + closedJobs + ") x GROUP BY job_id"
                    + " HAVING count(*) > 1) twice")).isZero();
            assertThat(closedPlaces()).isEqualTo(completed);
            long rescued = count("ready_entries", "attempt = 2");
            assertThat(completed + rescued).isEqualTo(60);
            assertThat(db.queryLong("SELECT count(*) FROM (" + closedJobs + ") d JOIN " + s + "ready_entries r"
                    + " ON r.job_id = d.job_id AND r.attempt = 2")).isZero();
        }
    }

    @Test
    void shouldGroupTheCompletionsOfAWorker() {
        int jobs = 40;
        Sinks.Empty<Void> gate = Sinks.empty();
        AtomicInteger started = new AtomicInteger();
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        Worker worker = storage.worker(WorkerConfig.builder("q", job -> {
            runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
            started.incrementAndGet();
            return gate.asMono();
        }).concurrency(jobs).batchSize(jobs).ackBatchSize(64).build());
        storage.enqueueAll(Flux.range(0, jobs).map(i -> JobRequest.of("q", "k", "{}"))).blockLast(WAIT);
        worker.start().block(WAIT);
        await().atMost(WAIT).until(() -> started.get() == jobs);

        gate.tryEmitEmpty();

        await().atMost(WAIT).until(() -> closedPlaces() == jobs);
        worker.stop(Duration.ofSeconds(5)).block(WAIT);
        assertThat(runs).hasSize(jobs).allSatisfy((id, n) -> assertThat(n.get()).isEqualTo(1));
        // 40 acknowledgements released at once: the first commits alone, the rest wait for it and join groups.
        assertThat(completingTransactions()).isLessThanOrEqualTo(jobs / 4);
    }

    @Test
    void shouldCompleteNothingForAnEmptyListAndRefuseNull() {
        assertThat(storage.completeAll(List.of()).block(WAIT)).isEmpty();
        assertThatThrownBy(() -> storage.completeAll(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobs must not be null");
        List<Job> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> storage.completeAll(withNull)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty()).ackBatchSize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ackBatchSize must be between 1 and 1000, was 0");
        assertThatThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty()).ackMaxDelay(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ackMaxDelay must be greater than 0, was PT0S");
    }
}
