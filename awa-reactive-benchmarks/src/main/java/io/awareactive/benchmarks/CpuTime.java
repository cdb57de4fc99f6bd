package io.awareactive.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Cumulative CPU time on this machine: the benchmark JVM's own, and all CPUs' busy time. Read at the start and the end
 * of a measured window like {@link DatabaseWork}; the difference divided by the jobs completed is the CPU a job cost
 * the client and, with the server on this machine, the server (everything busy outside the JVM: the system's
 * backends, PostgreSQL's background processes, and whatever else runs on a shared machine).
 *
 * @param jvmNanos the JVM's process CPU time, or -1 where the platform does not report it
 * @param machineBusyNanos the busy time of all CPUs since boot (from {@code /proc/stat}), or -1 where unreadable
 */
record CpuTime(long jvmNanos, long machineBusyNanos) {

    /** {@code /proc/stat} counts in USER_HZ, 100 per second on Linux whatever the kernel's own tick. */
    private static final long NANOS_PER_TICK = 10_000_000L;
    private static final Path PROC_STAT = Path.of("/proc/stat");

    /** The CPU time spent so far. */
    static CpuTime read() {
        return new CpuTime(processCpuNanos(), machineBusyNanos(PROC_STAT));
    }

    /** The JVM's process CPU time so far, or -1 where the platform does not report it. */
    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** The CPU time spent between {@code earlier} and this reading (-1 where either reading is missing). */
    CpuTime minus(CpuTime earlier) {
        return new CpuTime(difference(jvmNanos, earlier.jvmNanos),
                difference(machineBusyNanos, earlier.machineBusyNanos));
    }

    /** The JVM's CPU per completed job in microseconds; NaN when unknown or no job completed. */
    double jvmMicrosPerJob(long jobs) {
        return jvmNanos < 0 ? Double.NaN : DatabaseWork.perJob(jvmNanos, jobs) / 1_000;
    }

    /** The machine's busy CPU outside the JVM per completed job in microseconds; NaN when unknown or no job. */
    double outsideJvmMicrosPerJob(long jobs) {
        return jvmNanos < 0 || machineBusyNanos < 0 ? Double.NaN
                : DatabaseWork.perJob(machineBusyNanos - jvmNanos, jobs) / 1_000;
    }

    private static long difference(long later, long earlier) {
        return later < 0 || earlier < 0 ? -1 : later - earlier;
    }

    /** Busy nanoseconds from the first line of a {@code /proc/stat} file; -1 when it cannot be read. */
    static long machineBusyNanos(Path procStat) {
        try (var lines = Files.lines(procStat)) {
            return lines.findFirst().map(CpuTime::busyNanos).orElse(-1L);
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Busy nanoseconds of the aggregate {@code cpu} line of {@code /proc/stat}: user, nice, system, irq, softirq and
     * steal (guest time is already inside user); idle and iowait are not busy. -1 for any other line.
     */
    static long busyNanos(String cpuLine) {
        List<String> fields = List.of(cpuLine.trim().split("\\s+"));
        if (fields.size() < 9 || !fields.get(0).equals("cpu")) {
            return -1;
        }
        long ticks = 0;
        for (int field : new int[] {1, 2, 3, 6, 7, 8}) {
            ticks += Long.parseLong(fields.get(field));
        }
        return ticks * NANOS_PER_TICK;
    }
}
