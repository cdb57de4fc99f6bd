package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class BenchUnitTests {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Bench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void shouldPrintTheHelpAndSucceed() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("awa-reactive benchmarks")
                .contains("maintenance-overhead (6)").contains("--lock-timeouts LIST");
    }

    @Test
    void shouldExitWithTwoOnABadCommandLineBeforeStartingAnything() {
        assertThat(run("throughput", "--workers", "many")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("error: --workers must be a positive integer, was many" + System.lineSeparator());
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void shouldFailThePlotCommandOnADirectoryWithoutResults() {
        assertThat(run("plot", "--in", "target/no-such-results")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no summary.csv under");
    }
}
