package io.awareactive.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.micrometer.core.instrument.Tags;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

final class RingMaintenanceConfigUnitTests {

    private final QueueStorageConfig storage = VirtualTime.unusedStorage();

    private static RingMaintenanceConfig.Builder builder() {
        return RingMaintenanceConfig.builder();
    }

    @Test
    void shouldUseTheDocumentedDefaults() {
        RingMaintenanceConfig config = builder().build();

        for (MaintenanceTask<?> ring : List.of(MaintenanceTask.RING_QUEUE, MaintenanceTask.RING_LEASE,
                MaintenanceTask.RING_CLAIM)) {
            assertThat(config.task(ring)).isEqualTo(new TaskOptions.Tick(Duration.ofSeconds(1)));
        }
        assertThat(config.task(MaintenanceTask.ROLLUP)).isEqualTo(new TaskOptions.Rollup(Duration.ofSeconds(30), 4,
                Duration.ofSeconds(5), 10_000));
        assertThat(config.task(MaintenanceTask.PROMOTE)).isEqualTo(new TaskOptions.Batch(Duration.ofMillis(250), 500));
        assertThat(config.task(MaintenanceTask.RESCUE)).isEqualTo(new TaskOptions.Batch(Duration.ofSeconds(10), 500));
        assertThat(config.task(MaintenanceTask.DLQ_PURGE)).isEqualTo(new TaskOptions.Batch(Duration.ofSeconds(60),
                500));
        for (MaintenanceTask<?> task : MaintenanceTask.values()) {
            assertThat(config.task(task)).as(task.label()).isEqualTo(task.defaults());
        }
        assertThat(config.leaderElectionInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.leaderCheckInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.taskTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.scheduler()).isSameAs(Schedulers.parallel());
        assertThat(config.outcomeScheduler()).isSameAs(Schedulers.boundedElastic());
        assertThat(config.clock()).isEqualTo(Clock.systemUTC());
        assertThat(config.meterRegistry()).isNull();
        assertThat(config.meterTags()).isEqualTo(Tags.empty());
        assertThat(config.blockerDiagnostics()).isFalse();
        assertThat(config.leaderConnectionFactory()).isNull();
        assertThat(config.toString()).contains("promote=Batch[interval=PT0.25S, batchSize=500]")
                .contains("dlq_purge=Batch[interval=PT1M, batchSize=500]");
    }

    @Test
    void shouldAddUpTheCallsOfOneTaskAndLeaveTheOtherTasksAlone() {
        RingMaintenanceConfig config = builder()
                .task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ofSeconds(1)))
                .task(MaintenanceTask.PROMOTE, p -> p.batchSize(50))
                .task(MaintenanceTask.RING_LEASE, t -> t.interval(Duration.ofMillis(300)))
                .task(MaintenanceTask.ROLLUP, r -> r.maxSlots(8).mvccPinMinXids(5))
                .build();

        assertThat(config.task(MaintenanceTask.PROMOTE)).isEqualTo(new TaskOptions.Batch(Duration.ofSeconds(1), 50));
        assertThat(config.task(MaintenanceTask.RESCUE)).isEqualTo(new TaskOptions.Batch(Duration.ofSeconds(10), 500));
        assertThat(config.task(MaintenanceTask.RING_LEASE).interval()).isEqualTo(Duration.ofMillis(300));
        assertThat(config.task(MaintenanceTask.RING_QUEUE).interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.task(MaintenanceTask.ROLLUP)).isEqualTo(new TaskOptions.Rollup(Duration.ofSeconds(30), 8,
                Duration.ofSeconds(5), 5));
    }

    @Nested
    final class SetterRules {

        @Test
        void shouldRejectNonPositiveIntervalsNamingTheTaskAndOption() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ZERO)))
                    .withMessage("ring_queue.interval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder()
                            .task(MaintenanceTask.RING_LEASE, t -> t.interval(Duration.ofSeconds(-1))))
                    .withMessage("ring_lease.interval must be greater than 0, was PT-1S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.RING_CLAIM, t -> t.interval(Duration.ZERO)))
                    .withMessage("ring_claim.interval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.ROLLUP, r -> r.interval(Duration.ZERO)))
                    .withMessage("rollup.interval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.PROMOTE, p -> p.interval(Duration.ZERO)))
                    .withMessage("promote.interval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.RESCUE, p -> p.interval(Duration.ZERO)))
                    .withMessage("rescue.interval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder()
                            .task(MaintenanceTask.DLQ_PURGE, p -> p.interval(Duration.ofMinutes(-1))))
                    .withMessage("dlq_purge.interval must be greater than 0, was PT-1M");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.DLQ_PURGE, p -> p.interval(null)))
                    .withMessage("dlq_purge.interval must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().leaderElectionInterval(Duration.ZERO))
                    .withMessage("leaderElectionInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().leaderCheckInterval(Duration.ZERO))
                    .withMessage("leaderCheckInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().taskTimeout(Duration.ZERO))
                    .withMessage("taskTimeout must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.ROLLUP, r -> r.mvccPinMinAge(Duration.ZERO)))
                    .withMessage("rollup.mvccPinMinAge must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().taskTimeout(null))
                    .withMessage("taskTimeout must not be null");
        }

        @Test
        void shouldRejectOutOfRangeCountsNamingTheTaskAndOption() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.ROLLUP, r -> r.maxSlots(0)))
                    .withMessage("rollup.maxSlots must be between 1 and 64, was 0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.ROLLUP, r -> r.maxSlots(65)))
                    .withMessage("rollup.maxSlots must be between 1 and 64, was 65");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.PROMOTE, p -> p.batchSize(10_001)))
                    .withMessage("promote.batchSize must be between 1 and 10000, was 10001");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.RESCUE, p -> p.batchSize(0)))
                    .withMessage("rescue.batchSize must be between 1 and 10000, was 0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.DLQ_PURGE, p -> p.batchSize(0)))
                    .withMessage("dlq_purge.batchSize must be between 1 and 10000, was 0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.DLQ_PURGE, p -> p.batchSize(10_001)))
                    .withMessage("dlq_purge.batchSize must be between 1 and 10000, was 10001");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().task(MaintenanceTask.ROLLUP, r -> r.mvccPinMinXids(0)))
                    .withMessage("rollup.mvccPinMinXids must be greater than 0, was 0");
        }

        @Test
        void shouldRejectNullsAndAPoolingLeaderFactory() {
            assertThatIllegalArgumentException().isThrownBy(() -> builder().task(MaintenanceTask.PROMOTE, null))
                    .withMessage("options must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().task(null, t -> t))
                    .withMessage("task must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().task(MaintenanceTask.PROMOTE, p -> null))
                    .withMessage("promote options must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().build().task(null))
                    .withMessage("task must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().scheduler(null))
                    .withMessage("scheduler must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().outcomeScheduler(null))
                    .withMessage("outcomeScheduler must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().clock(null))
                    .withMessage("clock must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().meterRegistry(null))
                    .withMessage("meterRegistry must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().leaderConnectionFactory(null))
                    .withMessage("leaderConnectionFactory must not be null");
            ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(storage.connectionFactory())
                    .initialSize(0).build());
            try {
                assertThatIllegalArgumentException().isThrownBy(() -> builder().leaderConnectionFactory(pool))
                        .withMessage("leaderConnectionFactory must not pool connections (pass ConnectionPool.unwrap()),"
                                + " was io.r2dbc.pool.ConnectionPool");
            } finally {
                pool.dispose();
            }
        }

        @Test
        void shouldRejectReservedMeterTagKeys() {
            assertThatIllegalArgumentException().isThrownBy(() -> builder().meterTags(Tags.of("awa.ring", "x")))
                    .withMessage("meterTags must not use the reserved tag key awa.ring, was [tag(awa.ring=x)]");
            assertThat(builder().meterTags(Tags.of("awa.schema", "s")).build().meterTags())
                    .isEqualTo(Tags.of("awa.schema", "s"));
        }
    }

    @Nested
    final class CreateRules {

        @Test
        void shouldRequireTheStorageAndTheConfig() {
            assertThatIllegalArgumentException().isThrownBy(() -> RingMaintenance.create(null, builder().build()))
                    .withMessage("storage must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> RingMaintenance.create(QueueStorage.create(storage),
                    null)).withMessage("config must not be null");
        }

        @Test
        void shouldRequireATaskTimeoutAboveTheStoragesLockTimeout() {
            QueueStorage twoSeconds = QueueStorage.create(storage.mutate().pruneLockTimeout(Duration.ofSeconds(2))
                    .build());
            assertThatIllegalArgumentException().isThrownBy(() -> RingMaintenance.create(twoSeconds,
                            builder().taskTimeout(Duration.ofSeconds(2)).build()))
                    .withMessage("taskTimeout must be greater than the storage's pruneLockTimeout, was PT2S with"
                            + " pruneLockTimeout 2000 ms");
            assertThatIllegalArgumentException().isThrownBy(() -> RingMaintenance.create(QueueStorage.create(storage),
                            builder().taskTimeout(Duration.ofMillis(5)).build()))
                    .withMessage("taskTimeout must be greater than the storage's pruneLockTimeout, was PT0.005S with"
                            + " pruneLockTimeout 10 ms");
            assertThat(RingMaintenance.create(twoSeconds, builder().taskTimeout(Duration.ofMillis(2001)).build())
                    .isLeader()).isFalse();
        }

        @Test
        void shouldUnwrapAPooledStorageFactoryForTheLeaderConnection() {
            ConnectionFactory physical = storage.connectionFactory();
            ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(physical).initialSize(0)
                    .build());
            try {
                QueueStorage pooled = QueueStorage.create(storage.mutate().connectionFactory(pool).build());
                assertThat(RingMaintenance.leaderFactory(pooled.ringOperations(), builder().build()))
                        .isSameAs(physical);
                assertThat(pooled.ringOperations().connectionFactory()).isSameAs(pool);
                assertThat(RingMaintenance.leaderFactory(pooled.ringOperations(),
                        builder().leaderConnectionFactory(physical).build())).isSameAs(physical);
            } finally {
                pool.dispose();
            }
        }
    }
}
