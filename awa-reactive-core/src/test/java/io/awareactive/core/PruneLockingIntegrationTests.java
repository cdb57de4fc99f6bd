package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.awareactive.core.internal.Db;
import io.awareactive.core.internal.MaintenanceFailures;
import io.awareactive.core.internal.Pruner;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.PruneOutcome.Blocked;
import io.awareactive.core.ring.PruneOutcome.Failed;
import io.awareactive.core.ring.PruneOutcome.Pruned;
import io.awareactive.core.ring.PruneOutcome.SkippedActive;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.core.ring.SkipReason;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.R2dbcException;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

/** Prune under the transaction-local lock timeout: blocked fast, outwaiting, rollback, serializer, no leak. */
@AwaPostgresTest
final class PruneLockingIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String SHOW_SETTINGS =
            "SELECT current_setting('lock_timeout') || ', ' || current_setting('plan_cache_mode')";

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;
    private RingRows rows;

    PruneLockingIntegrationTests(TestDatabase db) {
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

    private QueueStorage storageWith(ConnectionFactory factory, Duration lockTimeout) {
        return QueueStorage.create(Fixtures.config(factory, schema, b -> b.pruneLockTimeout(lockTimeout)));
    }

    private static PruneOutcome prune(QueueStorage storage, Ring ring) {
        return storage.ringOperations().prune(ring).block(WAIT);
    }

    /** The child a timed lock waits for first, per ring. */
    private static String timedChild(Ring ring) {
        return switch (ring) {
            case QUEUE -> "ready_segments_0";
            case LEASE -> "leases_0";
            case CLAIM -> "lease_claims_0";
        };
    }

    /** Rows of finished work in slot 0 of every ring, so each prune has something real to truncate. */
    private void finishedWorkInSlotZero() {
        RingRows.Job job = rows.running(0, 0, 1, 0, 0);
        rows.complete(job);
    }

    private long elapsedMillis(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }

    @ParameterizedTest
    @EnumSource(Ring.class)
    void shouldBeBlockedFastByAReaderThenPruneWithANewFilenodeOnceItLeaves(Ring ring) throws Exception {
        finishedWorkInSlotZero();
        String child = timedChild(ring);
        long filenode = rows.filenode(child);

        try (Connection reader = rows.reader(child)) {
            long start = System.nanoTime();
            PruneOutcome blocked = prune(storage, ring);
            long elapsed = elapsedMillis(start);

            assertThat(blocked).isEqualTo(new Blocked(0, BlockedCause.LOCK_TIMEOUT));
            assertThat(elapsed).isGreaterThanOrEqualTo(10).isLessThan(1000);
            assertThat(rows.filenode(child)).isEqualTo(filenode);
            reader.rollback();
        }

        PruneOutcome pruned = prune(storage, ring);
        assertThat(pruned).isInstanceOf(Pruned.class);
        assertThat(((Pruned) pruned).slot()).isZero();
        assertThat(((Pruned) pruned).generation()).isZero();
        assertThat(rows.filenode(child)).isNotEqualTo(filenode);
        assertThat(storage.ringOperations().cursor(ring).block(WAIT)).isEqualTo(new RingCursor(ring, 1, 1));
    }

    @Test
    void shouldOutwaitAReaderThatLeavesWithinALongTimeout() throws Exception {
        Duration hold = Duration.ofMillis(200);
        QueueStorage patient = storageWith(db.connectionFactory(), Duration.ofSeconds(2));
        try (Connection reader = rows.reader("ready_segments_0")) {
            CompletableFuture<PruneOutcome> prune = patient.ringOperations().prune(Ring.QUEUE).toFuture();
            await().atMost(WAIT).until(() -> rows.waiters("ready_segments_0") == 1);
            // The prune's lock clock started before we saw it waiting, so its lock time is at least this hold.
            long waitingSeen = System.nanoTime();
            await().atMost(WAIT).until(() -> System.nanoTime() - waitingSeen >= hold.toNanos());
            reader.rollback();
            long held = System.nanoTime() - waitingSeen;

            PruneOutcome outcome = prune.get();
            assertThat(outcome).isInstanceOf(Pruned.class);
            Duration lock = ((Pruned) outcome).durations().lock();
            assertThat(lock).isGreaterThanOrEqualTo(Duration.ofNanos(held)).isLessThan(Duration.ofSeconds(2));
        }
    }

    @Test
    void shouldReleaseTheEarlierGrantedLockWhenANowaitChildIsHeld() throws Exception {
        ConnectionPool pool = Fixtures.pool(db, 1);
        try {
            QueueStorage pooled = storageWith(pool, QueueStorageConfig.DEFAULT_PRUNE_LOCK_TIMEOUT);
            long prunePid = backendPid(pool);
            try (Connection reader = rows.reader("done_entries_0")) {
                assertThat(prune(pooled, Ring.QUEUE)).isEqualTo(new Blocked(0, BlockedCause.NOWAIT));

                assertThat(backendPid(pool)).isEqualTo(prunePid);
                assertThat(db.queryLong("SELECT count(*) FROM pg_locks WHERE pid = ?", (int) prunePid)).isZero();
                try (Connection other = db.openJdbc(); Statement statement = other.createStatement()) {
                    other.setAutoCommit(false);
                    statement.execute("LOCK TABLE " + rows.t("ready_entries_0") + ", " + rows.t("ready_segments_0")
                            + ", " + rows.t("ready_claim_ranges_0") + ", " + rows.t("ready_tombstones_0") + ", "
                            + rows.t("queue_terminal_count_deltas_0") + " IN ACCESS EXCLUSIVE MODE NOWAIT");
                    assertSerializerAndSlotRowFree(statement, Ring.QUEUE);
                    other.rollback();
                }
                reader.rollback();
            }
            assertThat(prune(pooled, Ring.QUEUE)).isInstanceOf(Pruned.class);
        } finally {
            pool.dispose();
        }
    }

    @Test
    void shouldReleaseTheReceiptLockWhenTheClosureChildIsHeld() throws Exception {
        ConnectionPool pool = Fixtures.pool(db, 1);
        try {
            QueueStorage pooled = storageWith(pool, QueueStorageConfig.DEFAULT_PRUNE_LOCK_TIMEOUT);
            long prunePid = backendPid(pool);
            try (Connection reader = rows.reader("lease_claim_closures_0")) {
                assertThat(prune(pooled, Ring.CLAIM)).isEqualTo(new Blocked(0, BlockedCause.NOWAIT));

                assertThat(db.queryLong("SELECT count(*) FROM pg_locks WHERE pid = ?", (int) prunePid)).isZero();
                try (Connection other = db.openJdbc(); Statement statement = other.createStatement()) {
                    other.setAutoCommit(false);
                    statement.execute("LOCK TABLE " + rows.t("lease_claims_0") + " IN ACCESS EXCLUSIVE MODE NOWAIT");
                    assertSerializerAndSlotRowFree(statement, Ring.CLAIM);
                    other.rollback();
                }
                reader.rollback();
            }
        } finally {
            pool.dispose();
        }
    }

    private void assertSerializerAndSlotRowFree(Statement statement, Ring ring) throws Exception {
        try (var rs = statement.executeQuery("SELECT pg_try_advisory_xact_lock(hashtextextended('awa-reactive.ring:"
                + schema + ":" + ring.label() + "', 0))")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getBoolean(1)).isTrue();
        }
        try (var rs = statement.executeQuery("SELECT slot FROM " + rows.t(ring.label() + "_ring_slots")
                + " WHERE slot = 0 FOR UPDATE NOWAIT")) {
            assertThat(rs.next()).isTrue();
        }
    }

    private static long backendPid(ConnectionFactory pool) {
        return Db.withConnection(pool, c -> Db.queryOne(c, "SELECT pg_backend_pid()",
                row -> Db.get(row, 0, Integer.class))).block(WAIT);
    }

    @Test
    void shouldAnswerSerializerBusyAtOnceWhenTheRingKeyIsHeld() throws Exception {
        QueueStorage patient = storageWith(db.connectionFactory(), Duration.ofSeconds(5));
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(hashtextextended('awa-reactive.ring:" + schema + ":queue', 0))");

            long start = System.nanoTime();
            assertThat(prune(patient, Ring.QUEUE)).isEqualTo(new Blocked(0, BlockedCause.SERIALIZER_BUSY));
            assertThat(elapsedMillis(start)).isLessThan(1000);
            assertThat(prune(patient, Ring.LEASE)).isInstanceOf(Pruned.class);
        }
    }

    @Test
    void shouldTimeOutInAboutTheLockTimeoutOnAHeldSlotRow() throws Exception {
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("SELECT slot FROM " + rows.t("queue_ring_slots") + " WHERE slot = 0 FOR UPDATE");

            long start = System.nanoTime();
            assertThat(prune(storage, Ring.QUEUE)).isEqualTo(new Blocked(0, BlockedCause.LOCK_TIMEOUT));
            assertThat(elapsedMillis(start)).isGreaterThanOrEqualTo(10).isLessThan(1000);
            holder.rollback();
        }
        assertThat(prune(storage, Ring.QUEUE)).isInstanceOf(Pruned.class);
    }

    @Test
    void shouldNotBeDelayedByAHeldRingStateRow() throws Exception {
        QueueStorage patient = storageWith(db.connectionFactory(), Duration.ofSeconds(10));
        finishedWorkInSlotZero();
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("SELECT slot_count FROM " + rows.t("queue_ring_state") + " FOR UPDATE");

            long start = System.nanoTime();
            assertThat(prune(patient, Ring.QUEUE)).isInstanceOf(Pruned.class);
            assertThat(patient.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isInstanceOf(RotateOutcome.class);
            assertThat(elapsedMillis(start)).as("far below the 10 s lock timeout").isLessThan(5000);
            holder.rollback();
        }
    }

    @Test
    void shouldNeverLeakTheLockTimeoutOrThePlanModeIntoAPooledConnection() throws Exception {
        String serverDefault = serverDefaultSettings();
        ConnectionPool pool = Fixtures.pool(db, 1);
        try {
            QueueStorage pooled = storageWith(pool, Duration.ofMillis(777));
            long pid = backendPid(pool);

            assertThat(prune(pooled, Ring.LEASE)).isInstanceOf(Pruned.class);
            assertThat(showSettings(pool)).isEqualTo(serverDefault).doesNotContain("777ms", "force_generic_plan");

            try (Connection reader = rows.reader("lease_claims_0")) {
                assertThat(prune(pooled, Ring.CLAIM)).isEqualTo(new Blocked(0, BlockedCause.LOCK_TIMEOUT));
                reader.rollback();
            }
            assertThat(showSettings(pool)).isEqualTo(serverDefault);

            // A missing child makes the queue prune fail after it set the timeout and took locks.
            db.execute("DROP TABLE " + rows.t("ready_tombstones_0"));
            PruneOutcome failed = prune(pooled, Ring.QUEUE);
            assertThat(failed).isInstanceOf(Failed.class);
            assertThat(((Failed) failed).sqlState()).isEqualTo("42P01");
            assertThat(((Failed) failed).slot()).isZero();
            assertThat(showSettings(pool)).isEqualTo(serverDefault);

            assertThat(backendPid(pool)).isEqualTo(pid);
        } finally {
            pool.dispose();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldTruncateAChildOnlyWhenItHoldsStorage(boolean rolledBackTombstone) {
        finishedWorkInSlotZero();
        if (rolledBackTombstone) {
            // No row, but pages: storage to reclaim.
            db.execute("BEGIN; INSERT INTO " + rows.t("ready_tombstones") + " (ready_slot, queue, priority,"
                    + " enqueue_shard, lane_seq, job_id) VALUES (0, 'q', 2, 0, 1, 1); ROLLBACK");
        }
        long readyEntries = rows.filenode("ready_entries_0");
        long tombstones = rows.filenode("ready_tombstones_0");

        assertThat(prune(storage, Ring.QUEUE)).isInstanceOf(Pruned.class);

        assertThat(rows.filenode("ready_entries_0")).isNotEqualTo(readyEntries);
        assertThat(rows.filenode("ready_tombstones_0") != tombstones).isEqualTo(rolledBackTombstone);
        assertThat(db.queryLong("SELECT pg_relation_size('" + rows.t("ready_tombstones_0") + "') + pg_relation_size('"
                + rows.t("ready_entries_0") + "') + pg_relation_size('" + rows.t("done_entries_0") + "')")).isZero();
    }

    @Test
    void shouldGiveUpPromotionAndRescueAtTheLockTimeoutWithoutLeakingIt() throws Exception {
        String serverDefault = serverDefaultSettings();
        ConnectionPool pool = Fixtures.pool(db, 1);
        try {
            QueueStorage pooled = storageWith(pool, Duration.ofMillis(200));
            long pid = backendPid(pool);
            // Each tick is one autocommit statement: without its own lock timeout it would wait here for good.
            try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
                holder.setAutoCommit(false);
                // Promotion reads the deferred jobs first, rescue the lease tallies.
                statement.execute("LOCK TABLE " + rows.t("deferred_jobs") + ", " + rows.t("lease_tallies")
                        + " IN ACCESS EXCLUSIVE MODE");

                assertThatThrownBy(() -> pooled.ringOperations().promote(10).block(WAIT))
                        .isInstanceOfSatisfying(R2dbcException.class,
                                error -> assertThat(error.getSqlState()).isEqualTo("55P03"));
                assertThatThrownBy(() -> pooled.ringOperations().rescue(10).block(WAIT))
                        .isInstanceOfSatisfying(R2dbcException.class,
                                error -> assertThat(error.getSqlState()).isEqualTo("55P03"));
                holder.rollback();
            }
            assertThat(showSettings(pool)).isEqualTo(serverDefault).doesNotContain("200ms");
            assertThat(backendPid(pool)).isEqualTo(pid);
            assertThat(pooled.ringOperations().promote(10).block(WAIT)).isZero();
            assertThat(pooled.ringOperations().rescue(10).block(WAIT)).isZero();
        } finally {
            pool.dispose();
        }
    }

    /** The session's lock timeout and plan cache mode, as a fresh JDBC session sees them. */
    private String serverDefaultSettings() {
        return db.query(SHOW_SETTINGS, rs -> rs.getString(1)).get(0);
    }

    private static String showSettings(ConnectionFactory pool) {
        return Db.withConnection(pool, c -> Db.queryOne(c, SHOW_SETTINGS, row -> Db.get(row, 0, String.class)))
                .block(WAIT);
    }

    @Test
    void shouldFailWithStatementTimeoutWhenItFiresBeforeTheLockTimeout() throws Exception {
        ConnectionFactory shortStatements = db.connectionFactory(b -> b.options(Map.of("statement_timeout", "200")));
        QueueStorage patient = storageWith(shortStatements, Duration.ofSeconds(2));
        Logger log = (Logger) LoggerFactory.getLogger(Pruner.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        log.addAppender(appender);
        Failed failed;
        try (Connection reader = rows.reader("ready_segments_0")) {
            PruneOutcome outcome = prune(patient, Ring.QUEUE);

            assertThat(outcome).isInstanceOf(Failed.class);
            failed = (Failed) outcome;
            assertThat(failed.slot()).isZero();
            assertThat(failed.sqlState()).isEqualTo("57014");
            assertThat(failed.label()).isEqualTo("error");
            reader.rollback();
        } finally {
            log.detachAppender(appender);
        }
        // Core returns the failure and logs nothing; the engine logs this message (rate-limited).
        assertThat(appender.list).isEmpty();
        assertThat(MaintenanceFailures.message("prune", "queue", failed.slot(), failed.sqlState(), failed.error(),
                2000))
                .contains("prune of the queue ring, slot 0,")
                .contains("(SQLSTATE 57014) by statement_timeout")
                .contains("prune lock timeout (2000 ms)");
    }

    @Test
    void shouldNeverPruneASlotWithAnOpenReceiptUnderFiftyConcurrentPrunes() {
        db.execute(rows.receiptSql(0, 1, 1, 0, 0, 0));
        List<PruneOutcome> outcomes = Flux.range(0, 50)
                .flatMap(i -> storage.ringOperations().prune(Ring.CLAIM), 50)
                .collectList()
                .block(WAIT);

        assertThat(outcomes).hasSize(50)
                .noneMatch(o -> o instanceof Pruned || o instanceof Failed)
                .allMatch(o -> o instanceof SkippedActive || o instanceof Blocked)
                .anyMatch(o -> o.equals(new SkippedActive(0, SkipReason.CLAIM_OPEN)));
        assertThat(rows.rows("lease_claims_0")).isEqualTo(1);
    }
}
