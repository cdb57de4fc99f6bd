package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.internal.SchemaSteps;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Upgrades from the schema exactly as release 0.1.0 installed it (a frozen copy of its statements, with slot counts
 * 16/8/8) to the latest version: step 1 reproduces that schema, an upgraded schema equals a fresh one, every kind
 * of state survives the upgrade, and refusals change nothing.
 */
@AwaPostgresTest
final class SchemaUpgradeIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String RELEASE_0_1_0 = "/io/awareactive/core/schema/release-0.1.0-v1.sql";
    private static final String FROZEN_SCHEMA = "awa_reactive";
    private static final int LATEST = SchemaSteps.latestVersion();

    private final TestDatabase db;

    SchemaUpgradeIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    /** Release 0.1.0's default slot counts, as the frozen statements were rendered with. */
    private QueueStorage storage(String schema) {
        return QueueStorage.create(QueueStorageConfig.builder().connectionFactory(db.connectionFactory())
                .schema(schema).retryBackoffBase(Duration.ZERO).build());
    }

    /** Installs the frozen release-0.1.0 statements into {@code schema} in one transaction, as its installer did. */
    private void installRelease010(String schema) {
        String sql = resource(RELEASE_0_1_0)
                .replace('"' + FROZEN_SCHEMA + '"', '"' + schema + '"')
                .replace("'awa_jobs_" + FROZEN_SCHEMA + "'", "'awa_jobs_" + schema + "'")
                .replace("'" + FROZEN_SCHEMA + "'", "'" + schema + "'");
        runInOneTransaction(sql);
    }

    private void runInOneTransaction(String sql) {
        try (Connection connection = db.openJdbc(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute(sql);
            connection.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String resource(String path) {
        try (InputStream in = Objects.requireNonNull(SchemaUpgradeIntegrationTests.class.getResourceAsStream(path))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every object of the schema and its definition, with the schema name replaced by {@code S}: relations with
     * kind, options and partition bound, columns, constraints, indexes, sequences, functions (whole definitions) and
     * the rows of the ring control tables. Two schemas with equal catalogs were built by equivalent DDL.
     */
    private List<String> catalog(String schema) {
        List<String> lines = new ArrayList<>(db.query("""
                SELECT 'relation ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(c.reloptions::text, '')
                       || ' ' || coalesce(pg_get_expr(c.relpartbound, c.oid), '')
                       || ' ' || coalesce(pg_get_partkeydef(c.oid), '') FROM pg_class c
                WHERE c.relnamespace = ?::regnamespace
                UNION ALL
                SELECT 'column ' || c.relname || '.' || a.attnum || ' ' || a.attname || ' '
                       || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' '
                       || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE c.relnamespace = ?::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
                UNION ALL
                SELECT 'constraint ' || c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
                FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE c.relnamespace = ?::regnamespace
                UNION ALL
                SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
                WHERE c.relnamespace = ?::regnamespace
                UNION ALL
                SELECT 'sequence ' || c.relname || ' ' || s.seqstart || ' ' || s.seqmin || ' ' || s.seqcache
                FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relnamespace = ?::regnamespace
                UNION ALL
                SELECT 'function ' || pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = ?::regnamespace
                ORDER BY 1""", rs -> rs.getString(1).replace(schema, "S"),
                schema, schema, schema, schema, schema, schema));
        for (String ring : List.of("queue", "lease", "claim")) {
            lines.add(ring + " slot_count " + db.queryLong("SELECT slot_count FROM \"" + schema + "\"." + ring
                    + "_ring_state"));
            lines.add(ring + " slots " + db.queryLong("SELECT count(*) FROM \"" + schema + "\"." + ring
                    + "_ring_slots"));
        }
        return lines;
    }

    private List<String> versionRows(String schema) {
        return db.query("SELECT version || ' ' || description || ' ' || checksum || ' ' || applied_at FROM \""
                + schema + "\".awa_reactive_schema_version ORDER BY version", rs -> rs.getString(1));
    }

    private List<String> expectedVersions(QueueStorage storage) {
        return storage.migrationScripts().stream()
                .map(script -> script.version() + " " + script.description() + " " + script.checksum())
                .toList();
    }

    private List<String> recordedVersions(String schema) {
        return db.query("SELECT version || ' ' || description || ' ' || checksum FROM \"" + schema
                + "\".awa_reactive_schema_version ORDER BY version", rs -> rs.getString(1));
    }

    @Test
    void shouldCreateWithStepOneExactlyTheSchemaOfRelease010() {
        String release = db.newSchemaName();
        String stepOne = db.newSchemaName();
        installRelease010(release);

        runInOneTransaction(storage(stepOne).migrationScripts().get(0).sql());

        assertThat(catalog(stepOne)).isEqualTo(catalog(release)).hasSizeGreaterThan(400);
    }

    @Test
    void shouldUpgradeRelease010ToExactlyTheSchemaAFreshInstallCreates() {
        String upgraded = db.newSchemaName();
        String fresh = db.newSchemaName();
        installRelease010(upgraded);

        QueueStorage storage = storage(upgraded);
        storage.install().block(WAIT);
        storage(fresh).install().block(WAIT);

        assertThat(catalog(upgraded)).isEqualTo(catalog(fresh));
        assertThat(recordedVersions(upgraded)).isEqualTo(recordedVersions(fresh))
                .isEqualTo(expectedVersions(storage)).hasSize(LATEST);
        storage.verifyInstalled().block(WAIT);
    }

    @Test
    void shouldKeepEveryKindOfStateThroughTheUpgradeAndRunEachJobExactlyOnce() {
        String schema = db.newSchemaName();
        installRelease010(schema);
        QueueStorage storage = storage(schema);
        Map<Long, String> queueOf = new HashMap<>();
        Set<Long> completedBefore = new HashSet<>();

        // Available jobs in several lanes and priorities, spread over three queue slots (two of them sealed).
        for (int slot = 0; slot < 3; slot++) {
            for (int priority = 1; priority <= 3; priority++) {
                for (String queue : List.of("mail", "report")) {
                    for (int i = 0; i < 3; i++) {
                        long id = Objects.requireNonNull(storage.enqueue(JobRequest.builder(queue, "k")
                                .priority(priority).args("{\"slot\":" + slot + "}").build()).block(WAIT));
                        queueOf.put(id, queue);
                    }
                }
            }
            // Some finished work in every slot: done rows, closed receipts, deleted leases.
            for (Job job : claimWithRelease010(schema, "mail", 2)) {
                assertThat(completeWithRelease010(schema, job)).isEqualTo("completed");
                completedBefore.add(job.id());
            }
            for (Ring ring : Ring.values()) {
                rotateWithRelease010(schema, ring);
            }
        }
        assertThat(storage.ringOperations().sealedSlots(Ring.QUEUE).block(WAIT)).isEqualTo(3);

        // Scheduled jobs (due a moment after the upgrade) and a running job with a live lease.
        Instant due = Instant.now().plusSeconds(2);
        for (String queue : List.of("mail", "report")) {
            long id = Objects.requireNonNull(storage.enqueue(JobRequest.builder(queue, "later").runAt(due).build())
                    .block(WAIT));
            queueOf.put(id, queue);
        }
        Job running = claimWithRelease010(schema, "report", 1).get(0);

        // Failed jobs in the dead-letter table.
        for (int i = 0; i < 3; i++) {
            storage.enqueue(JobRequest.builder("fragile", "k").maxAttempts(1).args("{\"n\":" + i + "}").build())
                    .block(WAIT);
        }
        for (Job job : claimWithRelease010(schema, "fragile", 3)) {
            assertThat(storage.fail(job, "boom " + job.id()).block(WAIT)).isEqualTo(AttemptResult.FAILED);
        }
        List<FailedJob> deadLetters = storage.failedJobs("fragile", 10).collectList().block(WAIT);
        assertThat(deadLetters).hasSize(3);

        storage.install().block(WAIT);

        assertThat(recordedVersions(schema)).isEqualTo(expectedVersions(storage));
        assertThat(storage.failedJobs("fragile", 10).collectList().block(WAIT)).isEqualTo(deadLetters);
        // Step 6 tallied the rows written before it, so the prune gates see the running job's lease and receipt.
        String s = "\"" + schema + "\".";
        assertThat(db.queryLong("SELECT sum(live) FROM " + s + "lease_tallies WHERE ready_slot = "
                + running.readySlot())).isEqualTo(1);
        assertThat(db.queryLong("SELECT sum(opened) FROM " + s + "claim_tallies"))
                .isEqualTo(db.queryLong("SELECT count(*) FROM " + s + "lease_claims")).isPositive();
        assertThat(db.queryLong("SELECT sum(closed) FROM " + s + "claim_tallies"))
                .isEqualTo(db.queryLong("SELECT count(*) FROM " + s + "lease_claim_closures"));
        assertThat(db.queryLong("SELECT sum(opened - closed) FROM " + s + "claim_tallies")).isEqualTo(1);
        // Its lease predates step 4 (no kind): the batch completion ends it the per-attempt way.
        assertThat(storage.completeAll(List.of(running)).block(WAIT)).containsExactly(AttemptResult.COMPLETED);
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        runs.put(running.id(), new AtomicInteger(1));
        completedBefore.forEach(id -> runs.put(id, new AtomicInteger(1)));
        await().atMost(WAIT).until(() -> {
            storage.ringOperations().promote(100).block(WAIT);
            for (String queue : List.of("mail", "report")) {
                for (Job job : claimAll(storage, queue, 100)) {
                    runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
                    assertThat(storage.complete(job).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
                }
            }
            return runs.keySet().containsAll(queueOf.keySet());
        });
        assertThat(runs.keySet()).isEqualTo(queueOf.keySet());
        assertThat(runs.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        for (long id : queueOf.keySet()) {
            assertThat(storage.status(id).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        }
        assertThat(storage.counts("mail").block(WAIT).completed()
                + storage.counts("report").block(WAIT).completed()).isEqualTo(queueOf.size());

        // Maintenance reclaims the slots sealed before the upgrade, and every ring prunes normally.
        Set<Ring> pruned = ConcurrentHashMap.newKeySet();
        await().atMost(WAIT).until(() -> {
            for (Ring ring : Ring.values()) {
                // A rotation may time out on a lock autovacuum holds briefly (truncating a child): try again.
                storage.ringOperations().rotate(ring)
                        .onErrorResume(SchemaUpgradeIntegrationTests::isLockTimeout, e -> Mono.empty()).block(WAIT);
                if (storage.ringOperations().prune(ring).block(WAIT) instanceof PruneOutcome.Pruned) {
                    pruned.add(ring);
                }
            }
            return pruned.size() == Ring.values().length
                    && storage.ringOperations().sealedSlots(Ring.QUEUE).block(WAIT) == 0
                    && storage.ringOperations().sealedSlots(Ring.LEASE).block(WAIT) == 0
                    && storage.ringOperations().sealedSlots(Ring.CLAIM).block(WAIT) == 0;
        });
        assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".ready_entries_0")).isZero();
        assertThat(storage.counts("mail").block(WAIT).completed()
                + storage.counts("report").block(WAIT).completed()).isEqualTo(queueOf.size());
        assertThat(storage.failedJobs("fragile", 10).collectList().block(WAIT)).isEqualTo(deadLetters);
    }

    @Test
    void shouldCloseTheReceiptsOfAttemptsClaimedBeforeStep7AndWriteNoneAfterIt() {
        String schema = db.newSchemaName();
        QueueStorage storage = storage(schema);
        for (MigrationScript script : storage.migrationScripts().subList(0, 6)) {
            runInOneTransaction(script.sql());
        }
        String s = "\"" + schema + "\".";
        List<Long> ids = storage.enqueueAll(reactor.core.publisher.Flux.range(0, 6)
                .map(i -> JobRequest.of("mail", "k", "{}"))).collectList().block(WAIT);
        // Claimed by step 6's claim: a lease (with its kind) and a receipt per job.
        List<Job> before = claimAll(storage, "mail", 3);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "lease_claims")).isEqualTo(3);

        storage.install().block(WAIT);

        assertThat(recordedVersions(schema)).isEqualTo(expectedVersions(storage));
        assertThat(db.queryLong("SELECT sum(opened - closed) FROM " + s + "claim_tallies")).isEqualTo(3);
        // Ended after the upgrade, by a batch completion and by a failure: each receipt is closed exactly once.
        assertThat(storage.completeAll(before.subList(0, 2)).block(WAIT))
                .containsExactly(AttemptResult.COMPLETED, AttemptResult.COMPLETED);
        assertThat(storage.fail(before.get(2), "boom").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "lease_claim_closures")).isEqualTo(3);
        assertThat(db.queryLong("SELECT sum(opened - closed) FROM " + s + "claim_tallies")).isZero();

        // Claimed after it: no receipt (and, on the latest schema, a claimed run's row instead of leases).
        List<Job> after = claimAll(storage, "mail", 10);
        assertThat(after).extracting(Job::id).containsExactlyInAnyOrderElementsOf(ids.subList(2, 6));
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "lease_claims")).isEqualTo(3);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "lease_runs, unnest(job_ids)")).isEqualTo(4);
        assertThat(storage.completeAll(after).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "lease_claim_closures")).isEqualTo(3);
        for (long id : ids) {
            assertThat(storage.status(id).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        }

        // The claim slot that held the receipts is reclaimed once they are all closed.
        storage.ringOperations().rotate(Ring.CLAIM).block(WAIT);
        assertThat(storage.ringOperations().prune(Ring.CLAIM).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "lease_claims")).isZero();
    }

    /**
     * Leases claimed before step 15 were tallied without their deadlines: the step records them, so rescue takes
     * back such an attempt once its deadline passes, long before its slot is older than the staleness horizon.
     */
    @Test
    void shouldRescueAnAttemptClaimedBeforeStep15OnceItsDeadlinePasses() {
        String schema = db.newSchemaName();
        QueueStorage storage = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(db.connectionFactory()).schema(schema).leaseStaleAfter(Duration.ofHours(1))
                .build());
        for (MigrationScript script : storage.migrationScripts().subList(0, 14)) {
            runInOneTransaction(script.sql());
        }
        String s = "\"" + schema + "\".";
        long id = storage.enqueue(JobRequest.builder("mail", "k").maxAttempts(1).timeout(Duration.ofMillis(200))
                .build()).block(WAIT);
        storage.enqueue(JobRequest.of("mail", "k", "{}")).block(WAIT);
        List<Job> claimed = claimAll(storage, "mail", 2);
        assertThat(claimed).hasSize(2);

        storage.install().block(WAIT);

        assertThat(recordedVersions(schema)).isEqualTo(expectedVersions(storage));
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "lease_tallies t JOIN " + s + "leases l"
                + " ON l.lease_slot = t.lease_slot AND l.ready_slot = t.ready_slot"
                + " WHERE t.backend = 0 AND t.min_deadline = l.deadline_at")).isEqualTo(1);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> storage.ringOperations().rescue(10).block(WAIT) == 1);
        assertThat(storage.status(id).block(WAIT).error()).isEqualTo("rescued: deadline passed");
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "leases")).isEqualTo(1);
    }

    @Test
    void shouldEndAttemptsLeasedBeforeStep18AndCountThemPerQueue() {
        String schema = db.newSchemaName();
        QueueStorage storage = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(db.connectionFactory()).schema(schema).heartbeatInterval(Duration.ofMillis(300))
                .leaseStaleAfter(Duration.ofSeconds(1))
                .retryBackoffBase(Duration.ZERO).build());
        for (MigrationScript script : storage.migrationScripts().subList(0, 17)) {
            runInOneTransaction(script.sql());
        }
        String s = "\"" + schema + "\".";
        for (int i = 0; i < 4; i++) {
            storage.enqueue(JobRequest.of("mail", "k", "{}")).block(WAIT);
        }
        storage.enqueue(JobRequest.of("other", "k", "{}")).block(WAIT);
        List<Job> leased = claimAll(storage, "mail", 3);
        assertThat(claimAll(storage, "other", 1)).hasSize(1);
        assertThat(leased).hasSize(3).extracting(Job::runLease).allMatch(lease -> lease > 0);

        storage.install().block(WAIT);

        // The leases' tallies, recounted per queue by the step.
        assertThat(db.queryLong("SELECT sum(live) FROM " + s + "lease_tallies WHERE queue = 'mail'")).isEqualTo(3);
        assertThat(storage.counts("mail").block(WAIT).running()).isEqualTo(3);
        assertThat(storage.counts("other").block(WAIT).running()).isEqualTo(1);
        assertThat(leased).extracting(job -> storage.status(job.id()).block(WAIT).state())
                .containsOnly(JobState.RUNNING);
        assertThat(storage.heartbeat(leased).collectList().block(WAIT))
                .containsExactlyInAnyOrderElementsOf(leased.stream().map(Job::id).toList());

        // Each leased attempt ends the way it did before the step: completed, failed, rescued.
        assertThat(storage.completeAll(List.of(leased.get(0))).block(WAIT)).containsExactly(AttemptResult.COMPLETED);
        assertThat(storage.fail(leased.get(1), "boom").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);
        Fixtures.makeLeasesStale(db, schema, "leases");
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isEqualTo(2);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "leases")).isZero();

        // Claimed after the step: a run, no lease; every attempt of the queue ends, and none is counted running.
        List<Job> runs = claimAll(storage, "mail", 10);
        assertThat(runs).hasSize(3).extracting(Job::runLease).allMatch(lease -> lease < 0);
        assertThat(storage.completeAll(runs).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        assertThat(storage.counts("mail").block(WAIT).running()).isZero();
        assertThat(storage.counts("mail").block(WAIT).completed()).isEqualTo(4);
        assertThat(storage.status(leased.get(0).id()).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void shouldCloseTheRunAttemptsCompletedBeforeStep19AndRescueOnlyTheOpenOnes() {
        String schema = db.newSchemaName();
        QueueStorage storage = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(db.connectionFactory()).schema(schema).heartbeatInterval(Duration.ofMillis(300))
                .leaseStaleAfter(Duration.ofSeconds(1)).retryBackoffBase(Duration.ZERO).build());
        for (MigrationScript script : storage.migrationScripts().subList(0, 18)) {
            runInOneTransaction(script.sql());
        }
        String s = "\"" + schema + "\".";
        for (int i = 0; i < 4; i++) {
            storage.enqueue(JobRequest.of("mail", "k", "{}")).block(WAIT);
        }
        List<Job> run = claimAll(storage, "mail", 4);
        assertThat(run).hasSize(4).extracting(Job::runLease).allMatch(lease -> lease < 0);
        // Completed by step 18's functions: a done row each.
        assertThat(storage.completeAll(run.subList(0, 2)).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + "done_entries")).isEqualTo(2);

        storage.install().block(WAIT);

        // The step closed the two completed attempts of the run, which a lease slot still holds.
        assertThat(db.query("SELECT places::text FROM " + s + "lease_run_closures", rs -> rs.getString(1)))
                .containsExactly("{0,1}");
        assertThat(storage.complete(run.get(0)).block(WAIT)).isEqualTo(AttemptResult.LOST);
        assertThat(storage.heartbeat(run).collectList().block(WAIT))
                .containsExactlyInAnyOrder(run.get(2).id(), run.get(3).id());
        assertThat(storage.status(run.get(2).id()).block(WAIT).state()).isEqualTo(JobState.RUNNING);

        // The run goes stale: rescue takes back its two open attempts only, and no job runs twice.
        Fixtures.makeLeasesStale(db, schema, "lease_runs");
        assertThat(storage.ringOperations().rescue(10).block(WAIT)).isEqualTo(2);
        assertThat(storage.status(run.get(0).id()).block(WAIT).state()).isEqualTo(JobState.COMPLETED);
        assertThat(storage.status(run.get(2).id()).block(WAIT).attempt()).isEqualTo(2);
        List<Job> retried = claimAll(storage, "mail", 10);
        assertThat(retried).extracting(Job::id).containsExactlyInAnyOrder(run.get(2).id(), run.get(3).id());
        assertThat(storage.completeAll(retried).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        assertThat(storage.counts("mail").block(WAIT).completed()).isEqualTo(4);
    }

    /** A completion as release 0.1.0 made it: its own {@code end_attempt}. */
    private String completeWithRelease010(String schema, Job job) {
        return db.query("SELECT \"" + schema + "\".end_attempt(?, ?, ?, 'completed', NULL, 0, 1, 0, 1, false)",
                rs -> rs.getString(1), job.leaseSlot(), job.id(), job.runLease()).get(0);
    }

    private static boolean isLockTimeout(Throwable error) {
        return error instanceof io.r2dbc.spi.R2dbcException r2dbc && "55P03".equals(r2dbc.getSqlState());
    }

    /**
     * A rotation of a schema at release 0.1.0's version: the ledger row its rotation appends (this library's
     * rotation reads step 6's lease tallies). The rings here always rotate into an empty slot.
     */
    private void rotateWithRelease010(String schema, Ring ring) {
        String s = "\"" + schema + "\".";
        db.execute("INSERT INTO " + s + ring.label() + "_ring_rotations (generation, slot) SELECT r.generation + 1,"
                + " (r.slot + 1) % k.slot_count FROM (SELECT generation, slot FROM " + s + ring.label()
                + "_ring_rotations ORDER BY generation DESC LIMIT 1) r CROSS JOIN " + s + ring.label()
                + "_ring_state k");
    }

    private static List<Job> claimAll(QueueStorage storage, String queue, int max) {
        return storage.claim(queue, max, "upgrade-test").collectList().block(WAIT);
    }

    /**
     * A claim as release 0.1.0 made it: its own {@code claim_jobs}, without its after-commit cursor advance (as if
     * that library stopped right after the claim), so the upgraded claim must also repair the lagging cursors.
     */
    private List<Job> claimWithRelease010(String schema, String queue, int max) {
        return db.query("SELECT * FROM \"" + schema + "\".claim_jobs(?, ?, 'release-0.1.0', NULL)"
                + " WHERE o_job_id IS NOT NULL", rs -> {
                    Long timeout = (Long) rs.getObject("o_timeout_ms");
                    java.sql.Timestamp deadline = rs.getTimestamp("o_deadline_at");
                    return new Job(rs.getLong("o_job_id"), queue, rs.getString("o_kind"), rs.getString("o_args"),
                            rs.getShort("o_priority"), rs.getInt("o_attempt"), rs.getInt("o_max_attempts"),
                            timeout == null ? null : Duration.ofMillis(timeout),
                            deadline == null ? null : deadline.toInstant(), rs.getLong("o_run_lease"),
                            rs.getInt("o_ready_slot"), rs.getLong("o_ready_generation"), rs.getInt("o_lease_slot"),
                            rs.getInt("o_claim_slot"), rs.getInt("o_enqueue_shard"), rs.getLong("o_lane_seq"));
                }, queue, max);
    }

    @Test
    void shouldChangeNothingWhenUpgradedTwice() {
        String schema = db.newSchemaName();
        installRelease010(schema);
        QueueStorage storage = storage(schema);
        storage.install().block(WAIT);
        List<String> catalog = catalog(schema);
        List<String> versions = versionRows(schema);

        storage.install().block(WAIT);
        storage(schema).install().block(WAIT);

        assertThat(catalog(schema)).isEqualTo(catalog);
        assertThat(versionRows(schema)).isEqualTo(versions).hasSize(LATEST);
    }

    @Test
    void shouldApplyEachStepOnceWhenTwoInstallersUpgradeAtOnce() {
        for (int round = 0; round < 3; round++) {
            String schema = db.newSchemaName();
            installRelease010(schema);
            QueueStorage first = storage(schema);
            QueueStorage second = storage(schema);

            Mono.when(first.install().subscribeOn(Schedulers.parallel()),
                    second.install().subscribeOn(Schedulers.parallel())).block(WAIT);

            assertThat(recordedVersions(schema)).isEqualTo(expectedVersions(first));
            first.verifyInstalled().block(WAIT);
        }
    }

    @Test
    void shouldRefuseASchemaNewerThanTheLibraryNamingBothVersionsAndChangeNothing() {
        String schema = db.newSchemaName();
        QueueStorage storage = storage(schema);
        storage.install().block(WAIT);
        int newer = LATEST + 1;
        db.execute("INSERT INTO \"" + schema + "\".awa_reactive_schema_version (version, description, checksum)"
                + " VALUES (" + newer + ", 'from a newer library', 'abc')");
        String expected = "schema " + schema + " is at version " + newer + ", newer than version " + LATEST
                + ", the latest this library knows; use a library that supports version " + newer + " or later";
        assertRefusedChangingNothing(storage, schema, expected);
    }

    @Test
    void shouldRefuseAStepWhoseChecksumDiffersNamingTheStepAndChangeNothing() {
        String schema = db.newSchemaName();
        installRelease010(schema);
        QueueStorage storage = storage(schema);
        storage.install().block(WAIT);
        db.execute("UPDATE \"" + schema + "\".awa_reactive_schema_version SET checksum = 'tampered'"
                + " WHERE version = 1");
        String expected = "schema " + schema + ": step V1__rings.sql was applied with checksum tampered, but this"
                + " library's V1__rings.sql has checksum " + storage.migrationScripts().get(0).checksum()
                + "; a released step must never change, so either the schema or the library was altered."
                + " Nothing was changed";
        assertRefusedChangingNothing(storage, schema, expected);
    }

    @Test
    void shouldRefuseAVersionTableWithAGapAndChangeNothing() {
        String schema = db.newSchemaName();
        QueueStorage storage = storage(schema);
        storage.install().block(WAIT);
        db.execute("DELETE FROM \"" + schema + "\".awa_reactive_schema_version WHERE version = 1");

        assertRefusedChangingNothing(storage, schema, "schema " + schema + " records versions "
                + storage.migrationScripts().stream().skip(1).map(MigrationScript::version).toList()
                + " in awa_reactive_schema_version, not every step from 1 to " + LATEST
                + "; the table was changed by hand");
    }

    /** Both install() and verifyInstalled() refuse with the message, and neither changes the catalog or versions. */
    private void assertRefusedChangingNothing(QueueStorage storage, String schema, String expected) {
        List<String> catalog = catalog(schema);
        List<String> versions = versionRows(schema);

        assertThatThrownBy(() -> storage.install().block(WAIT)).isInstanceOf(AwaReactiveException.class)
                .hasMessage(expected);
        assertThatThrownBy(() -> storage.verifyInstalled().block(WAIT)).isInstanceOf(AwaReactiveException.class)
                .hasMessage(expected);

        assertThat(catalog(schema)).isEqualTo(catalog);
        assertThat(versionRows(schema)).isEqualTo(versions);
    }

    @Test
    void shouldTellToUpgradeWhenVerifyingAnOlderSchemaAndChangeNothing() {
        String schema = db.newSchemaName();
        installRelease010(schema);
        List<String> catalog = catalog(schema);

        assertThatThrownBy(() -> storage(schema).verifyInstalled().block(WAIT))
                .isInstanceOf(AwaReactiveException.class)
                .hasMessage("schema " + schema + " is at version 1, this library needs version " + LATEST + "; run"
                        + " QueueStorage.install() to upgrade it in place, or apply the missing"
                        + " QueueStorage.migrationScripts() with your migration tool (docs/operations.md, Upgrading)");

        assertThat(catalog(schema)).isEqualTo(catalog);
    }

    @Test
    void shouldAgreeWithAToolThatRanTheScriptsItself() {
        String schema = db.newSchemaName();
        QueueStorage storage = storage(schema);
        for (MigrationScript script : storage.migrationScripts()) {
            runInOneTransaction(script.sql());
        }
        List<String> versions = versionRows(schema);

        storage.verifyInstalled().block(WAIT);
        storage.install().block(WAIT);

        assertThat(versionRows(schema)).isEqualTo(versions);
        assertThat(recordedVersions(schema)).isEqualTo(expectedVersions(storage));
    }
}
