package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

final class BlockingCallGuardUnitTests {

    @Test
    void shouldRecordAndRejectASleepOnAParallelThread() {
        BlockingCallGuard.install();
        BlockingCallGuard.clear();

        Mono<Object> sleeper = Mono.fromCallable(() -> {
            Thread.sleep(1);
            return new Object();
        }).subscribeOn(Schedulers.parallel());

        assertThatThrownBy(() -> sleeper.block(Duration.ofSeconds(10)))
                .hasMessageContaining("Blocking call");
        assertThat(BlockingCallGuard.violations()).anySatisfy(v -> assertThat(v).contains("sleep"));
        assertThatThrownBy(BlockingCallGuard::assertNoViolations).isInstanceOf(AssertionError.class);
        BlockingCallGuard.clear();
        BlockingCallGuard.assertNoViolations();
    }
}
