package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static io.awareactive.reliability.Reliability.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 8: the leader's connection is terminated under load. Another engine leads within the election plus check
 * interval, and at no time do two prunes, rotations or rollups of one ring run at once: a probe trigger on every
 * truncate and ledger append try-locks a per-(operation, ring) key for its transaction and records any overlap, and
 * the ledgers stay contiguous. Both engines' outcome streams keep reporting (prunes go on after the failover): the
 * task the old leader cancels when its check fails must leave its pooled connection out of any transaction, or the
 * next borrower (a worker's claim) runs inside it and its locks block every prune.
 */
@AwaPostgresTest
final class LeaderFailoverIntegrationTests {

    private static final Duration ELECTION = Duration.ofMillis(500);
    private static final Duration CHECK = Duration.ofMillis(300);

    private final TestDatabase db;

    LeaderFailoverIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    /** Probe: each truncate of a ring child and each ledger append try-locks its key for the transaction. */
    private void installProbe(QueueStorageConfig storage) {
        db.execute("CREATE TABLE " + t(storage, "probe_overlaps") + " (operation text, at timestamptz DEFAULT now())",
                "CREATE FUNCTION " + t(storage, "probe") + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF NOT pg_try_advisory_xact_lock(hashtextextended(TG_ARGV[0], 0)) THEN"
                        + " INSERT INTO " + t(storage, "probe_overlaps") + " (operation) VALUES (TG_ARGV[0]);"
                        + " END IF; RETURN NULL; END $$");
        for (Ring ring : Ring.values()) {
            db.execute("CREATE TRIGGER probe AFTER INSERT ON " + t(storage, ring.label() + "_ring_rotations")
                    + " FOR EACH STATEMENT EXECUTE FUNCTION " + t(storage, "probe") + "('rotate:" + ring.label() + "')");
            int slots = storage.slotCount(ring);
            String child = switch (ring) {
                case QUEUE -> "ready_entries_";
                // Since schema step 18 a claim writes a run row, not leases: the lease prune truncates these.
                case LEASE -> "lease_runs_";
                // Empty since schema step 7 (claims write no receipt): the claim ring stays idle, so these never fire.
                case CLAIM -> "lease_claims_";
            };
            for (int k = 0; k < slots; k++) {
                db.execute("CREATE TRIGGER probe BEFORE TRUNCATE ON " + t(storage, child + k)
                        + " FOR EACH STATEMENT EXECUTE FUNCTION " + t(storage, "probe") + "('prune:" + ring.label()
                        + "')");
            }
        }
        for (int k = 0; k < storage.slotCount(Ring.QUEUE); k++) {
            db.execute("CREATE TRIGGER probe BEFORE TRUNCATE ON " + t(storage, "queue_terminal_count_deltas_" + k)
                    + " FOR EACH STATEMENT EXECUTE FUNCTION " + t(storage, "probe") + "('truncate:deltas')");
        }
    }

    /** Outcome counts by ring, label and reason: tells blocked, skipped and backed-off prunes apart. */
    private static Map<String, Long> tally(List<PruneEvent> events) {
        return events.stream().collect(Collectors.groupingBy(e -> e.ring().label() + " " + e.outcome().label()
                + (e.outcome() instanceof PruneOutcome.Blocked blocked ? " " + blocked.cause().label()
                        : e.outcome() instanceof PruneOutcome.SkippedActive ? " " + e.outcome().reasonLabel() : ""),
                TreeMap::new, Collectors.counting()));
    }

    /** Who could be holding the locks a prune waits for: every other session of the database inside a transaction. */
    private List<String> openTransactions() {
        return db.query("SELECT pid || ' ' || state || ' for ' || (now() - xact_start) || ': ' || left(query, 100)"
                + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                + " AND xact_start IS NOT NULL", rs -> rs.getString(1));
    }

    @Test
    void shouldFailOverWithinElectionPlusCheckAndNeverRunOneRingOperationTwiceAtOnce() {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(10).maxAcquireTime(WAIT).build());
        QueueStorageConfig storage = Reliability.installed(db, pool);
        installProbe(storage);
        QueueStorage queue = QueueStorage.create(storage);
        Duration tick = Duration.ofMillis(100);
        List<PruneEvent> eventsA = new CopyOnWriteArrayList<>();
        List<PruneEvent> eventsB = new CopyOnWriteArrayList<>();
        List<RingMaintenance> engines = new ArrayList<>();
        Worker worker = queue.worker(WorkerConfig.builder("lead", job -> Mono.empty())
                .pollInterval(Duration.ofMillis(100)).build());
        Disposable producer = null;
        try {
            for (List<PruneEvent> events : List.of(eventsA, eventsB)) {
                RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Reliability.engine()
                        .task(MaintenanceTask.RING_QUEUE, t -> t.interval(tick))
                        .task(MaintenanceTask.RING_LEASE, t -> t.interval(tick))
                        .task(MaintenanceTask.RING_CLAIM, t -> t.interval(tick))
                        .task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ofMillis(300)))
                        .leaderElectionInterval(ELECTION).leaderCheckInterval(CHECK).build());
                engines.add(engine);
                engine.outcomes().subscribe(events::add);
                engine.start().block(WAIT);
                await().atMost(WAIT).until(() -> engines.stream().anyMatch(RingMaintenance::isLeader));
            }
            worker.start().block(WAIT);
            producer = Flux.interval(Duration.ofMillis(10)).onBackpressureDrop()
                    .concatMap(i -> queue.enqueue(JobRequest.of("lead", "k", "{}")).onErrorResume(e -> Mono.empty()))
                    .subscribe();
            await().atMost(WAIT).until(() -> Reliability.count(eventsA, "pruned")
                    + Reliability.count(eventsB, "pruned") >= 5);

            String holder = "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1"
                    + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)";
            String key = "awa-reactive.leader:" + storage.schema();
            long oldPid = db.queryLong(holder, key);
            long terminated = System.nanoTime();
            db.queryLong("SELECT count(*) FROM (SELECT pg_terminate_backend(?::int)) t", oldPid);
            // A leader again, on a new connection: whichever engine wins the next election round.
            await().atMost(WAIT).until(() -> db.query(holder, rs -> rs.getLong(1), key).stream()
                    .anyMatch(pid -> pid != oldPid) && engines.stream().anyMatch(RingMaintenance::isLeader));
            Duration failover = Duration.ofNanos(System.nanoTime() - terminated);
            int fromA = eventsA.size();
            int fromB = eventsB.size();
            try {
                await().atMost(WAIT).until(() -> Reliability.count(eventsA.subList(fromA, eventsA.size()), "pruned")
                        + Reliability.count(eventsB.subList(fromB, eventsB.size()), "pruned") >= 5);
            } catch (ConditionTimeoutException timeout) {
                throw new AssertionError("fewer than 5 pruned after the failover; outcomes since: A "
                        + tally(eventsA.subList(fromA, eventsA.size())) + ", B "
                        + tally(eventsB.subList(fromB, eventsB.size())) + "; sessions in a transaction: "
                        + openTransactions(), timeout);
            }
            System.out.printf("leader failover after %d ms (election %d ms + check %d ms); leaders now A=%s B=%s%n",
                    failover.toMillis(), ELECTION.toMillis(), CHECK.toMillis(), engines.get(0).isLeader(),
                    engines.get(1).isLeader());
            assertThat(failover).isLessThan(ELECTION.plus(CHECK).plusSeconds(2));
            await().during(ELECTION.multipliedBy(2)).atMost(WAIT).until(() -> engines.get(0).isLeader()
                    ^ engines.get(1).isLeader());
        } finally {
            if (producer != null) {
                producer.dispose();
            }
            worker.stop(Duration.ofSeconds(5)).block(WAIT);
            engines.forEach(Reliability::stopQuietly);
            pool.dispose();
        }

        assertThat(db.query("SELECT operation FROM " + t(storage, "probe_overlaps"), rs -> rs.getString(1)))
                .isEmpty();
        for (Ring ring : Ring.values()) {
            assertThat(db.queryLong("SELECT max(generation) - min(generation) + 1 - count(*) FROM "
                    + t(storage, ring.label() + "_ring_rotations"))).as(ring.label()).isZero();
        }
    }
}
