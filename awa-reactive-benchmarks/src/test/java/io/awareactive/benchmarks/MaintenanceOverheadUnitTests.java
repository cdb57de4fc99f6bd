package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.awareactive.benchmarks.MaintenanceOverheadScenario.ActivitySampler;
import io.awareactive.benchmarks.MaintenanceOverheadScenario.Phase;
import io.awareactive.benchmarks.MaintenanceOverheadScenario.Snapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

final class MaintenanceOverheadUnitTests {

    @Test
    void shouldCountAnAutovacuumWorkersCostDelayAndTruncateLockRetriesAsSleeps() {
        assertThat(ActivitySampler.sleeping("Timeout/VacuumDelay")).isTrue();
        assertThat(ActivitySampler.sleeping("Timeout/VacuumTruncate")).isTrue();
    }

    @Test
    void shouldCountEveryOtherStateOfAnAutovacuumWorkerAsWork() {
        assertThat(ActivitySampler.sleeping("no wait event")).isFalse();
        assertThat(ActivitySampler.sleeping("IO/DataFileRead")).isFalse();
        assertThat(ActivitySampler.sleeping("LWLock/WALWrite")).isFalse();
        assertThat(ActivitySampler.sleeping("Lock/relation")).isFalse();
    }

    @Test
    void shouldEstimateWorkingAndSleepingAutovacuumTimeApartFromTheirShareOfSamples() {
        Snapshot from = snapshot(0, 0, 0, 0);
        // 10 s, 500 samples (one every 20 ms): a worker working in 25 and sleeping in 100 of them.
        Snapshot to = snapshot(10_000_000_000L, 25, 100, 500);

        Phase phase = Phase.between(from, to);

        assertThat(phase.perSecond(phase.autovacuumSampledMillis())).isCloseTo(50, within(1e-9));
        assertThat(phase.perSecond(phase.autovacuumSleepMillis())).isCloseTo(200, within(1e-9));
    }

    @Test
    void shouldWarmTheLoadPhaseUpForAtLeastOneLapOfTheLongestRing() {
        // 16 queue slots, the longest ring: 16 s at the default 1 s rotation.
        assertThat(MaintenanceOverheadScenario.loadWarmup(Duration.ofSeconds(5), Duration.ofSeconds(1)))
                .isEqualTo(Duration.ofSeconds(16));
        assertThat(MaintenanceOverheadScenario.loadWarmup(Duration.ofSeconds(5), Duration.ofMillis(250)))
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(MaintenanceOverheadScenario.loadWarmup(Duration.ofSeconds(30), Duration.ofSeconds(1)))
                .isEqualTo(Duration.ofSeconds(30));
    }

    private static Snapshot snapshot(long nanos, long working, long sleeping, long samples) {
        return new Snapshot(nanos, 0, 0, 0, 0, 0, 0, 0, working, sleeping, samples, 0, 0, 0);
    }
}
