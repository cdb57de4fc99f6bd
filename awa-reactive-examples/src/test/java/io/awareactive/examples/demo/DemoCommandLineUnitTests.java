package io.awareactive.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class DemoCommandLineUnitTests {

    private static DemoOptions parse(String... args) {
        return DemoOptions.parse(args, name -> null);
    }

    @Test
    void shouldUseDefaultsWithoutFlags() {
        DemoOptions options = parse();

        assertThat(options.help()).isFalse();
        assertThat(options.duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.r2dbcUrl()).isNull();
        assertThat(options.schema()).isEqualTo("awa_reactive_demo");
        assertThat(options.metricsPort()).isEqualTo(9464);
        assertThat(options.pruneLockTimeout()).isEqualTo(Duration.ofMillis(10));
        assertThat(options.contentionAt()).isEqualTo(Duration.ofSeconds(12));
        assertThat(options.contentionHold()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void shouldParseEveryFlagInBothForms() {
        DemoOptions options = parse("--duration", "20s", "--url=r2dbc:postgresql://app@db:5432/app",
                "--schema", "demo_1", "--metrics-port=0", "--prune-lock-timeout", "50ms", "--rotate-interval",
                "PT0.25S", "--producers", "3", "--rate", "500", "--workers", "4", "--contention-at", "5s",
                "--contention-hold", "2.5s");

        assertThat(options).isEqualTo(new DemoOptions(false, Duration.ofSeconds(20),
                "r2dbc:postgresql://app@db:5432/app", "demo_1", 0, Duration.ofMillis(50), Duration.ofMillis(250), 3,
                500, 4, Duration.ofSeconds(5), Duration.ofMillis(2500)));
    }

    @Test
    void shouldTakeTheUrlFromTheEnvironmentUnlessAFlagGivesOne() {
        Map<String, String> env = Map.of(DemoOptions.URL_ENV, "r2dbc:postgresql://env@host/db");

        assertThat(DemoOptions.parse(new String[0], env::get).r2dbcUrl()).isEqualTo("r2dbc:postgresql://env@host/db");
        assertThat(DemoOptions.parse(new String[] {"--url", "r2dbc:postgresql://flag@host/db"}, env::get).r2dbcUrl())
                .isEqualTo("r2dbc:postgresql://flag@host/db");
    }

    @Test
    void shouldPlaceContentionAtTwoFifthsOfAShorterDuration() {
        assertThat(parse("--duration", "10s", "--contention-hold", "2s").contentionAt())
                .isEqualTo(Duration.ofSeconds(4));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--frobnicate                    | unknown flag --frobnicate (see --help)",
        "--duration                      | --duration needs a value: a duration like 30s",
        "--duration=soon                 | --duration must be a duration like 30s or 500ms, was soon",
        "--duration=0                    | --duration must be greater than 0, was 0",
        "--prune-lock-timeout=0ms        | --prune-lock-timeout must be greater than 0, was 0ms",
        "--metrics-port=70000            | --metrics-port must be between 0 and 65535, was 70000",
        "--workers=two                   | --workers must be a whole number, was two",
        "--rate=0                        | --rate must be between 1 and 100000, was 0",
        "--schema=Bad-Name               | --schema must match [a-z_][a-z0-9_]* (1-63 characters, not pg_*), was Bad-Name",
        "--url=postgres://localhost/db   | --url must be an R2DBC PostgreSQL URL like r2dbc:postgresql://user@localhost:5432/db, was postgres://localhost/db",
        "--contention-at=28s             | --contention-at plus --contention-hold must end before --duration, was 28s + 5s >= 30s"
    })
    void shouldRejectABadFlagOrValueWithOneLine(String arg, String message) {
        assertThatThrownBy(() -> parse(arg))
                .isInstanceOf(DemoOptions.UsageException.class)
                .hasMessage(message);
    }

    @Test
    void shouldExitWithTwoAndOneLineOnABadFlag() {
        Run run = Run.of("--duration", "-5s");

        assertThat(run.exitCode).isEqualTo(2);
        assertThat(run.out).isEmpty();
        assertThat(run.err).isEqualTo("demo: --duration must be a duration like 30s or 500ms, was -5s\n");
    }

    @Test
    void shouldListEveryFlagOnHelp() {
        Run run = Run.of("--help");

        assertThat(run.exitCode).isZero();
        assertThat(run.err).isEmpty();
        assertThat(run.out).contains("--duration", "--url", DemoOptions.URL_ENV, "--schema", "--metrics-port",
                "--prune-lock-timeout", "--rotate-interval", "--producers", "--rate", "--workers", "--contention-at",
                "--contention-hold", "--help");
    }

    @Test
    void shouldExitWithOneAndOneLineWhenTheDatabaseIsUnreachable() {
        // Port 1 on the loopback interface: nothing listens there, the connection is refused at once.
        Run run = Run.of("--url", "r2dbc:postgresql://postgres@127.0.0.1:1/postgres", "--metrics-port", "0");

        assertThat(run.exitCode).isEqualTo(1);
        assertThat(run.err).startsWith("demo: cannot reach PostgreSQL 127.0.0.1:1/postgres: ")
                .endsWith("\n")
                .doesNotContain("\tat ");
        assertThat(run.err.lines()).hasSize(1);
    }

    private record Run(int exitCode, String out, String err) {
        static Run of(String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = DemoMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), name -> null);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }
}
