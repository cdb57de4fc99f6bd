package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class CpuTimeUnitTests {

    @Test
    void shouldCountUserNiceSystemIrqSoftirqAndStealAsBusy() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        long busy = CpuTime.busyNanos("cpu  100 2 30 5000 40 3 4 5 7 0");

        assertThat(busy).isEqualTo((100 + 2 + 30 + 3 + 4 + 5) * 10_000_000L);
    }

    @Test
    void shouldReadOnlyTheAggregateCpuLine() {
        assertThat(CpuTime.busyNanos("cpu0 100 2 30 5000 40 3 4 5 7 0")).isEqualTo(-1);
        assertThat(CpuTime.busyNanos("intr 12345")).isEqualTo(-1);
    }

    @Test
    void shouldReadTheFirstLineOfAProcStatFile(@TempDir Path directory) throws Exception {
        Path stat = Files.writeString(directory.resolve("stat"),
                "cpu  10 0 20 900 0 0 0 0 0 0\ncpu0 10 0 20 900 0 0 0 0 0 0\n");

        assertThat(CpuTime.machineBusyNanos(stat)).isEqualTo(30 * 10_000_000L);
        assertThat(CpuTime.machineBusyNanos(directory.resolve("missing"))).isEqualTo(-1);
    }

    @Test
    void shouldSplitAWindowsCpuPerJobBetweenTheJvmAndTheRestOfTheMachine() {
        CpuTime window = new CpuTime(5_000_000, 12_000_000).minus(new CpuTime(1_000_000, 2_000_000));

        assertThat(window).isEqualTo(new CpuTime(4_000_000, 10_000_000));
        assertThat(window.jvmMicrosPerJob(100)).isEqualTo(40);
        assertThat(window.outsideJvmMicrosPerJob(100)).isEqualTo(60);
    }

    @Test
    void shouldGiveNoFigureWhenAReadingIsMissingOrNoJobCompleted() {
        CpuTime noMachine = new CpuTime(5_000_000, -1).minus(new CpuTime(1_000_000, 2_000_000));

        assertThat(noMachine.machineBusyNanos()).isEqualTo(-1);
        assertThat(noMachine.jvmMicrosPerJob(100)).isEqualTo(40);
        assertThat(noMachine.outsideJvmMicrosPerJob(100)).isNaN();
        assertThat(new CpuTime(-1, 10).jvmMicrosPerJob(100)).isNaN();
        assertThat(new CpuTime(4_000_000, 10_000_000).jvmMicrosPerJob(0)).isNaN();
    }

    @Test
    void shouldReadThisProcessAndThisMachine() {
        CpuTime now = CpuTime.read();

        assertThat(now.jvmNanos()).isPositive();
        if (Files.isReadable(Path.of("/proc/stat"))) {
            assertThat(now.machineBusyNanos()).isPositive();
        } else {
            assertThat(now.machineBusyNanos()).isEqualTo(-1);
        }
    }
}
