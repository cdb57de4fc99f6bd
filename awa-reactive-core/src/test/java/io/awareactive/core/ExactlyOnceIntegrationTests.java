package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.internal.Lifecycle;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * 10,000 jobs from 4 concurrent producers, 4 concurrent workers, every ring rotated and then pruned every 100 ms (as
 * the maintenance engine would), on small rings (4/2/2) so the slots are really recycled while the jobs flow: every
 * job runs exactly once, none is lost, the terminal counts survive the prune hand-offs. Afterwards the per-table write
 * statistics show that no ring-control or lane table was updated or deleted per job.
 */
@AwaPostgresTest
final class ExactlyOnceIntegrationTests {

    private static final int PRODUCERS = 4;
    private static final int CHUNKS = 25;
    private static final int CHUNK = 100;
    private static final int JOBS = PRODUCERS * CHUNKS * CHUNK;
    private static final int WORKERS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Duration TICK = Duration.ofMillis(100);

    /** Tables that must never see an UPDATE or DELETE per job. */
    private static final Set<String> CONTROL_TABLES = Set.of("queue_ring_state", "lease_ring_state",
            "claim_ring_state", "queue_ring_rotations", "lease_ring_rotations", "claim_ring_rotations",
            "queue_ring_slots", "lease_ring_slots", "claim_ring_slots", "queue_meta", "queue_lanes");

    /** The rings whose rows record jobs; the claim ring holds only receipts of claims before schema step 7. */
    private static final List<Ring> RECORD_RINGS = List.of(Ring.QUEUE, Ring.LEASE);

    private final TestDatabase db;

    ExactlyOnceIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @Test
    void shouldRunEveryJobExactlyOnceWhileRingsRotateAndPruneAndNeverUpdateControlTables() throws Exception {
        String schema = db.newSchemaName();
        ConnectionPool pool = Fixtures.pool(db, 24);
        QueueStorage storage = QueueStorage.create(Fixtures.config(pool, schema, UnaryOperator.identity()));
        storage.install().block(WAIT);
        QueueStorageConfig config = storage.config();

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

        // One tick per ring every 100 ms, as the engine runs them: rotate, then prune the oldest sealed slot.
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        List<Throwable> rotateErrors = new CopyOnWriteArrayList<>();
        // Stopped by a signal, not by cancelling: a tick in flight finishes instead of being torn down mid-statement.
        Sinks.Empty<Void> stop = Sinks.empty();
        CompletableFuture<Void> maintenance = Flux.fromArray(Ring.values())
                .flatMap(ring -> Flux.interval(TICK)
                        .takeUntilOther(stop.asMono())
                        .onBackpressureDrop()
                        .concatMap(tick -> storage.ringOperations().rotate(ring)
                                .doOnNext(o -> count(outcomes, ring.label() + " rotate "
                                        + o.getClass().getSimpleName()))
                                .onErrorResume(e -> {
                                    rotateErrors.add(e);
                                    return Mono.empty();
                                })
                                .then(storage.ringOperations().prune(ring))
                                .doOnNext(o -> count(outcomes, ring.label() + " prune " + o.label())), 0))
                .then()
                .toFuture();

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
        String atCompletion = String.format("queue cursor %s, pruned %s", storage.ringOperations().cursor(Ring.QUEUE).block(WAIT),
                outcomes.entrySet().stream().filter(e -> e.getKey().endsWith(" pruned")).map(Map.Entry::toString)
                        .sorted().toList());
        // The last sealed slots drain a few ticks after the last completion; then every ring with rows has lapped.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> RECORD_RINGS
                .stream().allMatch(ring -> outcomes.containsKey(ring.label() + " prune pruned")
                        && storage.ringOperations().cursor(ring).block(WAIT).generation() >= config.slotCount(ring)));
        stop.tryEmitEmpty();
        maintenance.get(30, TimeUnit.SECONDS);
        Flux.fromIterable(workers).flatMap(w -> w.stop(Duration.ofSeconds(10))).blockLast(WAIT);

        System.out.printf("exactly-once run: %d jobs in %.1f s (%.0f jobs/s); at the last completion: %s;"
                + " cursors: %s; ring outcomes: %s%n", JOBS, seconds, JOBS / seconds, atCompletion,
                Flux.fromArray(Ring.values()).concatMap(storage.ringOperations()::cursor).collectList().block(WAIT),
                new TreeMap<>(outcomes));
        assertThat(ids).hasSize(JOBS).doesNotHaveDuplicates();
        assertThat(executions.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(executions.values()).allSatisfy(attempts -> assertThat(attempts).containsExactly(1));
        assertThat(concurrentRuns).hasValue(0);
        // Exact terminal counts although most done rows were truncated: the prune hand-off kept them.
        assertThat(storage.counts("q").block(WAIT)).isEqualTo(new QueueCounts("q", 0, 0, 0, JOBS, 0, 0));
        String s = "\"" + schema + "\"";
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".leases")).isZero();
        assertThat(rotateErrors).isEmpty();
        assertThat(outcomes.keySet()).noneMatch(key -> key.endsWith(" prune error"));
        for (Ring ring : RECORD_RINGS) {
            assertThat(storage.ringOperations().cursor(ring).block(WAIT).generation()).as("generation of the " + ring.label()
                    + " ring").isGreaterThanOrEqualTo(config.slotCount(ring));
            assertThat(outcomes).as("prunes of the " + ring.label() + " ring")
                    .containsKey(ring.label() + " prune pruned");
        }
        // No claim wrote a receipt, so the claim ring stayed empty: every tick found it idle, never rotated or pruned.
        assertThat(storage.ringOperations().cursor(Ring.CLAIM).block(WAIT).generation()).isZero();
        assertThat(outcomes.keySet()).filteredOn(key -> key.startsWith(Ring.CLAIM.label() + " "))
                .containsExactlyInAnyOrder(Ring.CLAIM.label() + " rotate SkippedIdle",
                        Ring.CLAIM.label() + " prune noop");

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
        // Truncated rows keep their write counters: every job wrote one ready row; no receipt or closure (since
        // schema step 7), no lease (since step 18) and no done row (since step 19), but a share of its claimed run's
        // row, which no ending updated (no job failed) and nothing deleted, and of the run's closures.
        for (String family : List.of("ready_entries", "leases", "lease_claims", "lease_claim_closures",
                "done_entries")) {
            long inserts = family.equals("ready_entries") ? JOBS : 0;
            assertThat(figures).filteredOn(row -> row[0].startsWith(family + " (")).singleElement()
                    .satisfies(row -> assertThat(Long.parseLong(row[1])).as("n_tup_ins of " + family)
                            .isEqualTo(inserts));
        }
        assertThat(figures).filteredOn(row -> row[0].startsWith("lease_runs (")).singleElement()
                .satisfies(row -> {
                    // A claim statement writes one run per lane it takes jobs from, and takes at most 1,000 jobs:
                    // a worker's 8, or the summed batches of the claims that waited for a shared statement.
                    assertThat(Long.parseLong(row[1])).as("n_tup_ins of lease_runs")
                            .isBetween((long) JOBS / Lifecycle.MAX_CLAIM_BATCH, (long) JOBS);
                    assertThat(Long.parseLong(row[3])).as("n_tup_del of lease_runs").isZero();
                });
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".lease_runs WHERE ended <> '{}'")).isZero();
        assertThat(figures).filteredOn(row -> row[0].startsWith("lease_run_closures (")).singleElement()
                .satisfies(row -> assertThat(Long.parseLong(row[1])).as("n_tup_ins of lease_run_closures")
                        .isBetween(1L, (long) JOBS));
    }

    private static void count(Map<String, AtomicInteger> outcomes, String key) {
        outcomes.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
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
