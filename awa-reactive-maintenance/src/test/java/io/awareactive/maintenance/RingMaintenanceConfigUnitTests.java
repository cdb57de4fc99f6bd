package io.awareactive.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.micrometer.core.instrument.Tags;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

final class RingMaintenanceConfigUnitTests {

    private final QueueStorageConfig storage = VirtualTime.unusedStorage();

    private RingMaintenanceConfig.Builder builder() {
        return RingMaintenanceConfig.builder().queueStorage(storage);
    }

    @Test
    void shouldUseTheDocumentedDefaults() {
        RingMaintenanceConfig config = builder().build();

        for (Ring ring : Ring.values()) {
            assertThat(config.rotateInterval(ring)).isEqualTo(Duration.ofSeconds(1))
                    .isEqualTo(RingMaintenanceConfig.DEFAULT_ROTATE_INTERVAL);
        }
        assertThat(config.rollupInterval()).isEqualTo(Duration.ofSeconds(30))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_ROLLUP_INTERVAL);
        assertThat(config.rollupMaxSlots()).isEqualTo(4).isEqualTo(RingMaintenanceConfig.DEFAULT_ROLLUP_MAX_SLOTS);
        assertThat(config.promoteInterval()).isEqualTo(Duration.ofMillis(250))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_PROMOTE_INTERVAL);
        assertThat(config.promoteBatchSize()).isEqualTo(500)
                .isEqualTo(RingMaintenanceConfig.DEFAULT_PROMOTE_BATCH_SIZE);
        assertThat(config.rescueInterval()).isEqualTo(Duration.ofSeconds(10))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_RESCUE_INTERVAL);
        assertThat(config.rescueBatchSize()).isEqualTo(500).isEqualTo(RingMaintenanceConfig.DEFAULT_RESCUE_BATCH_SIZE);
        assertThat(config.dlqPurgeInterval()).isEqualTo(Duration.ofSeconds(60))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_DLQ_PURGE_INTERVAL);
        assertThat(config.dlqPurgeBatchSize()).isEqualTo(500)
                .isEqualTo(RingMaintenanceConfig.DEFAULT_DLQ_PURGE_BATCH_SIZE);
        assertThat(config.leaderElectionInterval()).isEqualTo(Duration.ofSeconds(10))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_LEADER_ELECTION_INTERVAL);
        assertThat(config.leaderCheckInterval()).isEqualTo(Duration.ofSeconds(5))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_LEADER_CHECK_INTERVAL);
        assertThat(config.taskTimeout()).isEqualTo(Duration.ofSeconds(60))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_TASK_TIMEOUT);
        assertThat(config.mvccPinMinAge()).isEqualTo(Duration.ofSeconds(5))
                .isEqualTo(RingMaintenanceConfig.DEFAULT_MVCC_PIN_MIN_AGE);
        assertThat(config.mvccPinMinXids()).isEqualTo(10_000).isEqualTo(RingMaintenanceConfig.DEFAULT_MVCC_PIN_MIN_XIDS);
        assertThat(config.scheduler()).isSameAs(Schedulers.parallel());
        assertThat(config.outcomeScheduler()).isSameAs(Schedulers.boundedElastic());
        assertThat(config.clock()).isEqualTo(Clock.systemUTC());
        assertThat(config.meterRegistry()).isNull();
        assertThat(config.meterTags()).isEqualTo(Tags.empty());
        assertThat(config.blockerDiagnostics()).isFalse();
        assertThat(config.queueStorage()).isSameAs(storage);
        assertThat(config.effectivePruneLockTimeout()).isEqualTo(Duration.ofMillis(10));
        assertThat(config.leaderConnectionFactory()).isSameAs(storage.connectionFactory());
        assertThat(config.toString()).contains("pruneLockTimeout=10ms", "schema=virtual_time");
    }

    @Nested
    final class LockTimeoutOverride {

        private final QueueStorageConfig storageWithTwoSeconds = storage.mutate()
                .pruneLockTimeout(Duration.ofSeconds(2)).build();

        @Test
        void shouldWinWhenSetAfterTheStorage() {
            RingMaintenanceConfig config = RingMaintenanceConfig.builder().queueStorage(storageWithTwoSeconds)
                    .pruneLockTimeout(Duration.ofMillis(25)).build();
            assertThat(config.effectivePruneLockTimeout()).isEqualTo(Duration.ofMillis(25));
            assertThat(config.queueStorage().pruneLockTimeout()).isEqualTo(Duration.ofMillis(25));
        }

        @Test
        void shouldWinWhenSetBeforeTheStorage() {
            RingMaintenanceConfig config = RingMaintenanceConfig.builder().pruneLockTimeout(Duration.ofMillis(25))
                    .queueStorage(storageWithTwoSeconds).build();
            assertThat(config.effectivePruneLockTimeout()).isEqualTo(Duration.ofMillis(25));
        }

        @Test
        void shouldLeaveTheStorageTimeoutWhenUnset() {
            RingMaintenanceConfig config = RingMaintenanceConfig.builder().queueStorage(storageWithTwoSeconds).build();
            assertThat(config.effectivePruneLockTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(config.queueStorage()).isSameAs(storageWithTwoSeconds);
        }

        @Test
        void shouldRoundLikeTheStorageOption() {
            assertThat(builder().pruneLockTimeout(Duration.ofNanos(1)).build().effectivePruneLockTimeout())
                    .isEqualTo(Duration.ofMillis(1));
            assertThat(builder().pruneLockTimeout(Duration.ofMillis(1).plusMillis(0).plusNanos(200_000)).build()
                    .effectivePruneLockTimeout()).isEqualTo(Duration.ofMillis(2));
            assertThat(builder().pruneLockTimeout(Duration.ofMillis(Integer.MAX_VALUE)).taskTimeout(
                    Duration.ofDays(30)).build().effectivePruneLockTimeout())
                    .isEqualTo(Duration.ofMillis(Integer.MAX_VALUE));
        }
    }

    @Nested
    final class SetterRules {

        @Test
        void shouldRejectBadLockTimeouts() {
            assertThatIllegalArgumentException().isThrownBy(() -> builder().pruneLockTimeout(Duration.ZERO))
                    .withMessage("pruneLockTimeout must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().pruneLockTimeout(Duration.ofMillis(-1)))
                    .withMessage("pruneLockTimeout must be greater than 0, was PT-0.001S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder()
                            .pruneLockTimeout(Duration.ofMillis(2_147_483_648L)))
                    .withMessage("pruneLockTimeout must be at most 2147483647 ms (PostgreSQL's lock_timeout maximum),"
                            + " was PT596H31M23.648S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().pruneLockTimeout(null))
                    .withMessage("pruneLockTimeout must not be null");
        }

        @Test
        void shouldRejectNonPositiveIntervals() {
            assertThatIllegalArgumentException().isThrownBy(() -> builder().queueRotateInterval(Duration.ZERO))
                    .withMessage("queueRotateInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().leaseRotateInterval(Duration.ofSeconds(-1)))
                    .withMessage("leaseRotateInterval must be greater than 0, was PT-1S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().claimRotateInterval(Duration.ZERO))
                    .withMessage("claimRotateInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().rollupInterval(Duration.ZERO))
                    .withMessage("rollupInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().promoteInterval(Duration.ZERO))
                    .withMessage("promoteInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().rescueInterval(Duration.ZERO))
                    .withMessage("rescueInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().dlqPurgeInterval(Duration.ofMinutes(-1)))
                    .withMessage("dlqPurgeInterval must be greater than 0, was PT-1M");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().dlqPurgeInterval(null))
                    .withMessage("dlqPurgeInterval must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().leaderElectionInterval(Duration.ZERO))
                    .withMessage("leaderElectionInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().leaderCheckInterval(Duration.ZERO))
                    .withMessage("leaderCheckInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().taskTimeout(Duration.ZERO))
                    .withMessage("taskTimeout must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().mvccPinMinAge(Duration.ZERO))
                    .withMessage("mvccPinMinAge must be greater than 0, was PT0S");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().taskTimeout(null))
                    .withMessage("taskTimeout must not be null");
        }

        @Test
        void shouldRejectOutOfRangeCounts() {
            assertThatIllegalArgumentException().isThrownBy(() -> builder().rollupMaxSlots(0))
                    .withMessage("rollupMaxSlots must be between 1 and 64, was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().rollupMaxSlots(65))
                    .withMessage("rollupMaxSlots must be between 1 and 64, was 65");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().promoteBatchSize(10_001))
                    .withMessage("promoteBatchSize must be between 1 and 10000, was 10001");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().rescueBatchSize(0))
                    .withMessage("rescueBatchSize must be between 1 and 10000, was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().dlqPurgeBatchSize(0))
                    .withMessage("dlqPurgeBatchSize must be between 1 and 10000, was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().dlqPurgeBatchSize(10_001))
                    .withMessage("dlqPurgeBatchSize must be between 1 and 10000, was 10001");
            assertThatIllegalArgumentException().isThrownBy(() -> builder().mvccPinMinXids(0))
                    .withMessage("mvccPinMinXids must be greater than 0, was 0");
        }

        @Test
        void shouldRejectNullsAndAPoolingLeaderFactory() {
            assertThatIllegalArgumentException().isThrownBy(() -> builder().queueStorage(null))
                    .withMessage("queueStorage must not be null");
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
    final class BuildRules {

        @Test
        void shouldRequireTheStorage() {
            assertThatIllegalStateException().isThrownBy(() -> RingMaintenanceConfig.builder().build())
                    .withMessage("queueStorage must be set");
        }

        @Test
        void shouldRequireATaskTimeoutAboveTheEffectiveLockTimeout() {
            assertThatIllegalStateException().isThrownBy(() -> builder().pruneLockTimeout(Duration.ofSeconds(2))
                            .taskTimeout(Duration.ofSeconds(2)).build())
                    .withMessage("taskTimeout must be greater than the effective pruneLockTimeout, was PT2S with"
                            + " pruneLockTimeout 2000 ms");
            assertThatIllegalStateException().isThrownBy(() -> RingMaintenanceConfig.builder()
                            .taskTimeout(Duration.ofMillis(5)).queueStorage(storage).build())
                    .withMessage("taskTimeout must be greater than the effective pruneLockTimeout, was PT0.005S with"
                            + " pruneLockTimeout 10 ms");
        }

        @Test
        void shouldUnwrapAPooledStorageFactoryForTheLeaderConnection() {
            ConnectionFactory physical = storage.connectionFactory();
            ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(physical).initialSize(0)
                    .build());
            try {
                RingMaintenanceConfig config = RingMaintenanceConfig.builder()
                        .queueStorage(storage.mutate().connectionFactory(pool).build()).build();
                assertThat(config.leaderConnectionFactory()).isSameAs(physical);
                assertThat(config.queueStorage().connectionFactory()).isSameAs(pool);
            } finally {
                pool.dispose();
            }
        }
    }
}
