package io.awareactive.benchmarks;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A latency recorder in microseconds (3 significant digits, up to 10 minutes): any thread records, one sampler thread
 * takes interval histograms and accumulates the total.
 */
final class Latency {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final Recorder recorder = new Recorder(HIGHEST_MICROS, 3);
    private final Histogram total = new Histogram(HIGHEST_MICROS, 3);

    void recordNanos(long nanos) {
        recorder.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000)));
    }

    /** The values recorded since the last call (also added to the total). Call from one thread only. */
    synchronized Histogram interval() {
        Histogram interval = recorder.getIntervalHistogram();
        total.add(interval);
        return interval;
    }

    /** Every value handed out by {@link #interval()} so far. */
    synchronized Histogram total() {
        return total.copy();
    }

    /** Forgets everything recorded so far (after a warm-up). */
    synchronized void reset() {
        recorder.reset();
        total.reset();
    }

    /** A percentile in milliseconds, NaN for an empty histogram. */
    static double millis(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1_000.0;
    }

    /** The mean in milliseconds, NaN for an empty histogram. */
    static double meanMillis(Histogram histogram) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getMean() / 1_000.0;
    }

    /** The maximum in milliseconds, NaN for an empty histogram. */
    static double maxMillis(Histogram histogram) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getMaxValue() / 1_000.0;
    }
}
