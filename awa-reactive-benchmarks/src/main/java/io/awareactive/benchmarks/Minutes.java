package io.awareactive.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Throughput over windows of a run's time series: per minute (the long-pin table and plot) and over any window (the
 * last minute of a pin). A sample taken at {@code t} covers the interval since the previous sample (since 0 for the
 * first) and belongs to the window holding that interval's middle; a window's jobs/s is the jobs completed in its
 * samples divided by the time they cover.
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
     * Cuts one system's samples into windows of {@code widthSeconds}. A sample belongs to the window holding the
     * middle of the interval it covers, so a sample taken a few milliseconds late (at 60.002 s) still closes the first
     * minute.
     *
     * @param samples one system's samples, in time order
     * @param widthSeconds the window width (60 for minutes)
     * @return one entry per window holding at least one sample, in time order
     */
    static List<Minute> of(List<Sampler.Sample> samples, double widthSeconds) {
        Map<Integer, List<Sampler.Sample>> windows = new TreeMap<>();
        for (int i = 0; i < samples.size(); i++) {
            int index = (int) Math.floor(middle(samples, i) / widthSeconds);
            windows.computeIfAbsent(index, k -> new ArrayList<>()).add(samples.get(i));
        }
        List<Minute> minutes = new ArrayList<>();
        windows.forEach((index, window) -> {
            Set<String> phases = new LinkedHashSet<>();
            window.forEach(sample -> phases.add(sample.phase()));
            Sampler.Sample head = window.get(0);
            double start = index * widthSeconds;
            minutes.add(new Minute(head.system(), head.caseName(), index, start,
                    window.get(window.size() - 1).seconds(), String.join("/", phases),
                    jobsPerSecond(samples, start, start + widthSeconds)));
        });
        return minutes;
    }

    /** The middle of the interval sample {@code i} covers (from the previous sample, or from 0). */
    private static double middle(List<Sampler.Sample> samples, int i) {
        double previous = i == 0 ? 0 : samples.get(i - 1).seconds();
        return (previous + samples.get(i).seconds()) / 2;
    }

    /**
     * Jobs per second over the samples whose covered interval has its middle in {@code [fromSeconds, toSeconds)},
     * each weighted by the interval it covers; NaN when no such sample has a throughput.
     *
     * @param samples one system's samples, in time order
     */
    static double jobsPerSecond(List<Sampler.Sample> samples, double fromSeconds, double toSeconds) {
        double jobs = 0;
        double seconds = 0;
        for (int i = 0; i < samples.size(); i++) {
            Sampler.Sample sample = samples.get(i);
            double covered = sample.seconds() - (i == 0 ? 0 : samples.get(i - 1).seconds());
            double middle = middle(samples, i);
            if (middle >= fromSeconds && middle < toSeconds && !Double.isNaN(sample.jobsPerSecond()) && covered > 0) {
                jobs += sample.jobsPerSecond() * covered;
                seconds += covered;
            }
        }
        return seconds == 0 ? Double.NaN : jobs / seconds;
    }

    /**
     * Jobs per second in the last minute of a phase: the samples of that phase within the 60 s before its last sample
     * (all of the phase when it is shorter); NaN when no sample is in that phase.
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
