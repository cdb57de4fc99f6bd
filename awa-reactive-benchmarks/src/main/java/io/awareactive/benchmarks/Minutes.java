package io.awareactive.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Throughput over windows of a run's time series: per minute (the long-pin table and plot) and over any window (the
 * last minute of a pin). A sample taken at {@code t} covers the interval since the previous sample (since 0 for the
 * first); a window's jobs/s is the jobs completed in the samples ending inside it divided by the time they cover.
 */
final class Minutes {

    /** One minute of width. */
    static final double MINUTE_SECONDS = 60;

    /**
     * Throughput of one system in one window of a run.
     *
     * @param system the contender's name
     * @param caseName the case
     * @param index 0 for the first window
     * @param startSeconds start of the window, in seconds since the measurement started
     * @param endSeconds end of the window (the last sample in it; shorter than a minute only for the last window)
     * @param phase the phase of the samples in the window, {@code a/b} when it spans two
     * @param jobsPerSecond completed jobs per second in the window
     */
    record Minute(String system, String caseName, int index, double startSeconds, double endSeconds, String phase,
            double jobsPerSecond) {
    }

    private Minutes() {
    }

    /**
     * Cuts one system's samples into windows of {@code widthSeconds}: sample {@code t} belongs to window
     * {@code ceil(t / width) - 1}, so a sample at exactly 60 s closes the first minute.
     *
     * @param samples one system's samples, in time order
     * @param widthSeconds the window width (60 for minutes)
     * @return one entry per window holding at least one sample, in time order
     */
    static List<Minute> of(List<Sampler.Sample> samples, double widthSeconds) {
        List<Minute> minutes = new ArrayList<>();
        int index = 0;
        int first = 0;
        while (first < samples.size()) {
            index = Math.max(index, bucket(samples.get(first).seconds(), widthSeconds));
            int last = first;
            while (last + 1 < samples.size() && bucket(samples.get(last + 1).seconds(), widthSeconds) == index) {
                last++;
            }
            List<Sampler.Sample> window = samples.subList(first, last + 1);
            Set<String> phases = new LinkedHashSet<>();
            window.forEach(sample -> phases.add(sample.phase()));
            Sampler.Sample head = window.get(0);
            double start = index * widthSeconds;
            minutes.add(new Minute(head.system(), head.caseName(), index, start,
                    window.get(window.size() - 1).seconds(), String.join("/", phases),
                    jobsPerSecond(samples, start, start + widthSeconds)));
            first = last + 1;
            index++;
        }
        return minutes;
    }

    private static int bucket(double seconds, double widthSeconds) {
        return Math.max(0, (int) Math.ceil(seconds / widthSeconds) - 1);
    }

    /**
     * Jobs per second over the samples that end in {@code (fromSeconds, toSeconds]}, each weighted by the interval it
     * covers; NaN when no sample with a throughput ends there.
     *
     * @param samples one system's samples, in time order
     */
    static double jobsPerSecond(List<Sampler.Sample> samples, double fromSeconds, double toSeconds) {
        double jobs = 0;
        double seconds = 0;
        double previous = 0;
        for (Sampler.Sample sample : samples) {
            double covered = sample.seconds() - previous;
            previous = sample.seconds();
            if (sample.seconds() > fromSeconds && sample.seconds() <= toSeconds && !Double.isNaN(sample.jobsPerSecond())
                    && covered > 0) {
                jobs += sample.jobsPerSecond() * covered;
                seconds += covered;
            }
        }
        return seconds == 0 ? Double.NaN : jobs / seconds;
    }

    /**
     * Jobs per second in the last minute of a phase: the samples of that phase ending in the 60 s before its last
     * sample (all of the phase when it is shorter); NaN when no sample is in that phase.
     *
     * @param samples one system's samples, in time order
     * @param phase the phase, e.g. {@code pinned}
     */
    static double lastMinuteOf(List<Sampler.Sample> samples, String phase) {
        double phaseStart = Double.NaN;
        double phaseEnd = Double.NaN;
        double previous = 0;
        for (Sampler.Sample sample : samples) {
            if (sample.phase().equals(phase)) {
                if (Double.isNaN(phaseStart)) {
                    phaseStart = previous;
                }
                phaseEnd = sample.seconds();
            }
            previous = sample.seconds();
        }
        if (Double.isNaN(phaseEnd)) {
            return Double.NaN;
        }
        return jobsPerSecond(samples, Math.max(phaseStart, phaseEnd - MINUTE_SECONDS), phaseEnd);
    }
}
