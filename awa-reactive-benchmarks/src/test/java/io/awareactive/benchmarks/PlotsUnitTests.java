package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class PlotsUnitTests {

    @Test
    void shouldDrawTheFourTimeSeriesPlotsFromTheCsv(@TempDir Path out) throws Exception {
        Path directory = out.resolve("pinned-horizon");
        Files.createDirectories(directory);
        List<String> lines = new ArrayList<>();
        lines.add(Report.TIMESERIES_HEADER);
        for (String system : List.of("awa-reactive", "baseline")) {
            for (int t = 1; t <= 9; t++) {
                String phase = t <= 3 ? "before" : t <= 6 ? "pinned" : "after";
                lines.add(system + ",case," + phase + "," + t + "," + (1000 + t) + ",1.2,3.4," + t * 1000 + ",500,"
                        + (t * 1000 + 500) + "," + t * 10 + ",100");
            }
        }
        Files.write(directory.resolve("timeseries.csv"), lines);

        List<Path> plots = Plots.draw(directory);

        assertThat(plots).extracting(path -> path.getFileName().toString())
                .containsExactly("throughput.png", "claim_p99.png", "dead_tuples.png", "bytes.png");
        for (Path plot : plots) {
            BufferedImage image = ImageIO.read(plot.toFile());
            assertThat(image).as(plot.toString()).isNotNull();
            assertThat(image.getWidth()).isEqualTo(960);
            assertThat(image.getHeight()).isEqualTo(540);
        }
    }

    @Test
    void shouldDrawPruneCostAgainstRowsFromTheSummary(@TempDir Path out) throws Exception {
        Path directory = out.resolve("prune-cost");
        Files.createDirectories(directory);
        Files.write(directory.resolve("summary.csv"), List.of(Report.SUMMARY_HEADER,
                "prune-cost,\"1,000 finished jobs\",reclaim time,ms,5,50,0.1",
                "prune-cost,\"10,000 finished jobs\",reclaim time,ms,6,400,0.015",
                "prune-cost,\"1,000 finished jobs\",reclaim WAL,bytes,9000,800000,0.01125",
                "prune-cost,\"10,000 finished jobs\",reclaim WAL,bytes,9100,8000000,0.0011375"));

        List<Path> plots = Plots.draw(directory);

        assertThat(plots).extracting(path -> path.getFileName().toString())
                .containsExactly("reclaim_time.png", "reclaim_wal.png");
        for (Path plot : plots) {
            assertThat(ImageIO.read(plot.toFile())).isNotNull();
        }
    }

    @Test
    void shouldDrawPruneCostOfASingleSizeMeasuredByOneSystem(@TempDir Path out) throws Exception {
        Path directory = out.resolve("prune-cost");
        Files.createDirectories(directory);
        Files.write(directory.resolve("summary.csv"), List.of(Report.SUMMARY_HEADER,
                "prune-cost,\"1,000,000 finished jobs\",reclaim time,ms,,1957,",
                "prune-cost,\"1,000,000 finished jobs\",reclaim WAL,bytes,,477636952,"));

        List<Path> plots = Plots.draw(directory);

        assertThat(plots).hasSize(2);
        for (Path plot : plots) {
            assertThat(ImageIO.read(plot.toFile())).isNotNull();
        }
    }

    @Test
    void shouldDrawPerMinuteThroughputFromItsCsv(@TempDir Path out) throws Exception {
        Path directory = out.resolve("pinned-horizon");
        Files.createDirectories(directory);
        List<String> lines = new ArrayList<>();
        lines.add(Report.PER_MINUTE_HEADER);
        for (String system : List.of("awa-reactive", "baseline-each-ack", "baseline-batched-ack")) {
            for (int minute = 1; minute <= 6; minute++) {
                String phase = minute <= 2 ? "before" : minute <= 4 ? "pinned" : "after";
                lines.add(system + ",pin," + minute + "," + (minute - 1) * 60 + "," + minute * 60 + "," + phase + ","
                        + 1000 * minute);
            }
        }
        Files.write(directory.resolve("per_minute.csv"), lines);

        List<Path> plots = Plots.draw(directory);

        assertThat(plots).extracting(path -> path.getFileName().toString()).containsExactly("per_minute.png");
        assertThat(ImageIO.read(plots.get(0).toFile())).isNotNull();
    }

    @Test
    void shouldDrawThroughputAgainstWorkersFromTheSweepSummary(@TempDir Path out) throws Exception {
        Path directory = out.resolve("throughput");
        Files.createDirectories(directory);
        Files.write(directory.resolve("summary.csv"), List.of(
                Report.summaryHeader(List.of("baseline_each_ack", "baseline_batched_ack")),
                "throughput,\"closed loop, 4 workers\",throughput,jobs/s,1000,900,2000,1.1,0.5",
                "throughput,\"closed loop, 16 workers\",throughput,jobs/s,1500,1000,4000,1.5,0.375",
                "throughput,\"closed loop, 16 workers\",claim p99,ms,3,2,1,1.5,3"));

        List<Path> plots = Plots.draw(directory);

        assertThat(plots).extracting(path -> path.getFileName().toString())
                .containsExactly("throughput_vs_workers.png");
        assertThat(ImageIO.read(plots.get(0).toFile())).isNotNull();
    }

    @Test
    void shouldDrawNoSweepFromAThroughputSummaryWithoutWorkerCounts(@TempDir Path out) throws Exception {
        Path directory = out.resolve("throughput");
        Files.createDirectories(directory);
        Files.write(directory.resolve("summary.csv"), List.of(Report.SUMMARY_HEADER,
                "throughput,closed loop,throughput,jobs/s,1000,2000,0.5"));

        assertThat(Plots.draw(directory)).isEmpty();
    }
}
