package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

final class LatencyUnitTests {

    @Test
    void shouldGiveTheMeanAndPercentilesInMillisecondsAndNaNWhenNothingWasRecorded() {
        Latency latency = new Latency();
        assertThat(Latency.meanMillis(latency.total())).isNaN();
        assertThat(Latency.millis(latency.total(), 50)).isNaN();

        for (long millis : new long[] {1, 2, 3, 10}) {
            latency.recordNanos(millis * 1_000_000);
        }
        Histogram recorded = latency.interval();

        assertThat(Latency.meanMillis(recorded)).isCloseTo(4.0, within(0.01));
        assertThat(Latency.millis(recorded, 50)).isCloseTo(2.0, within(0.01));
        assertThat(Latency.maxMillis(recorded)).isCloseTo(10.0, within(0.01));
        assertThat(Latency.meanMillis(latency.total())).isCloseTo(4.0, within(0.01));
    }
}
