package io.awareactive.maintenance;

import static io.awareactive.maintenance.Fixtures.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Design §7.1 and §12 scenario 20: one leader per schema, failover, no pooled connection held. */
@AwaPostgresTest
final class LeaderElectionIntegrationTests {

    private static final Duration ELECTION = Duration.ofMillis(500);
    private static final Duration CHECK = Duration.ofMillis(300);

    private final TestDatabase db;
    private final List<RingMaintenance> engines = new ArrayList<>();

    LeaderElectionIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stopEngines() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)).block(WAIT));
    }

    private RingMaintenance engine(QueueStorageConfig storage, SimpleMeterRegistry registry) {
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(storage), Fixtures.engine().meterRegistry(registry)
                .leaderElectionInterval(ELECTION).leaderCheckInterval(CHECK).build());
        engines.add(engine);
        engine.start().block(WAIT);
        return engine;
    }

    private long leaderLockHolders(QueueStorageConfig storage) {
        return db.queryLong("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1"
                + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)",
                "awa-reactive.leader:" + storage.schema());
    }

    private int leaderLockPid(QueueStorageConfig storage) {
        return (int) db.queryLong("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1"
                + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)",
                "awa-reactive.leader:" + storage.schema());
    }

    private static double leaderGauge(SimpleMeterRegistry registry) {
        return registry.get("awa.maintenance.leader").gauge().value();
    }

    @Test
    void shouldElectOneLeaderAndHandOverWithinAnElectionIntervalOfAGracefulStop() {
        QueueStorageConfig storage = Fixtures.installed(db, db.connectionFactory());
        SimpleMeterRegistry registryA = new SimpleMeterRegistry();
        SimpleMeterRegistry registryB = new SimpleMeterRegistry();
        RingMaintenance a = engine(storage, registryA);
        RingMaintenance b = engine(storage, registryB);

        await().atMost(WAIT).until(() -> a.isLeader() || b.isLeader());
        await().during(ELECTION.multipliedBy(3)).atMost(WAIT).until(() -> a.isLeader() ^ b.isLeader());
        assertThat(leaderGauge(registryA) + leaderGauge(registryB)).isEqualTo(1.0);
        assertThat(leaderLockHolders(storage)).isEqualTo(1);

        RingMaintenance leader = a.isLeader() ? a : b;
        RingMaintenance follower = leader == a ? b : a;
        long stopped = System.nanoTime();
        leader.stop(Duration.ofSeconds(5)).block(WAIT);
        assertThat(leader.isLeader()).isFalse();

        await().atMost(WAIT).until(follower::isLeader);
        Duration handOver = Duration.ofNanos(System.nanoTime() - stopped);
        assertThat(handOver).isLessThan(ELECTION.plusSeconds(2));
        assertThat(leaderLockHolders(storage)).isEqualTo(1);
    }

    @Test
    void shouldFailOverWhenTheLeaderConnectionIsTerminated() {
        QueueStorageConfig storage = Fixtures.installed(db, db.connectionFactory());
        SimpleMeterRegistry registryA = new SimpleMeterRegistry();
        SimpleMeterRegistry registryB = new SimpleMeterRegistry();
        RingMaintenance a = engine(storage, registryA);
        await().atMost(WAIT).until(a::isLeader);
        RingMaintenance b = engine(storage, registryB);
        await().during(ELECTION.multipliedBy(2)).atMost(WAIT).until(() -> !b.isLeader());

        long terminated = System.nanoTime();
        db.queryLong("SELECT count(*) FROM (SELECT pg_terminate_backend(?)) t", leaderLockPid(storage));

        await().atMost(WAIT).until(b::isLeader);
        Duration failover = Duration.ofNanos(System.nanoTime() - terminated);
        assertThat(failover).isLessThan(ELECTION.plus(CHECK).plusSeconds(2));
        await().atMost(WAIT).until(() -> !a.isLeader());
        assertThat(leaderGauge(registryA)).isZero();
        assertThat(registryA.get("awa.maintenance.task.failures").tag("awa.maintenance.task", "leader_check")
                .counter().count()).isGreaterThanOrEqualTo(1);
        // The old leader re-enters the election as a follower and does not take leadership back.
        await().during(ELECTION.multipliedBy(3)).atMost(WAIT).until(() -> b.isLeader() && !a.isLeader());
        assertThat(leaderLockHolders(storage)).isEqualTo(1);
    }

    @Test
    void shouldHoldNoPooledConnectionForLeadership() {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(2).build());
        try {
            QueueStorageConfig storage = Fixtures.installed(db, pool);
            RingMaintenance engine = engine(storage, new SimpleMeterRegistry());
            await().atMost(WAIT).until(engine::isLeader);

            await().atMost(WAIT).until(() -> pool.getMetrics().orElseThrow().acquiredSize() == 0);
            assertThat(leaderLockHolders(storage)).isEqualTo(1);
            assertThat(RingMaintenance.leaderFactory(QueueStorage.create(storage).ringOperations(), engine.config()))
                    .isSameAs(pool.unwrap());
            engine.stop(Duration.ofSeconds(5)).block(WAIT);
            assertThat(leaderLockHolders(storage)).isZero();
        } finally {
            pool.dispose();
        }
    }
}
