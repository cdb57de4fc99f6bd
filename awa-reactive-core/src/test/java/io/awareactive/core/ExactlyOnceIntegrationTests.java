package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.BlockingCallGuard;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * 10,000 jobs from 4 concurrent producers, 4 concurrent workers, all three rings rotating every 100 ms: every job
 * runs exactly once. Afterwards the per-table write statistics show that no ring-control or lane table was updated
 * or deleted per job.
 */
@AwaPostgresTest
final class ExactlyOnceIntegrationTests {

    private static final int PRODUCERS = 4;
    private static final int CHUNKS = 25;
    private static final int CHUNK = 100;
    private static final int JOBS = PRODUCERS * CHUNKS * CHUNK;
    private static final int WORKERS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);

    /** Tables that must never see an UPDATE or DELETE per job. */
    private static final Set<String> CONTROL_TABLES = Set.of("queue_ring_state", "lease_ring_state",
            "claim_ring_state", "queue_ring_rotations", "lease_ring_rotations", "claim_ring_rotations",
            "queue_ring_slots", "lease_ring_slots", "claim_ring_slots", "queue_meta", "queue_lanes",
            "queue_claim_heads");

    private final TestDatabase db;

    ExactlyOnceIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    static void installBlockHound() {
        BlockingCallGuard.install();
    }

    @Test
    void shouldRunEveryJobExactlyOnceWhileRingsRotateAndNeverUpdateControlTables() {
        BlockingCallGuard.clear();
        String schema = db.newSchemaName();
        ConnectionPool pool = Fixtures.pool(db, 24);
        QueueStorage storage = QueueStorage.create(Fixtures.config(pool, schema, b -> b.queueSlotCount(64)
                .leaseSlotCount(8).claimSlotCount(64)));
        storage.install().block(WAIT);

        Map<Long, List<Integer>> executions = new ConcurrentHashMap<>();
        Set<Long> live = ConcurrentHashMap.newKeySet();
        AtomicInteger concurrentRuns = new AtomicInteger();
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            workers.add(storage.worker(WorkerConfig.builder("q", job -> Mono.fromRunnable(() -> {
                if (!live.add(job.id())) {
                    concurrentRuns.incrementAndGet();
                }
                executions.computeIfAbsent(job.id(), id -> new CopyOnWriteArrayList<>()).add(job.attempt());
            }).doFinally(signal -> live.remove(job.id()))).concurrency(8).batchSize(8)
                    .pollInterval(Duration.ofMillis(250)).build()));
        }
        Flux.fromIterable(workers).flatMap(Worker::start).blockLast(WAIT);

        Map<String, AtomicInteger> rotations = new ConcurrentHashMap<>();
        Disposable rotation = Flux.interval(Duration.ofMillis(100))
                .onBackpressureDrop()
                .concatMap(tick -> Flux.fromArray(Ring.values())
                        .concatMap(ring -> storage.rotate(ring)
                                .doOnNext(o -> rotations.computeIfAbsent(ring.label() + " " + o.getClass()
                                        .getSimpleName(), k -> new AtomicInteger()).incrementAndGet())
                                .onErrorResume(e -> Mono.empty())), 1)
                .subscribe();

        long started = System.nanoTime();
        List<Long> ids = Flux.range(0, PRODUCERS)
                .flatMap(p -> Flux.range(0, CHUNKS)
                        .concatMap(chunk -> storage.enqueueAll(Flux.range(0, CHUNK).map(i -> JobRequest
                                .builder("q", "k").priority(1 + (p + chunk + i) % 4)
                                .args("{\"p\":" + p + ",\"c\":" + chunk + ",\"i\":" + i + "}").build())))
                        .subscribeOn(Schedulers.parallel()), PRODUCERS)
                .collectList()
                .block(WAIT);

        await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> storage.counts("q").block(WAIT).completed() == JOBS);
        double seconds = (System.nanoTime() - started) / 1e9;
        rotation.dispose();
        Flux.fromIterable(workers).flatMap(w -> w.stop(Duration.ofSeconds(10))).blockLast(WAIT);

        System.out.printf("exactly-once run: %d jobs in %.1f s (%.0f jobs/s); rotations: %s%n", JOBS, seconds,
                JOBS / seconds, new java.util.TreeMap<>(rotations));
        assertThat(ids).hasSize(JOBS).doesNotHaveDuplicates();
        assertThat(executions.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(executions.values()).allSatisfy(attempts -> assertThat(attempts).containsExactly(1));
        assertThat(concurrentRuns).hasValue(0);
        assertThat(storage.counts("q").block(WAIT)).isEqualTo(new QueueCounts("q", 0, 0, 0, JOBS, 0, 0));
        String s = "\"" + schema + "\"";
        assertThat(db.queryLong("SELECT count(DISTINCT job_id) FROM " + s + ".done_entries WHERE state = 'completed'"))
                .isEqualTo(JOBS);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".leases")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".lease_claims")).isEqualTo(JOBS);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".lease_claim_closures WHERE outcome = 'completed'"))
                .isEqualTo(JOBS);
        assertThat(db.queryLong("SELECT max(generation) FROM " + s + ".queue_ring_rotations")).isGreaterThan(3);
        assertThat(db.queryLong("SELECT max(generation) FROM " + s + ".claim_ring_rotations")).isGreaterThan(3);
        assertThat(db.queryLong("SELECT count(DISTINCT ready_slot) FROM " + s + ".done_entries")).isGreaterThan(3);
        BlockingCallGuard.assertNoViolations();

        // Closed sessions flush their statistics; then read every table's write counters.
        pool.disposeLater().block(WAIT);
        await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_stat_activity WHERE datname ="
                + " current_database() AND application_name = 'r2dbc-postgresql'") == 0);
        List<String[]> figures = db.query("SELECT pg_stat_force_next_flush()", rs -> new String[0]).isEmpty()
                ? List.of() : tableFigures(schema);

        StringBuilder table = new StringBuilder(String.format("%n%-34s %9s %9s %9s %9s%n", "table (partitions incl. parent)",
                "n_tup_ins", "n_tup_upd", "n_tup_del", "n_dead_tup"));
        for (String[] row : figures) {
            table.append(String.format("%-34s %9s %9s %9s %9s%n", (Object[]) row));
        }
        System.out.println(table);

        assertThat(figures).extracting(row -> row[0].replaceAll(" \\(.*", ""))
                .containsAll(CONTROL_TABLES);
        for (String[] row : figures) {
            String name = row[0].replaceAll(" \\(.*", "");
            if (CONTROL_TABLES.contains(name)) {
                assertThat(row[2]).as("n_tup_upd of " + name).isEqualTo("0");
                assertThat(row[3]).as("n_tup_del of " + name).isEqualTo("0");
                assertThat(row[4]).as("n_dead_tup of " + name).isEqualTo("0");
            }
        }
        assertThat(figures).filteredOn(row -> row[0].startsWith("leases")).singleElement()
                .satisfies(row -> assertThat(Long.parseLong(row[3])).isEqualTo(JOBS));
    }

    /** Write counters of every table in the schema, ring children summed per family. */
    private List<String[]> tableFigures(String schema) {
        return db.query("SELECT CASE WHEN count(*) > 1 THEN family || ' (' || count(*) || ')' ELSE family END,"
                + " sum(n_tup_ins), sum(n_tup_upd), sum(n_tup_del), sum(n_dead_tup) FROM ("
                + " SELECT CASE WHEN relname ~ '_[0-9]+$' AND relname !~ '^queue_(enqueue|claim)_seq'"
                + " THEN regexp_replace(relname, '_[0-9]+$', '') ELSE relname END AS family, n_tup_ins, n_tup_upd,"
                + " n_tup_del, n_dead_tup FROM pg_stat_user_tables WHERE schemaname = ?) t"
                + " GROUP BY family ORDER BY family",
                rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5)}, schema);
    }
}
