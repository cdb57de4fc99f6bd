package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.testkit.BlockingCallGuard;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The module's test runs install the blocking-call guard before any test class runs (through the registered
 * {@code BlockingCallGuardListener}): this class never installs it, yet a sleep on a Reactor thread is caught.
 */
final class BlockingCallGuardRegistrationUnitTests {

    @Test
    void shouldCatchABlockingCallWithoutTheClassInstallingTheGuard() {
        Mono<Object> sleeper = Mono.fromCallable(() -> {
            Thread.sleep(1);
            return new Object();
        }).subscribeOn(Schedulers.parallel());

        try {
            assertThatThrownBy(() -> sleeper.block(Duration.ofSeconds(10)))
                    .satisfies(e -> assertThat(Exceptions.unwrap(e)).isInstanceOf(BlockingOperationError.class));
            assertThat(BlockingCallGuard.violations()).anyMatch(v -> v.contains("sleep"));
        } finally {
            BlockingCallGuard.clear(); // the detection was the point; later classes in this JVM start clean
        }
    }
}
