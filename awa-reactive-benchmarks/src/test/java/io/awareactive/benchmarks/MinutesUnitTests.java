package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class MinutesUnitTests {

    private static Sampler.Sample sample(double seconds, String phase, double jobsPerSecond) {
        return new Sampler.Sample("awa-reactive", "case", phase, seconds, jobsPerSecond, 1, 2, 0, 0, 0, 0);
    }

    /** One sample every {@code step} seconds up to {@code end}, throughput 100 before 60 s and 40 after. */
    private static List<Sampler.Sample> series(double step, double end) {
        List<Sampler.Sample> samples = new ArrayList<>();
        for (double t = step; t <= end + 1e-9; t += step) {
            samples.add(sample(t, t <= 60 ? "before" : "pinned", t <= 60 ? 100 : 40));
        }
        return samples;
    }

    @Test
    void shouldCutSamplesIntoMinutesWithASampleAtSixtySecondsInTheFirst() {
        List<Minutes.Minute> minutes = Minutes.of(series(10, 150), Minutes.MINUTE_SECONDS);

        assertThat(minutes).extracting(Minutes.Minute::index).containsExactly(0, 1, 2);
        assertThat(minutes.get(0).jobsPerSecond()).isEqualTo(100);
        assertThat(minutes.get(0).phase()).isEqualTo("before");
        assertThat(minutes.get(0).startSeconds()).isZero();
        assertThat(minutes.get(0).endSeconds()).isEqualTo(60);
        assertThat(minutes.get(1).jobsPerSecond()).isEqualTo(40);
        assertThat(minutes.get(1).phase()).isEqualTo("pinned");
        assertThat(minutes.get(2).startSeconds()).isEqualTo(120);
        assertThat(minutes.get(2).endSeconds()).isEqualTo(150);
        assertThat(minutes).allSatisfy(m -> assertThat(m.system()).isEqualTo("awa-reactive"));
    }

    @Test
    void shouldNameBothPhasesOfAMinuteThatSpansTwo() {
        List<Sampler.Sample> samples = List.of(sample(30, "before", 10), sample(60, "pinned", 30));

        assertThat(Minutes.of(samples, 60)).singleElement()
                .satisfies(m -> assertThat(m.phase()).isEqualTo("before/pinned"))
                .satisfies(m -> assertThat(m.jobsPerSecond()).isEqualTo(20));
    }

    @Test
    void shouldPutASampleTakenAFewMillisecondsLateInTheMinuteItCloses() {
        List<Sampler.Sample> samples = List.of(sample(59.0007, "after", 10), sample(60.0003, "after", 20),
                sample(61.0002, "after", 30));

        List<Minutes.Minute> minutes = Minutes.of(samples, 60);

        assertThat(minutes).extracting(Minutes.Minute::index).containsExactly(0, 1);
        assertThat(minutes.get(0).endSeconds()).isEqualTo(60.0003);
        assertThat(minutes.get(1).jobsPerSecond()).isEqualTo(30);
    }

    @Test
    void shouldSkipEmptyMinutesAndKeepTheirIndex() {
        // The second sample covers 30-200 s (middle 115 s, the second minute); the third 200-210 s (the fourth).
        List<Sampler.Sample> samples = List.of(sample(30, "run", 10), sample(200, "run", 50),
                sample(210, "run", 50));

        assertThat(Minutes.of(samples, 60)).extracting(Minutes.Minute::index).containsExactly(0, 1, 3);
    }

    @Test
    void shouldWeightEachSampleByTheIntervalItCovers() {
        // 10 jobs/s for the first 10 s, then 40 jobs/s for 30 s: 1300 jobs in 40 s.
        List<Sampler.Sample> samples = List.of(sample(10, "run", 10), sample(40, "run", 40));

        assertThat(Minutes.jobsPerSecond(samples, 0, 40)).isEqualTo(1300.0 / 40);
        assertThat(Minutes.jobsPerSecond(samples, 10, 40)).isEqualTo(40);
        assertThat(Minutes.jobsPerSecond(samples, 40, 100)).isNaN();
    }

    @Test
    void shouldLeaveOutSamplesWithoutAThroughput() {
        List<Sampler.Sample> samples = List.of(sample(10, "run", Double.NaN), sample(20, "run", 30));

        assertThat(Minutes.jobsPerSecond(samples, 0, 20)).isEqualTo(30);
    }

    @Test
    void shouldTakeTheLastSixtySecondsOfAPhase() {
        List<Sampler.Sample> samples = new ArrayList<>();
        for (int t = 10; t <= 300; t += 10) {
            String phase = t <= 60 ? "before" : t <= 240 ? "pinned" : "after";
            // Throughput falls while pinned: the last pinned minute (180-240 s] runs at 5 jobs/s.
            double jobsPerSecond = phase.equals("before") ? 100 : phase.equals("after") ? 90 : t > 180 ? 5 : 50;
            samples.add(sample(t, phase, jobsPerSecond));
        }

        assertThat(Minutes.lastMinuteOf(samples, "pinned")).isEqualTo(5);
        assertThat(Minutes.lastMinuteOf(samples, "before")).isEqualTo(100);
        assertThat(Minutes.lastMinuteOf(samples, "missing")).isNaN();
    }

    @Test
    void shouldTakeAllOfAPhaseShorterThanAMinute() {
        List<Sampler.Sample> samples = List.of(sample(10, "before", 100), sample(20, "pinned", 30),
                sample(30, "pinned", 10), sample(40, "after", 100));

        assertThat(Minutes.lastMinuteOf(samples, "pinned")).isEqualTo(20);
    }
}
