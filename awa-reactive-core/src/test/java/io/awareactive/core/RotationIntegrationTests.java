package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.core.ring.RotateOutcome.Rotated;
import io.awareactive.core.ring.RotateOutcome.SkippedBusy;
import io.awareactive.core.ring.RotateOutcome.SkippedIdle;
import io.awareactive.core.ring.RotationBlocker;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.R2dbcException;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

@AwaPostgresTest
final class RotationIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    RotationIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
    }

    private String t(String table) {
        return "\"" + schema + "\"." + table;
    }

    private void doneRow(int slot, long jobId) {
        db.execute("INSERT INTO " + t("done_entries") + " (ready_slot, job_id, run_lease, ready_generation, queue,"
                + " priority, kind, state, attempt) VALUES (" + slot + ", " + jobId + ", 0, 0, 'q', 2, 'k',"
                + " 'completed', 1)");
    }

    private RotateOutcome rotate(Ring ring) {
        return storage.ringOperations().rotate(ring).block(WAIT);
    }

    private long ledgerRows(Ring ring) {
        return db.queryLong("SELECT count(*) FROM " + t(ring.label() + "_ring_rotations"));
    }

    @Test
    void shouldSkipIdleRingWithoutWritingAnything() {
        for (Ring ring : Ring.values()) {
            assertThat(rotate(ring)).isEqualTo(new SkippedIdle(0, 0));
            assertThat(ledgerRows(ring)).isEqualTo(1);
        }
        assertThat(storage.ringOperations().cursor(Ring.QUEUE).block(WAIT)).isEqualTo(new RingCursor(Ring.QUEUE, 0, 0));
    }

    @Test
    void shouldAnswerAnIdleRingWithOneStatementThatWritesNothing() {
        List<String> statements = new CopyOnWriteArrayList<>();
        AtomicInteger transactions = new AtomicInteger();
        QueueStorage counted = QueueStorage.create(Fixtures.config(
                CountingConnections.of(db.connectionFactory(), statements, transactions), schema,
                UnaryOperator.identity()));
        long nextXid = db.queryLong("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint");

        for (Ring ring : Ring.values()) {
            assertThat(counted.ringOperations().rotate(ring).block(WAIT)).isEqualTo(new SkippedIdle(0, 0));
        }

        // One statement per ring, outside any transaction, and no transaction id assigned (so no WAL written).
        assertThat(statements).hasSize(Ring.values().length)
                .allSatisfy(sql -> assertThat(sql).startsWith("WITH timeout AS MATERIALIZED (SELECT set_config("));
        assertThat(transactions).hasValue(0);
        assertThat(db.queryLong("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint")).isEqualTo(nextXid);
    }

    @Test
    void shouldRotateWhileRowsRemainUntilTheNextSlotIsBusyThenFreezeWhenDrained() {
        doneRow(0, 1);

        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(1, 1));
        assertThat(storage.ringOperations().cursor(Ring.QUEUE).block(WAIT)).isEqualTo(new RingCursor(Ring.QUEUE, 1, 1));
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(2, 2));
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(3, 3));
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedBusy(0, Set.of(RotationBlocker.QUEUE_DONE_ROWS)));
        assertThat(ledgerRows(Ring.QUEUE)).isEqualTo(4);

        db.execute("TRUNCATE " + t("done_entries_0"));
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedIdle(3, 3));
        assertThat(ledgerRows(Ring.QUEUE)).isEqualTo(4);
    }

    @Test
    void shouldTakePagesOfRolledBackRowsForWorkUntilPruneReclaimsThem() {
        doneRow(0, 1);
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(1, 1));
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedIdle(1, 1));

        // A rolled-back insert into a sealed slot leaves no row but pages: the idle gate reads sizes, not rows, so
        // the ring moves on until prune has reclaimed them, then idles again.
        db.execute("BEGIN; INSERT INTO " + t("done_entries") + " (ready_slot, job_id, run_lease, ready_generation,"
                + " queue, priority, kind, state, attempt) VALUES (3, 2, 0, 0, 'q', 2, 'k', 'completed', 1); ROLLBACK");
        assertThat(db.queryLong("SELECT pg_relation_size('" + t("done_entries_3") + "')")).isPositive();
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(2, 2));
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(3, 3));
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(0, 4));
        // Prune takes the oldest sealed slot: 1, then 2, then 3.
        for (int slot = 1; slot <= 3; slot++) {
            assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class)
                    .extracting(outcome -> ((PruneOutcome.Pruned) outcome).slot()).isEqualTo(slot);
            if (slot < 3) {
                assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(slot, 4 + slot));
            }
        }
        assertThat(db.queryLong("SELECT pg_relation_size('" + t("done_entries_3") + "')")).isZero();
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedIdle(2, 6));
    }

    @Test
    void shouldRotateABusyRingWithoutOpeningTheChildrenOfItsOtherSlots() throws Exception {
        doneRow(0, 1);
        // Reading a child's size opens it under ACCESS SHARE: with slot 3 locked, a tick that sized every child of
        // the ring would wait past the lock timeout. A current slot with pages already tells the ring is not idle.
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("LOCK TABLE " + t("ready_entries_3") + " IN ACCESS EXCLUSIVE MODE");
            try {
                assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(1, 1));
            } finally {
                holder.rollback();
            }
        }
    }

    @Test
    void shouldGiveUpAnIdleTickWithinTheLockTimeoutWhileAChildIsLocked() throws Exception {
        // The idle tick reads every child's size: it must set the lock timeout before it opens the first one.
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("LOCK TABLE " + t("done_entries_2") + " IN ACCESS EXCLUSIVE MODE");
            try {
                assertThatThrownBy(() -> rotate(Ring.QUEUE)).isInstanceOfSatisfying(R2dbcException.class,
                        error -> assertThat(error.getSqlState()).isEqualTo("55P03"));
            } finally {
                holder.rollback();
            }
        }
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedIdle(0, 0));
    }

    @Test
    void shouldRotateAwayFromDeletedLeasesOnlyIntoAReclaimedSlot() {
        // An attempt claimed before schema step 18 that ended between two ticks: its lease was inserted and deleted,
        // leaving a dead row.
        String lease = "INSERT INTO " + t("leases") + " (lease_slot, job_id, run_lease, lease_generation, ready_slot,"
                + " ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq, attempt,"
                + " max_attempts, worker_id, heartbeat_at) VALUES (%d, 7, 1, 0, 0, 0, 0, NULL, 'q', 2, 0, 1, 1, 1, 'w',"
                + " now())";
        db.execute(String.format(lease, 0), "DELETE FROM " + t("leases"));

        // Slot 1 was never written: the ring moves on so that prune can truncate slot 0.
        assertThat(rotate(Ring.LEASE)).isEqualTo(new Rotated(1, 1));
        assertThat(rotate(Ring.LEASE)).isEqualTo(new SkippedIdle(1, 1));

        // Dead rows in both slots: no rotation until prune has reclaimed the next one.
        db.execute(String.format(lease, 1), "DELETE FROM " + t("leases"));
        assertThat(rotate(Ring.LEASE)).isEqualTo(new SkippedIdle(1, 1));
        assertThat(storage.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(rotate(Ring.LEASE)).isEqualTo(new Rotated(0, 2));
        assertThat(ledgerRows(Ring.LEASE)).isEqualTo(3);
    }

    @Test
    void shouldTurnTheLeaseRingUntilTheRunsOfFinishedJobsArePruned() {
        // A job that started and ended between two ticks leaves its claimed run's row (schema step 18) and the
        // run's closure (step 19) in slot 0.
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        storage.complete(storage.claim("q", 1, "w").single().block(WAIT)).block(WAIT);
        assertThat(db.queryLong("SELECT count(*) FROM " + t("lease_runs_0"))).isOne();
        assertThat(db.queryLong("SELECT count(*) FROM " + t("lease_run_closures_0"))).isOne();

        // The queue slot of its job waits for those rows' prune, so the ring is not idle until they are gone.
        assertThat(rotate(Ring.LEASE)).isEqualTo(new Rotated(1, 1));
        assertThat(rotate(Ring.LEASE)).isEqualTo(new SkippedBusy(0, Set.of(RotationBlocker.LEASE_RUN_ROWS,
                RotationBlocker.LEASE_RUN_CLOSURE_ROWS)));
        assertThat(storage.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(rotate(Ring.LEASE)).isEqualTo(new SkippedIdle(1, 1));

        // The next finished run, in slot 1, moves the ring into the reclaimed slot 0.
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        storage.complete(storage.claim("q", 1, "w").single().block(WAIT)).block(WAIT);
        assertThat(rotate(Ring.LEASE)).isEqualTo(new Rotated(0, 2));
        assertThat(ledgerRows(Ring.LEASE)).isEqualTo(3);
    }

    @Test
    void shouldNameEveryNonEmptyFamilyOfTheNextSlot() {
        doneRow(1, 7);
        db.execute("INSERT INTO " + t("ready_tombstones") + " (ready_slot, queue, priority, enqueue_shard, lane_seq,"
                + " job_id) VALUES (1, 'q', 2, 0, 1, 7)");
        db.execute("INSERT INTO " + t("leases") + " (lease_slot, job_id, run_lease, lease_generation, ready_slot,"
                + " ready_generation, claim_slot, receipt_id, queue, priority, enqueue_shard, lane_seq, attempt,"
                + " max_attempts, worker_id, heartbeat_at) VALUES (1, 7, 1, 0, 0, 0, 0, 1, 'q', 2, 0, 1, 1, 1, 'w',"
                + " now())");
        db.execute("INSERT INTO " + t("lease_claims") + " (claim_slot, receipt_id, claim_generation, job_id,"
                + " run_lease, ready_slot, ready_generation, lease_slot) VALUES (1, 1, 0, 7, 1, 0, 0, 0)");
        db.execute("INSERT INTO " + t("lease_claim_closures") + " (claim_slot, receipt_id, job_id, run_lease,"
                + " ready_slot, ready_generation, outcome) VALUES (1, 1, 7, 1, 0, 0, 'completed')");

        assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedBusy(1,
                Set.of(RotationBlocker.QUEUE_DONE_ROWS, RotationBlocker.QUEUE_TOMBSTONES)));
        assertThat(rotate(Ring.LEASE)).isEqualTo(new SkippedBusy(1, Set.of(RotationBlocker.LEASE_ROWS)));
        assertThat(rotate(Ring.CLAIM)).isEqualTo(new SkippedBusy(1,
                Set.of(RotationBlocker.CLAIM_ROWS, RotationBlocker.CLAIM_CLOSURE_ROWS)));
        for (Ring ring : Ring.values()) {
            assertThat(ledgerRows(ring)).isEqualTo(1);
        }
    }

    @Test
    void shouldSeeAnUncommittedInsertIntoTheNextSlotAsInflightWrites() throws Exception {
        // A committed row keeps the ring from being idle (an idle ring is answered before any gate).
        doneRow(0, 1);
        try (Connection writer = db.openJdbc(); Statement statement = writer.createStatement()) {
            writer.setAutoCommit(false);
            statement.execute("INSERT INTO " + t("ready_entries") + " (ready_slot, queue, priority, enqueue_shard,"
                    + " lane_seq, ready_generation, job_id, kind, args, attempt, max_attempts) VALUES"
                    + " (1, 'q', 2, 0, 1, 1, 99, 'k', '{}', 1, 1)");

            assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedBusy(1, Set.of(RotationBlocker.INFLIGHT_WRITES)));
            assertThat(ledgerRows(Ring.QUEUE)).isEqualTo(1);

            writer.rollback();
        }
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(1, 1));
    }

    @Test
    void shouldAnswerSerializerBusyAtOnceWhenAnotherSessionHoldsTheRing() throws Exception {
        doneRow(0, 1);
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(hashtextextended('awa-reactive.ring:" + schema
                    + ":queue', 0))");

            assertThat(rotate(Ring.QUEUE)).isEqualTo(new SkippedBusy(1, Set.of(RotationBlocker.SERIALIZER_BUSY)));
            assertThat(rotate(Ring.LEASE)).isEqualTo(new SkippedIdle(0, 0));
            // Release before closing: a closed JDBC connection's backend may still hold the lock for a moment.
            statement.execute("SELECT pg_advisory_unlock(hashtextextended('awa-reactive.ring:" + schema
                    + ":queue', 0))");
        }
        assertThat(rotate(Ring.QUEUE)).isEqualTo(new Rotated(1, 1));
    }

    @Test
    void shouldLoseTheCompareAndSwapToAWriterThatBypassedTheSerializer() throws Exception {
        doneRow(0, 1);
        QueueStorage patient = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                b -> b.pruneLockTimeout(Duration.ofSeconds(20))));
        try (Connection bypass = db.openJdbc(); Statement statement = bypass.createStatement()) {
            bypass.setAutoCommit(false);
            statement.execute("INSERT INTO " + t("queue_ring_rotations") + " (generation, slot) VALUES (1, 1)");

            CompletableFuture<RotateOutcome> rotation = patient.ringOperations().rotate(Ring.QUEUE).toFuture();
            await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_stat_activity"
                    + " WHERE wait_event_type = 'Lock' AND query LIKE '%queue_ring_rotations%ON CONFLICT%'") == 1);
            bypass.commit();

            assertThat(rotation.get()).isEqualTo(new SkippedBusy(1, Set.of(RotationBlocker.LOST_CAS)));
        }
        assertThat(ledgerRows(Ring.QUEUE)).isEqualTo(2);
    }

    @Test
    void shouldKeepTheLedgerContiguousUnderTwentyConcurrentRotators() {
        // The rotators take nothing from each other but try-locks and NOWAIT probes. Their catalog reads can still
        // queue behind a vacuum truncating a catalog's tail (ACCESS EXCLUSIVE, given up within about 20 ms once
        // someone waits), which the default 10 ms lock timeout would turn into an error unrelated to the ledger.
        QueueStorage patient = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                b -> b.pruneLockTimeout(Duration.ofSeconds(20))));
        int rounds = 8;
        int rotated = 0;
        for (int round = 0; round < rounds; round++) {
            RingCursor cursor = storage.ringOperations().cursor(Ring.QUEUE).block(WAIT);
            db.execute("TRUNCATE " + t("done_entries"));
            doneRow(cursor.slot(), round + 1);

            List<RotateOutcome> outcomes = Flux.range(0, 20)
                    .flatMap(i -> patient.ringOperations().rotate(Ring.QUEUE).subscribeOn(Schedulers.boundedElastic()), 20)
                    .collectList()
                    .block(WAIT);

            assertThat(outcomes).hasSize(20).allSatisfy(outcome -> assertThat(outcome)
                    .isInstanceOfAny(Rotated.class, SkippedBusy.class, SkippedIdle.class));
            rotated += (int) outcomes.stream().filter(Rotated.class::isInstance).count();
        }
        List<Long> generations = db.query("SELECT generation FROM " + t("queue_ring_rotations")
                + " ORDER BY generation", rs -> rs.getLong(1));
        assertThat(generations).hasSize(rotated + 1);
        for (int i = 0; i < generations.size(); i++) {
            assertThat(generations.get(i)).isEqualTo(i);
        }
        assertThat(db.queryLong("SELECT count(*) FROM " + t("queue_ring_rotations")
                + " WHERE slot <> generation % 4")).isZero();
        assertThat(rotated).isPositive();
    }

    @Test
    void shouldReadTheCursorOfEachRingIndependently() {
        doneRow(0, 1);
        rotate(Ring.QUEUE);
        rotate(Ring.QUEUE);
        assertThat(storage.ringOperations().cursor(Ring.QUEUE).block(WAIT)).isEqualTo(new RingCursor(Ring.QUEUE, 2, 2));
        assertThat(storage.ringOperations().cursor(Ring.LEASE).block(WAIT)).isEqualTo(new RingCursor(Ring.LEASE, 0, 0));
        QueueStorage other = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema,
                UnaryOperator.identity()));
        assertThat(other.ringOperations().cursor(Ring.QUEUE).block(WAIT)).isEqualTo(new RingCursor(Ring.QUEUE, 2, 2));
    }
}
