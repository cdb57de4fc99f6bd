package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.IsolationLevel;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Design §12 scenarios 12 (placement), 25 (claim cursor) and the claim half of 16 (ring keys held elsewhere). */
@AwaPostgresTest
final class RingPlacementIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Attempts claimed and not ended, from the lease tallies (exact at every commit). */
    private static final String OPEN_ATTEMPTS = "SELECT coalesce(sum(live), 0) FROM {s}.lease_tallies";

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    RingPlacementIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, b -> b
                .retryBackoffBase(Duration.ofMillis(50)).retryBackoffJitter(0)));
        storage.install().block(WAIT);
    }

    private long count(String sql) {
        return db.queryLong(sql.replace("{s}", "\"" + schema + "\""));
    }

    private Job claimOne() {
        return storage.claim("q", 1, "w").single().block(WAIT);
    }

    private List<Long> claimIds() {
        return storage.claim("q", 10, "w").map(Job::id).collectList().block(WAIT);
    }

    @Test
    void shouldPlaceEveryRowInItsRingSlot() {
        long a = storage.enqueue(JobRequest.of("q", "a", "{}")).block(WAIT);
        assertThat(count("SELECT count(*) FROM {s}.ready_entries_0 WHERE job_id = " + a)).isEqualTo(1);
        Fixtures.rotated(storage, Ring.QUEUE, 1, WAIT);
        Job jobA = claimOne();
        assertThat(jobA.readySlot()).isZero();
        assertThat(count("SELECT count(*) FROM {s}.ready_claim_ranges_0")).isEqualTo(1);
        Fixtures.rotated(storage, Ring.LEASE, 1, WAIT);
        // Since schema step 7 a claim writes nothing into the claim ring: its current slot is empty, so it stays.
        assertThat(storage.ringOperations().rotate(Ring.CLAIM).block(WAIT))
                .isInstanceOf(RotateOutcome.SkippedIdle.class);

        // Completion: the delta in the job's ORIGINAL ready slot, the run's closure in the run's lease slot (schema
        // step 19: no done row), no open attempt left, no claim-ring closure.
        assertThat(storage.complete(jobA).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(count("SELECT count(*) FROM {s}.lease_run_closures_" + jobA.leaseSlot() + " WHERE run_id = "
                + (-jobA.runLease() >> 10))).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM {s}.done_entries")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.queue_terminal_count_deltas_0")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM {s}.lease_claim_closures")).isZero();
        assertThat(count(OPEN_ATTEMPTS)).isZero();

        // Retry: deferred, then promoted into the then-current queue slot.
        long b = storage.enqueue(JobRequest.builder("q", "b").maxAttempts(3).build()).block(WAIT);
        Job first = claimOne();
        assertThat(first.readySlot()).isEqualTo(1);
        assertThat(first.leaseSlot()).isEqualTo(1);
        assertThat(first.claimSlot()).isZero();
        assertThat(storage.fail(first, "boom").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);
        assertThat(count("SELECT count(*) FROM {s}.deferred_jobs WHERE job_id = " + b + " AND attempt = 2"))
                .isEqualTo(1);
        assertThat(count(OPEN_ATTEMPTS)).isZero();
        Fixtures.rotated(storage, Ring.QUEUE, 2, WAIT);
        await().atMost(WAIT).until(() -> storage.ringOperations().promote(10).block(WAIT) == 1);
        assertThat(count("SELECT attempt FROM {s}.ready_entries_2 WHERE job_id = " + b)).isEqualTo(2);

        // Release: a ready row with the SAME attempt in the current slot.
        Job second = claimOne();
        assertThat(second.attempt()).isEqualTo(2);
        Fixtures.rotated(storage, Ring.QUEUE, 3, WAIT);
        assertThat(storage.release(second).block(WAIT)).isEqualTo(AttemptResult.RELEASED);
        assertThat(count("SELECT attempt FROM {s}.ready_entries_3 WHERE job_id = " + b)).isEqualTo(2);
        assertThat(count(OPEN_ATTEMPTS)).isZero();

        // Rescue: the attempt ended and the next attempt scheduled; the late completion of a rescued or released
        // attempt writes nothing.
        Job third = claimOne();
        assertThat(third.attempt()).isEqualTo(2);
        QueueStorage rescuer = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, config -> config
                .heartbeatInterval(Duration.ofMillis(100)).leaseStaleAfter(Duration.ofMillis(300))
                .retryBackoffBase(Duration.ofMillis(50)).retryBackoffJitter(0)));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> rescuer.ringOperations().rescue(10).block(WAIT) == 1);
        assertThat(count(OPEN_ATTEMPTS)).isZero();
        assertThat(storage.status(b).block(WAIT).attempt()).isEqualTo(3);
        String allRows = "SELECT (SELECT count(*) FROM {s}.done_entries)"
                + " + (SELECT coalesce(sum(cardinality(ended)), 0) FROM {s}.lease_runs)"
                + " + (SELECT count(*) FROM {s}.lease_run_closures)"
                + " + (SELECT count(*) FROM {s}.ready_entries) + (SELECT count(*) FROM {s}.deferred_jobs)"
                + " + (SELECT count(*) FROM {s}.queue_terminal_count_deltas)";
        long before = count(allRows);
        assertThat(storage.complete(third).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(storage.complete(second).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(storage.fail(first, "late").block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(count(allRows)).isEqualTo(before);
    }

    @Test
    void shouldEnqueueClaimAndCompleteThroughEverySlotOfTheQueueAndLeaseRings() {
        // Schema step 7 generates, per installation, the CASE branches that call each slot's functions: a branch
        // calling another slot's function would lose this slot's jobs or leases.
        int queueSlots = storage.config().slotCount(Ring.QUEUE);
        int leaseSlots = storage.config().slotCount(Ring.LEASE);
        for (int k = 0; k < Math.max(queueSlots, leaseSlots); k++) {
            List<Long> ids = storage.enqueueAll(Flux.range(0, 2).map(i -> JobRequest.of("q", "k", "{}")))
                    .collectList().block(WAIT);
            List<Job> jobs = storage.claim("q", 10, "w").collectList().block(WAIT);
            assertThat(jobs).extracting(Job::id).containsExactlyElementsOf(ids);
            assertThat(jobs).allSatisfy(job -> {
                assertThat(job.readySlot()).isEqualTo(storage.ringOperations().cursor(Ring.QUEUE).block(WAIT).slot());
                assertThat(job.leaseSlot()).isEqualTo(storage.ringOperations().cursor(Ring.LEASE).block(WAIT).slot());
            });
            assertThat(storage.completeAll(jobs).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
            assertThat(count(OPEN_ATTEMPTS)).isZero();
            for (Ring ring : List.of(Ring.QUEUE, Ring.LEASE)) {
                if (k + 1 < storage.config().slotCount(ring)) {
                    assertThat(storage.ringOperations().rotate(ring).block(WAIT))
                            .isInstanceOf(RotateOutcome.Rotated.class);
                }
            }
        }
        assertThat(storage.counts("q").block(WAIT).completed()).isEqualTo(2L * Math.max(queueSlots, leaseSlots));
    }

    @Test
    void shouldLeaveTheCursorOneClaimBehindUntilTheLanesNextClaim() {
        List<Long> ids = storage.enqueueAll(Flux.range(0, 5).map(i -> JobRequest.of("q", "k", "{}")))
                .collectList().block(WAIT);
        String cursor = "SELECT pg_sequence_last_value(claim_seq) FROM {s}.queue_lanes WHERE queue = 'q'";

        assertThat(storage.claim("q", 2, "w").map(Job::id).collectList().block(WAIT))
                .containsExactly(ids.get(0), ids.get(1));
        // The claim committed without moving the sequence; counts read the committed range instead.
        assertThat(count(cursor)).isZero();
        assertThat(storage.counts("q").block(WAIT).available()).isEqualTo(3);

        assertThat(storage.claim("q", 2, "w").map(Job::id).collectList().block(WAIT))
                .containsExactly(ids.get(2), ids.get(3));
        assertThat(count(cursor)).isEqualTo(2);
        assertThat(claimIds()).containsExactly(ids.get(4));
        assertThat(count(cursor)).isEqualTo(4);
        assertThat(storage.claim("q", 10, "w").collectList().block(WAIT)).isEmpty();
        assertThat(count(cursor)).isEqualTo(5);
        assertThat(count(OPEN_ATTEMPTS)).isEqualTo(5);
        assertThat(storage.counts("q").block(WAIT).available()).isZero();
    }

    @Test
    void shouldNeitherSkipNorRepeatAJobWhenAClaimIsKilledAfterItMovedTheCursor() throws Exception {
        List<Long> ids = storage.enqueueAll(Flux.range(0, 6).map(i -> JobRequest.of("q", "k", "{}")))
                .collectList().block(WAIT);
        assertThat(storage.claim("q", 2, "w").map(Job::id).collectList().block(WAIT))
                .containsExactly(ids.get(0), ids.get(1));
        String cursor = "SELECT pg_sequence_last_value(claim_seq) FROM {s}.queue_lanes WHERE queue = 'q'";

        try (Connection killed = db.openJdbc()) {
            killed.setAutoCommit(false);
            List<Long> claimed = new ArrayList<>();
            int pid;
            try (Statement statement = killed.createStatement()) {
                try (java.sql.ResultSet rows = statement.executeQuery("SELECT o_job_id FROM \"" + schema
                        + "\".claim_jobs_v2('q', 2, 'killed', NULL)")) {
                    while (rows.next()) {
                        claimed.add(rows.getLong(1));
                    }
                }
                try (java.sql.ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
                    rows.next();
                    pid = rows.getInt(1);
                }
            }
            assertThat(claimed).containsExactly(ids.get(2), ids.get(3));
            // The open claim moved the sequence past the committed range only (sequences are not transactional).
            assertThat(count(cursor)).isEqualTo(2);
            assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)).isOne();
            db.execute("SELECT pg_terminate_backend(" + pid + ")");
            await().atMost(WAIT).until(() -> count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) == 0);
        }

        List<Job> next = storage.claim("q", 10, "w").collectList().block(WAIT);

        assertThat(next).extracting(Job::id).containsExactly(ids.get(2), ids.get(3), ids.get(4), ids.get(5));
        assertThat(storage.completeAll(next).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        assertThat(storage.claim("q", 10, "w").collectList().block(WAIT)).isEmpty();
        assertThat(Fixtures.closedPlaces(db, schema)).isEqualTo(4);
        // The killed claim left nothing: the only open attempts are the first claim's, still running.
        String s = "\"" + schema + "\".";
        assertThat(db.query("SELECT x.job_id FROM " + s + "lease_runs r"
                + " CROSS JOIN unnest(r.job_ids) WITH ORDINALITY AS x (job_id, n) WHERE NOT EXISTS (SELECT 1 FROM " + s
                + "lease_run_closures c WHERE c.run_id = r.run_id AND (x.n - 1)::int = ANY (c.places))"
                + " ORDER BY x.job_id", rs -> rs.getLong(1))).containsExactly(ids.get(0), ids.get(1));
        assertThat(count(OPEN_ATTEMPTS)).isEqualTo(2);
    }

    @Test
    void shouldSkipALaneWhoseClaimHeadAnOpenClaimHoldsAndRepeatNoneOfItsJobs() throws Exception {
        List<Long> ids = storage.enqueueAll(Flux.range(0, 3).map(i -> JobRequest.of("q", "k", "{}")))
                .collectList().block(WAIT);
        try (Connection open = db.openJdbc(); Statement statement = open.createStatement()) {
            open.setAutoCommit(false);
            try (java.sql.ResultSet rows = statement.executeQuery("SELECT o_job_id FROM \"" + schema
                    + "\".claim_jobs_v2('q', 1, 'open', NULL)")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getLong(1)).isEqualTo(ids.get(0));
            }
            // Its range and the cursor are uncommitted: a claimer that did not skip the lane would take ids[0] again.
            assertThat(claimIds()).isEmpty();
            open.commit();
        }
        assertThat(claimIds()).containsExactly(ids.get(1), ids.get(2));
    }

    @Test
    void shouldTakeNoTransactionIdForAClaimThatFindsNothing() throws Exception {
        // A reserved position with no segment: the lane has work by its sequences, so the claim locks its head and
        // looks for a segment, as for an enqueue still in flight.
        db.execute("SELECT \"" + schema + "\".create_lane('q', 2::smallint, 0)");
        db.execute("SELECT nextval(enqueue_seq) FROM \"" + schema + "\".queue_lanes");
        try (Connection claimer = db.openJdbc(); Statement statement = claimer.createStatement()) {
            claimer.setAutoCommit(false);
            try (java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) FROM \"" + schema
                    + "\".claim_jobs_v2('q', 10, 'w', NULL)")) {
                rows.next();
                assertThat(rows.getLong(1)).isZero();
            }
            // No transaction id: nothing written, so its commit waits for no WAL flush.
            try (java.sql.ResultSet rows = statement.executeQuery("SELECT pg_current_xact_id_if_assigned() IS NULL")) {
                rows.next();
                assertThat(rows.getBoolean(1)).isTrue();
            }
            claimer.commit();
        }
    }

    /** Creates lanes (q, 2, 0) to (q, 2, shards - 1). */
    private void createLanes(int shards) {
        db.execute("SELECT \"" + schema + "\".create_lane('q', 2::smallint, g) FROM generate_series(0, " + (shards - 1)
                + ") g");
    }

    /** Enqueues {@code jobs} jobs into lane (q, 2, shard) in one statement. */
    private void enqueueIntoLane(int shard, int jobs) {
        db.execute("SELECT count(*) FROM \"" + schema + "\".enqueue_lane('q', 2::smallint, " + shard + ", NULL,"
                + " array_fill('k'::text, ARRAY[" + jobs + "]), array_fill('{}'::jsonb, ARRAY[" + jobs + "]),"
                + " array_fill(1, ARRAY[" + jobs + "]), array_fill(25, ARRAY[" + jobs + "]),"
                + " array_fill(0::bigint, ARRAY[" + jobs + "]))");
    }

    @Test
    void shouldReadTheSequencesOfOnlyTheLaneThatFillsTheBatch() throws Exception {
        createLanes(8);
        for (int shard = 0; shard < 8; shard++) {
            enqueueIntoLane(shard, 10);
        }
        try (Connection claimer = db.openJdbc(); Statement statement = claimer.createStatement()) {
            claimer.setAutoCommit(false);
            try (java.sql.ResultSet rows = statement.executeQuery("SELECT count(DISTINCT o_enqueue_shard),"
                    + " count(*) FROM \"" + schema + "\".claim_jobs_v2('q', 10, 'w', NULL)")) {
                rows.next();
                assertThat(rows.getLong(1)).isEqualTo(1);
                assertThat(rows.getLong(2)).isEqualTo(10);
            }
            // Each sequence read holds a lock to the end of the transaction: the first lane visited filled the
            // batch, so only its enqueue and claim sequences were read (up to schema step 19, all 16 of 8 lanes).
            try (java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_locks l"
                    + " WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND l.relation IN ("
                    + "SELECT q.enqueue_seq FROM \"" + schema + "\".queue_lanes q UNION ALL"
                    + " SELECT q.claim_seq FROM \"" + schema + "\".queue_lanes q)")) {
                rows.next();
                assertThat(rows.getLong(1)).isEqualTo(2);
            }
            claimer.commit();
        }
    }

    @Test
    void shouldClaimPastLanesThatWereNeverEnqueuedInto() {
        createLanes(8);
        enqueueIntoLane(5, 3);

        // The other lanes' sequences were never called (no last value): each is passed over as a lane without work.
        assertThat(storage.claim("q", 10, "w").map(Job::enqueueShard).collectList().block(WAIT))
                .containsExactly(5, 5, 5);
        assertThat(claimIds()).isEmpty();
    }

    @Test
    void shouldClaimEveryJobOnceInLaneOrderWhenAnOlderSnapshotEnqueuesIntoThePreviousSlot() {
        // A caller's REPEATABLE READ transaction reads the queue ring's generation from its snapshot, so its enqueue
        // lands in the previous slot with positions past those a newer enqueue already wrote into the current one.
        // A rolled-back enqueue leaves a hole before it, so the claim must also find the first segment past a hole
        // across both slots.
        long a = storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        io.r2dbc.spi.Connection caller = snapshotBeforeTheNextRotation();
        try {
            Fixtures.rotated(storage, Ring.QUEUE, 1, WAIT);
            long b = storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            enqueueAndRollBack();
            long d = storage.enqueue(caller, JobRequest.of("q", "k", "{}")).block(WAIT);
            Mono.from(caller.commitTransaction()).block(WAIT);
            long e = storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            assertThat(db.query("SELECT job_id, ready_slot, lane_seq FROM \"" + schema
                    + "\".ready_entries ORDER BY lane_seq", rs -> List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3))))
                    .containsExactly(List.of(a, 0L, 1L), List.of(b, 1L, 2L), List.of(d, 0L, 4L), List.of(e, 1L, 5L));

            List<Long> claimed = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                claimed.addAll(claimIds());
            }

            assertThat(claimed).containsExactly(a, b, d, e);
        } finally {
            Mono.from(caller.close()).block(WAIT);
        }
    }

    @Test
    void shouldEnqueueFromASnapshotOlderThanTheWholeRingIntoARecentSlotAndKeepTheRingTurning() {
        // The snapshot sees generation 0 (slot 0); three rotations and a prune later slot 0 is the pruned next slot.
        // Writing there would stop the ring (rotation needs the next slot empty) under an outdated generation.
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        assertThat(storage.completeAll(storage.claim("q", 10, "w").collectList().block(WAIT)).block(WAIT))
                .containsOnly(AttemptResult.COMPLETED);
        assertThat(claimIds()).isEmpty();
        io.r2dbc.spi.Connection caller = snapshotBeforeTheNextRotation();
        try {
            Fixtures.rotated(storage, Ring.QUEUE, 1, WAIT);
            Fixtures.rotated(storage, Ring.QUEUE, 2, WAIT);
            Fixtures.rotated(storage, Ring.QUEUE, 3, WAIT);
            // The lease slot holding the finished run goes first: a queue slot outlives the claimed runs of its rows.
            Fixtures.rotated(storage, Ring.LEASE, 1, WAIT);
            assertThat(Fixtures.pruneUntilNotBlocked(storage, Ring.LEASE, WAIT))
                    .isInstanceOf(PruneOutcome.Pruned.class);
            assertThat(Fixtures.pruneUntilNotBlocked(storage, Ring.QUEUE, WAIT))
                    .isInstanceOfSatisfying(PruneOutcome.Pruned.class, pruned -> assertThat(pruned.slot()).isZero());

            long late = storage.enqueue(caller, JobRequest.of("q", "late", "{}")).block(WAIT);
            Mono.from(caller.commitTransaction()).block(WAIT);

            // The newest generation the ring has certainly committed, or the one before it.
            assertThat(db.query("SELECT ready_slot || '/' || ready_generation FROM \"" + schema
                    + "\".ready_entries WHERE job_id = " + late, rs -> rs.getString(1))).containsAnyOf("2/2", "3/3");
            Fixtures.rotated(storage, Ring.QUEUE, 0, WAIT);
            assertThat(claimIds()).containsExactly(late);
        } finally {
            Mono.from(caller.close()).block(WAIT);
        }
    }

    /** A connection in a REPEATABLE READ transaction whose snapshot sees the queue ring's current generation. */
    private io.r2dbc.spi.Connection snapshotBeforeTheNextRotation() {
        io.r2dbc.spi.Connection connection = Mono.from(db.connectionFactory().create()).block(WAIT);
        Mono.from(connection.beginTransaction(IsolationLevel.REPEATABLE_READ)).block(WAIT);
        execute(connection, "SELECT count(*) FROM \"" + schema + "\".queue_ring_rotations");
        return connection;
    }

    private void enqueueAndRollBack() {
        Mono.usingWhen(Mono.from(db.connectionFactory().create()),
                c -> Mono.from(c.beginTransaction())
                        .then(storage.enqueue(c, JobRequest.of("q", "rolled-back", "{}")))
                        .then(Mono.from(c.rollbackTransaction())),
                io.r2dbc.spi.Connection::close).block(WAIT);
    }

    @Test
    void shouldNotSkipASegmentThatCommittedBetweenTwoProbesOfTheClaimsSegmentLookup() throws Exception {
        // The lookup probes slot 1, then waits for slot 0; meanwhile a segment commits in slot 1 (position 4) and
        // then one in slot 0 (position 5, from an older snapshot). The slot 0 probe sees position 5 only, past the
        // hole at 3: the second pass must find position 4, or the claim's range would spend it.
        long a = storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        assertThat(claimIds()).containsExactly(a);
        io.r2dbc.spi.Connection older = snapshotBeforeTheNextRotation();
        io.r2dbc.spi.Connection inSlot1 = Mono.from(db.connectionFactory().create()).block(WAIT);
        try {
            Fixtures.rotated(storage, Ring.QUEUE, 1, WAIT);
            long b = storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            assertThat(claimIds()).containsExactly(b);
            assertThat(storage.claim("q", 10, "w").collectList().block(WAIT)).isEmpty();
            enqueueAndRollBack();
            Mono.from(inSlot1.beginTransaction()).block(WAIT);
            long four = storage.enqueue(inSlot1, JobRequest.of("q", "k", "{}")).block(WAIT);
            execute(older, "LOCK TABLE \"" + schema + "\".ready_segments_0 IN ACCESS EXCLUSIVE MODE");

            CompletableFuture<List<Long>> blocked = storage.claim("q", 10, "w").map(Job::id)
                    .collectList().subscribeOn(Schedulers.boundedElastic()).toFuture();
            await().atMost(WAIT).until(() -> count("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = "
                    + "'{s}.ready_segments_0'::regclass") == 1);
            Mono.from(inSlot1.commitTransaction()).block(WAIT);
            long five = storage.enqueue(older, JobRequest.of("q", "k", "{}")).block(WAIT);
            Mono.from(older.commitTransaction()).block(WAIT);

            assertThat(blocked.get(30, TimeUnit.SECONDS)).containsExactly(four);
            assertThat(claimIds()).containsExactly(five);
            assertThat(db.query("SELECT ready_slot, lane_seq FROM \"" + schema + "\".ready_entries WHERE job_id IN ("
                    + four + ", " + five + ") ORDER BY lane_seq", rs -> List.of(rs.getLong(1), rs.getLong(2))))
                    .containsExactly(List.of(1L, 4L), List.of(0L, 5L));
        } finally {
            Mono.from(older.close()).block(WAIT);
            Mono.from(inSlot1.close()).block(WAIT);
        }
    }

    private static void execute(io.r2dbc.spi.Connection connection, String sql) {
        Flux.from(connection.createStatement(sql).execute()).concatMap(r -> r.map((row, meta) -> 1)).blockLast(WAIT);
    }

    @Test
    void shouldClaimFromTheNewestSlotWithoutLockingAnOlderOneThatAPruneHolds() throws Exception {
        // The lane's cursor is past slot 0, where a prune would now truncate: the claim must not need slot 0's locks.
        List<Long> first = storage.enqueueAll(Flux.range(0, 2).map(i -> JobRequest.of("q", "k", "{}")))
                .collectList().block(WAIT);
        assertThat(storage.completeAll(storage.claim("q", 10, "w").collectList().block(WAIT)).block(WAIT))
                .containsOnly(AttemptResult.COMPLETED);
        assertThat(storage.claim("q", 10, "w").collectList().block(WAIT)).isEmpty();
        Fixtures.rotated(storage, Ring.QUEUE, 1, WAIT);
        List<Long> second = storage.enqueueAll(Flux.range(0, 2).map(i -> JobRequest.of("q", "k", "{}")))
                .collectList().block(WAIT);
        String s = "\"" + schema + "\".";

        try (Connection prune = db.openJdbc(); Connection claimer = db.openJdbc()) {
            prune.setAutoCommit(false);
            try (Statement statement = prune.createStatement()) {
                statement.execute("LOCK TABLE " + s + "ready_entries_0, " + s + "ready_segments_0, " + s
                        + "ready_claim_ranges_0, " + s + "ready_tombstones_0, " + s + "done_entries_0, " + s
                        + "queue_terminal_count_deltas_0 IN ACCESS EXCLUSIVE MODE");
            }
            List<Long> claimed = new ArrayList<>();
            try (Statement statement = claimer.createStatement()) {
                // Fails with 55P03 rather than waiting if the claim asks for any of slot 0's locks.
                statement.execute("SET lock_timeout = '200ms'");
                try (java.sql.ResultSet rows = statement.executeQuery("SELECT o_job_id FROM " + s
                        + "claim_jobs_v2('q', 10, 'w', NULL)")) {
                    while (rows.next()) {
                        claimed.add(rows.getLong(1));
                    }
                }
            }
            prune.rollback();

            assertThat(claimed).containsExactlyElementsOf(second);
            assertThat(first).doesNotContainAnyElementsOf(second);
        }
    }

    /**
     * Schema step 16: a lane whose next position is reserved by an enqueue still in flight has no segment to claim,
     * and the lookup finds that out without probing a slot older than the one before the lane's newest segment.
     */
    @Test
    void shouldProbeNoSlotOlderThanTheOneBeforeTheLanesNewestSegmentWhileItsNextPositionIsInFlight()
            throws Exception {
        assertThat(storage.completeAll(List.of(enqueueAndClaimOne())).block(WAIT))
                .containsOnly(AttemptResult.COMPLETED);
        Fixtures.rotated(storage, Ring.QUEUE, 1, WAIT);
        Fixtures.rotated(storage, Ring.QUEUE, 2, WAIT);
        Job newest = enqueueAndClaimOne();
        assertThat(newest.readySlot()).isEqualTo(2);
        assertThat(storage.complete(newest).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        String s = "\"" + schema + "\".";

        try (Connection producer = db.openJdbc(); Connection prune = db.openJdbc();
                Connection claimer = db.openJdbc()) {
            producer.setAutoCommit(false);
            long inFlight;
            try (Statement statement = producer.createStatement();
                    java.sql.ResultSet rows = statement.executeQuery("SELECT o_job_id FROM " + s + "enqueue_lane('q',"
                            + " 2::smallint, 0, NULL, ARRAY['k'], ARRAY['{}'::jsonb], ARRAY[1], ARRAY[25],"
                            + " ARRAY[0::bigint])")) {
                assertThat(rows.next()).isTrue();
                inFlight = rows.getLong(1);
            }
            prune.setAutoCommit(false);
            try (Statement statement = prune.createStatement()) {
                // Slot 0 holds the lane's first segment, two slots older than its newest (slot 2).
                statement.execute("LOCK TABLE " + s + "ready_segments_0 IN ACCESS EXCLUSIVE MODE");
            }
            try (Statement statement = claimer.createStatement()) {
                // Fails with 55P03 rather than waiting if the lookup probes slot 0 (up to step 15 it probed every
                // slot before it answered that the lane had no segment).
                statement.execute("SET lock_timeout = '200ms'");
                try (java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + s
                        + "claim_jobs_v2('q', 10, 'w', NULL)")) {
                    assertThat(rows.next()).isTrue();
                    assertThat(rows.getLong(1)).isZero();
                }
            }
            prune.rollback();
            producer.commit();

            assertThat(claimIds()).containsExactly(inFlight);
        }
    }

    private Job enqueueAndClaimOne() {
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        return claimOne();
    }

    @Test
    void shouldLeaveOneLaneAndNeverResetItUnderConcurrentCreateLane() {
        storage.enqueueAll(Flux.range(0, 2).map(i -> JobRequest.of("q", "k", "{}"))).blockLast(WAIT);
        String s = "\"" + schema + "\"";
        io.r2dbc.spi.ConnectionFactory factory = db.connectionFactory();

        Flux.range(0, 40)
                .flatMap(i -> Mono.usingWhen(Mono.from(factory.create()),
                        c -> Flux.from(c.createStatement("SELECT " + s + ".create_lane($1, 2::smallint, 0)")
                                .bind(0, i % 2 == 0 ? "q" : "new").execute())
                                .concatMap(r -> r.map((row, meta) -> 1)).then(),
                        io.r2dbc.spi.Connection::close).subscribeOn(Schedulers.parallel()), 20)
                .blockLast(WAIT);

        assertThat(count("SELECT count(*) FROM {s}.queue_lanes")).isEqualTo(2);
        assertThat(count("SELECT pg_sequence_last_value(enqueue_seq) FROM {s}.queue_lanes WHERE queue = 'q'"))
                .isEqualTo(2);
        long third = storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        long fresh = storage.enqueue(JobRequest.of("new", "k", "{}")).block(WAIT);
        assertThat(storage.claim("q", 10, "w").map(Job::laneSeq).collectList().block(WAIT)).containsExactly(1L, 2L,
                3L);
        Job first = storage.claim("new", 10, "w").single().block(WAIT);
        assertThat(first.id()).isEqualTo(fresh);
        assertThat(first.laneSeq()).isEqualTo(1);
        assertThat(third).isPositive();
    }

    @Test
    void shouldClaimAndCompleteWhileAnotherSessionHoldsEveryRingKey() throws Exception {
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            for (Ring ring : Ring.values()) {
                statement.execute("SELECT pg_advisory_lock(hashtextextended('awa-reactive.ring:" + schema + ":"
                        + ring.label() + "', 0))");
            }
            long started = System.nanoTime();
            storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
            Job job = claimOne();
            assertThat(storage.heartbeat(job).block(WAIT)).isTrue();
            assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
        }
    }
}
