package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

final class BlockingCallGuardExtensionUnitTests {

    private static final String REPORT = "blocking calls on non-blocking threads during";

    /** Sleeps on a parallel thread and swallows BlockHound's error, as a careless handler would. */
    static void blockQuietly() {
        Mono.fromCallable(() -> {
            Thread.sleep(1);
            return 1;
        }).subscribeOn(Schedulers.parallel()).onErrorResume(error -> Mono.just(0)).block(Duration.ofSeconds(10));
    }

    @Test
    void shouldFailTheTestThatBlockedAndLetTheNextOneStartClean() {
        BlockingCallGuard.install();
        BlockingCallGuard.clear();

        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(Sample.class)).execute()
                .testEvents();

        tests.assertStatistics(stats -> stats.started(2).succeeded(1).failed(1));
        tests.assertThatEvents().haveExactly(1, event(test("blocksButPasses"), finishedWithFailure(
                instanceOf(AssertionError.class),
                message(m -> m.contains(REPORT + " blocksButPasses()") && m.contains("sleep")))));
        assertThat(BlockingCallGuard.violations()).isEmpty();
    }

    @Test
    void shouldFailTheClassWhenItsAfterAllBlocked() {
        BlockingCallGuard.install();
        BlockingCallGuard.clear();

        Events containers = EngineTestKit.engine("junit-jupiter").selectors(selectClass(AfterAllSample.class))
                .execute().containerEvents();

        containers.assertThatEvents().haveExactly(1, event(finishedWithFailure(instanceOf(AssertionError.class),
                message(m -> m.contains(REPORT) && m.contains("AfterAllSample")))));
        assertThat(BlockingCallGuard.violations()).isEmpty();
    }

    /** The first test blocks a non-blocking thread but asserts nothing; the second is clean. */
    @ExtendWith(BlockingCallGuardExtension.class)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static final class Sample {

        @Test
        @Order(1)
        void blocksButPasses() {
            blockQuietly();
        }

        @Test
        @Order(2)
        void clean() {
        }
    }

    /** Blocks in its {@code @AfterAll}. */
    @ExtendWith(BlockingCallGuardExtension.class)
    static final class AfterAllSample {

        @AfterAll
        static void blocksOnTheWayOut() {
            blockQuietly();
        }

        @Test
        void clean() {
        }
    }
}
