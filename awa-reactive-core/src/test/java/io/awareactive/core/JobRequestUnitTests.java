package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.awareactive.core.internal.JsonSyntax;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

final class JobRequestUnitTests {

    @Test
    void shouldApplyDefaults() {
        JobRequest request = JobRequest.builder("emails.send-1", "send").build();

        assertThat(request.queue()).isEqualTo("emails.send-1");
        assertThat(request.kind()).isEqualTo("send");
        assertThat(request.args()).isEqualTo("{}");
        assertThat(request.priority()).isEqualTo(JobRequest.DEFAULT_PRIORITY).isEqualTo(2);
        assertThat(request.maxAttempts()).isEqualTo(JobRequest.DEFAULT_MAX_ATTEMPTS);
        assertThat(request.runAt()).isNull();
        assertThat(request.timeout()).isNull();
    }

    @Test
    void shouldRejectBadQueueNames() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder(null, "k"))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was null");
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("", "k"))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was \"\"");
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("  ", "k"))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was \"  \"");
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("Emails", "k"))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was \"Emails\"");
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("q".repeat(64), "k"));
        assertThat(JobRequest.builder("q".repeat(63), "k").build().queue()).hasSize(63);
    }

    @Test
    void shouldRejectBadKinds() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("q", null))
                .withMessage("kind must be 1 to 255 characters and not blank, was null");
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("q", " "))
                .withMessage("kind must be 1 to 255 characters and not blank, was \" \"");
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("q", "k".repeat(256)));
        assertThat(JobRequest.builder("q", "k".repeat(255)).build().kind()).hasSize(255);
    }

    @Test
    void shouldRejectOutOfRangeOptions() {
        JobRequest.Builder b = JobRequest.builder("q", "k");
        assertThatIllegalArgumentException().isThrownBy(() -> b.priority(0))
                .withMessage("priority must be between 1 and 4, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> b.priority(5))
                .withMessage("priority must be between 1 and 4, was 5");
        assertThatIllegalArgumentException().isThrownBy(() -> b.maxAttempts(0))
                .withMessage("maxAttempts must be at least 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> b.timeout(Duration.ZERO))
                .withMessage("timeout must be at least 1 ms, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> b.timeout(null))
                .withMessage("timeout must be at least 1 ms, was null");
        assertThatIllegalArgumentException().isThrownBy(() -> b.runAt(null))
                .withMessage("runAt must not be null");
        Instant at = Instant.parse("2030-01-01T00:00:00Z");
        assertThat(b.priority(1).maxAttempts(1).timeout(Duration.ofMillis(1)).runAt(at).build())
                .satisfies(r -> {
                    assertThat(r.priority()).isEqualTo(1);
                    assertThat(r.runAt()).isEqualTo(at);
                });
    }

    @Test
    void shouldRejectArgumentsThatAreNotJson() {
        JobRequest.Builder b = JobRequest.builder("q", "k");
        assertThatIllegalArgumentException().isThrownBy(() -> b.args(null)).withMessage("args must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> b.args("{\"a\": }"))
                .withMessage("args must be valid JSON, was not: unexpected character '}' at offset 6");
        assertThatIllegalArgumentException().isThrownBy(() -> b.args(""))
                .withMessage("args must be valid JSON, was not: unexpected end of input at offset 0");
        assertThatIllegalArgumentException().isThrownBy(() -> b.args("{} {}"))
                .withMessage("args must be valid JSON, was not: unexpected text after the value at offset 3");
        assertThatIllegalArgumentException().isThrownBy(() -> b.args("\"\\u0000\""))
                .withMessage("args must be valid JSON, was not: \\u0000 is not accepted by PostgreSQL jsonb at"
                        + " offset 3");
    }

    @Test
    void shouldAcceptEveryKindOfJsonValue() {
        for (String json : new String[] {"{}", "[]", " 1 ", "-0.5e+3", "true", "null", "\"\\u00e9\\n\"",
                "{\"a\": [1, {\"b\": false}], \"c\": \"d\"}"}) {
            assertThat(JsonSyntax.firstError(json)).as(json).isNull();
        }
        for (String json : new String[] {"01", "1.", "[1,]", "{\"a\" 1}", "tru", "'x'", "\"\t\"", "{,}"}) {
            assertThat(JsonSyntax.firstError(json)).as(json).isNotNull();
        }
    }

    @Test
    void shouldValidateWorkerConfig() {
        assertThatIllegalArgumentException().isThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty())
                .concurrency(0)).withMessage("concurrency must be between 1 and 10000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty())
                .concurrency(-3)).withMessage("concurrency must be between 1 and 10000, was -3");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty())
                .batchSize(1001)).withMessage("batchSize must be between 1 and 1000, was 1001");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty())
                .pollInterval(Duration.ZERO)).withMessage("pollInterval must be greater than 0, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty())
                .jobTimeout(Duration.ofMillis(-1))).withMessage("jobTimeout must not be negative, was PT-0.001S");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkerConfig.builder("q", job -> Mono.empty())
                .workerId(" ")).withMessage("workerId must not be blank, was \" \"");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkerConfig.builder("q", null))
                .withMessage("handler must not be null");
        WorkerConfig config = WorkerConfig.builder("q", job -> Mono.empty()).build();
        assertThat(config.concurrency()).isEqualTo(WorkerConfig.DEFAULT_CONCURRENCY);
        assertThat(config.batchSize()).isEqualTo(WorkerConfig.DEFAULT_BATCH_SIZE);
        assertThat(config.pollInterval()).isEqualTo(WorkerConfig.DEFAULT_POLL_INTERVAL);
        assertThat(config.jobTimeout()).isEqualTo(Duration.ZERO);
        assertThat(config.listen()).isTrue();
        assertThat(config.workerId()).startsWith("worker-" + ProcessHandle.current().pid() + "-");
    }
}
