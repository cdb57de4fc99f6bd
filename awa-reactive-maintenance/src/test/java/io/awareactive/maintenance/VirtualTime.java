package io.awareactive.maintenance;

import io.awareactive.core.QueueStorageConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/** A virtual-time scheduler with a matching clock, and engine configurations driven by them (no database). */
final class VirtualTime {

    final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(scheduler.now(TimeUnit.MILLISECONDS));
        }
    };

    /** A storage configuration whose connection factory is never used (creating it does no I/O). */
    static QueueStorageConfig unusedStorage() {
        return QueueStorageConfig.builder()
                .connectionFactory(new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                        .host("localhost").username("unused").build()))
                .schema("virtual_time")
                .queueSlotCount(4)
                .leaseSlotCount(2)
                .claimSlotCount(2)
                .build();
    }

    /**
     * An engine configuration on virtual time: the queue ring ticks every second, every other task hourly unless a
     * test shortens it; outcomes are delivered on the emitting thread.
     */
    RingMaintenanceConfig.Builder config(MeterRegistry registry) {
        return Fixtures.intervals(RingMaintenanceConfig.builder())
                .scheduler(scheduler)
                .clock(clock)
                .outcomeScheduler(Schedulers.immediate())
                .meterRegistry(registry)
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofSeconds(1)))
                .leaderElectionInterval(Duration.ofSeconds(10))
                .leaderCheckInterval(Duration.ofHours(1))
                .taskTimeout(Duration.ofSeconds(60));
    }

    void advance(Duration duration) {
        scheduler.advanceTimeBy(duration);
    }

    void advanceSeconds(long seconds) {
        scheduler.advanceTimeBy(Duration.ofSeconds(seconds));
    }
}
