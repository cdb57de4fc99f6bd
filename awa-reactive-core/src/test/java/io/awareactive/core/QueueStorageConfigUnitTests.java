package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;

final class QueueStorageConfigUnitTests {

    /** A factory that is never asked for a connection: configuration does no I/O. */
    static final ConnectionFactory UNUSED = new ConnectionFactory() {
        @Override
        public Publisher<? extends io.r2dbc.spi.Connection> create() {
            throw new AssertionError("configuration must not connect");
        }

        @Override
        public ConnectionFactoryMetadata getMetadata() {
            return () -> "unused";
        }
    };

    @Test
    void shouldUseDocumentedDefaults() {
        QueueStorageConfig config = QueueStorageConfig.builder().connectionFactory(UNUSED).build();
        assertThat(config.schema()).isEqualTo("awa_reactive");
        assertThat(config.slotCount(Ring.QUEUE)).isEqualTo(16);
        assertThat(config.slotCount(Ring.LEASE)).isEqualTo(8);
        assertThat(config.slotCount(Ring.CLAIM)).isEqualTo(8);
        assertThat(config.effectivePruneLockTimeout()).isEqualTo(Duration.ofMillis(10));
        assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.leaseStaleAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxArgsBytes()).isEqualTo(1024 * 1024);
        assertThat(config.deadLetterRetention()).isEqualTo(Duration.ofHours(72));
        assertThat(config.maxStatementsInFlight()).isEqualTo(1);
        assertThat(config.mutate().maxStatementsInFlight(5).build().mutate().build().maxStatementsInFlight())
                .isEqualTo(5);
    }

    @Test
    void shouldRequireConnectionFactoryAtBuild() {
        assertThatIllegalStateException().isThrownBy(() -> QueueStorageConfig.builder().build())
                .withMessage("connectionFactory must be set");
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().connectionFactory(null))
                .withMessage("connectionFactory must not be null");
    }

    @Nested
    final class SchemaNames {

        @ParameterizedTest
        @ValueSource(strings = {"A;drop", "", "Upper", "pg_x", "information_schema", "1abc", "a-b", "a b", "\"q\"",
                "sch\u00e9ma"})
        void shouldRejectBeforeAnySql(String name) {
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().schema(name))
                    .withMessage("schema must be a plain lower-case identifier matching [a-z_][a-z0-9_]* of 1 to 63"
                            + " bytes, not pg_* or information_schema, was \"" + name + "\"");
        }

        @Test
        void shouldRejectMoreThan63Bytes() {
            String name = "a".repeat(64);
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().schema(name))
                    .withMessageEndingWith("was \"" + name + "\"");
            assertThat(QueueStorageConfig.builder().schema("a".repeat(63)).connectionFactory(UNUSED).build()
                    .schema()).hasSize(63);
        }

        @Test
        void shouldRejectNull() {
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().schema(null))
                    .withMessage("schema must not be null");
        }

        @ParameterizedTest
        @ValueSource(strings = {"awa_reactive", "_x", "queue_2", "a"})
        void shouldAcceptPlainIdentifiers(String name) {
            assertThat(QueueStorageConfig.builder().schema(name).connectionFactory(UNUSED).build().schema())
                    .isEqualTo(name);
        }
    }

    @Nested
    final class SlotCounts {

        @Test
        void shouldRejectOutOfRange() {
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().queueSlotCount(3))
                    .withMessage("queueSlotCount must be between 4 and 64, was 3");
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().queueSlotCount(65))
                    .withMessage("queueSlotCount must be between 4 and 64, was 65");
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().leaseSlotCount(1))
                    .withMessage("leaseSlotCount must be between 2 and 64, was 1");
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().claimSlotCount(65))
                    .withMessage("claimSlotCount must be between 2 and 64, was 65");
        }

        @Test
        void shouldAcceptBounds() {
            QueueStorageConfig config = QueueStorageConfig.builder().connectionFactory(UNUSED)
                    .queueSlotCount(4).leaseSlotCount(64).claimSlotCount(2).build();
            assertThat(config.slotCount(Ring.QUEUE)).isEqualTo(4);
            assertThat(config.slotCount(Ring.LEASE)).isEqualTo(64);
            assertThat(config.slotCount(Ring.CLAIM)).isEqualTo(2);
        }
    }

    @Nested
    final class PruneLockTimeout {

        private Duration effective(Duration requested) {
            return QueueStorageConfig.builder().connectionFactory(UNUSED).pruneLockTimeout(requested).build()
                    .effectivePruneLockTimeout();
        }

        @Test
        void shouldRejectNullZeroAndNegative() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().pruneLockTimeout(null))
                    .withMessage("pruneLockTimeout must not be null");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().pruneLockTimeout(Duration.ZERO))
                    .withMessage("pruneLockTimeout must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().pruneLockTimeout(Duration.ofMillis(-1)))
                    .withMessage("pruneLockTimeout must be greater than 0, was PT-0.001S");
        }

        @Test
        void shouldRoundUpToWholeMillisecondsAndAtLeastOne() {
            assertThat(effective(Duration.ofNanos(1))).isEqualTo(Duration.ofMillis(1));
            assertThat(effective(Duration.ofNanos(500_000))).isEqualTo(Duration.ofMillis(1));
            assertThat(effective(Duration.ofMillis(1))).isEqualTo(Duration.ofMillis(1));
            assertThat(effective(Duration.ofNanos(1_200_000))).isEqualTo(Duration.ofMillis(2));
            assertThat(effective(Duration.ofMillis(2_147_483_647L))).isEqualTo(Duration.ofMillis(2_147_483_647L));
        }

        @Test
        void shouldRejectAbovePostgresMaximumExactly() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder()
                            .pruneLockTimeout(Duration.ofMillis(2_147_483_647L).plusNanos(1)))
                    .withMessage("pruneLockTimeout must be at most 2147483647 ms (PostgreSQL's lock_timeout maximum),"
                            + " was PT596H31M23.647000001S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().pruneLockTimeout(Duration.ofMillis(2_147_483_648L)))
                    .withMessage("pruneLockTimeout must be at most 2147483647 ms (PostgreSQL's lock_timeout maximum),"
                            + " was PT596H31M23.648S");
        }

        @Test
        void shouldKeepRequestedValueReadable() {
            QueueStorageConfig config = QueueStorageConfig.builder().connectionFactory(UNUSED)
                    .pruneLockTimeout(Duration.ofNanos(1_200_000)).build();
            assertThat(config.pruneLockTimeout()).isEqualTo(Duration.ofNanos(1_200_000));
            assertThat(config.effectivePruneLockTimeout()).isEqualTo(Duration.ofMillis(2));
        }
    }

    @Nested
    final class LifecycleOptions {

        @Test
        void shouldRejectSingleValues() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().heartbeatInterval(Duration.ZERO))
                    .withMessage("heartbeatInterval must be greater than 0, was PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().retryBackoffFactor(0.5))
                    .withMessage("retryBackoffFactor must be at least 1, was 0.5");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().retryBackoffJitter(1.0))
                    .withMessage("retryBackoffJitter must be at least 0 and below 1, was 1.0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().maxArgsBytes(0))
                    .withMessage("maxArgsBytes must be greater than 0, was 0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().deadLetterRetention(Duration.ofHours(-1)))
                    .withMessage("deadLetterRetention must not be negative, was PT-1H");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueueStorageConfig.builder().maxStatementsInFlight(0))
                    .withMessage("maxStatementsInFlight must be at least 1, was 0");
        }

        @Test
        void shouldRejectCrossOptionRulesAtBuild() {
            assertThatIllegalStateException()
                    .isThrownBy(() -> QueueStorageConfig.builder().connectionFactory(UNUSED)
                            .heartbeatInterval(Duration.ofSeconds(20)).build())
                    .withMessage("leaseStaleAfter must be at least 3 x heartbeatInterval, was PT30S with"
                            + " heartbeatInterval PT20S");
            assertThatIllegalStateException()
                    .isThrownBy(() -> QueueStorageConfig.builder().connectionFactory(UNUSED)
                            .retryBackoffBase(Duration.ofMinutes(5)).retryBackoffMax(Duration.ofMinutes(1)).build())
                    .withMessage("retryBackoffMax must be at least retryBackoffBase, was PT1M with retryBackoffBase"
                            + " PT5M");
        }
    }
}
