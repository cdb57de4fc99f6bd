package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class FileReleaseUnitTests {

    @Test
    void shouldTimeTheTruncateOfAProbeFileBesideTheDataDirectoryAndRemoveIt(@TempDir Path parent) throws Exception {
        Path data = Files.createDirectory(parent.resolve("data"));

        double millis = FileRelease.millis(data.toString(), 3L * 1024 * 1024 + 17);

        assertThat(millis).isFinite().isNotNegative();
        try (Stream<Path> left = Files.list(parent)) {
            assertThat(left).containsExactly(data);
        }
    }

    @Test
    void shouldGiveNaNWhenTheDataDirectoryIsUnknownOrNotOnThisMachine(@TempDir Path parent) {
        assertThat(FileRelease.millis(null, 1024)).isNaN();
        assertThat(FileRelease.millis("", 1024)).isNaN();
        assertThat(FileRelease.millis(parent.resolve("elsewhere").toString(), 1024)).isNaN();
    }
}
