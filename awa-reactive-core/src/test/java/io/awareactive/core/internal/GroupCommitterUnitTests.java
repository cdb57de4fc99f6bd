package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.AttemptResult;
import io.awareactive.core.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The group-commit policy, with a flush the test completes by hand and virtual time for the delay. */
final class GroupCommitterUnitTests {

    private static final Duration DELAY = Duration.ofMillis(1);

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    /** Every flush: the ids it was given and the sink that ends it. */
    private final List<Flush> flushes = new CopyOnWriteArrayList<>();
    private final GroupCommitter committer = new GroupCommitter(this::flush, 3, DELAY, time);

    private record Flush(List<Long> ids, Sinks.One<List<AttemptResult>> end) {
        /** Ends the flush: odd ids completed, even ids lost. */
        void succeed() {
            end.tryEmitValue(ids.stream().map(id -> id % 2 == 1 ? AttemptResult.COMPLETED : AttemptResult.LOST)
                    .toList());
        }
    }

    private Mono<List<AttemptResult>> flush(List<Job> jobs) {
        Sinks.One<List<AttemptResult>> end = Sinks.one();
        flushes.add(new Flush(jobs.stream().map(Job::id).toList(), end));
        return end.asMono();
    }

    private static Job job(long id) {
        return new Job(id, "q", "k", "{}", 2, 1, 1, null, null, id, 0, 0, 0, 0, 0, id);
    }

    /** Subscribes to a completion and collects what it signals. */
    private List<Object> complete(long id) {
        List<Object> signals = new CopyOnWriteArrayList<>();
        committer.complete(job(id)).subscribe(signals::add, signals::add);
        return signals;
    }

    @AfterEach
    void disposeTime() {
        time.dispose();
    }

    private List<List<Long>> flushedIds() {
        return flushes.stream().map(Flush::ids).toList();
    }

    @Test
    void shouldFlushAloneACompletionThatFindsNoFlushInFlight() {
        List<Object> first = complete(1);

        assertThat(flushedIds()).containsExactly(List.of(1L));
        flushes.get(0).succeed();
        assertThat(first).containsExactly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldGroupCompletionsWhileAFlushIsInFlightAndFlushThemAfterTheDelay() {
        complete(1);
        List<Object> second = complete(2);
        List<Object> third = complete(3);
        assertThat(flushedIds()).containsExactly(List.of(1L));

        time.advanceTimeBy(DELAY.minusNanos(1));
        assertThat(flushedIds()).hasSize(1);
        time.advanceTimeBy(Duration.ofNanos(1));

        assertThat(flushedIds()).containsExactly(List.of(1L), List.of(2L, 3L));
        flushes.get(1).succeed();
        assertThat(second).containsExactly(AttemptResult.LOST);
        assertThat(third).containsExactly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldFlushAFullGroupAtOnceEvenWhileAnotherIsInFlight() {
        complete(1);
        complete(2);
        complete(3);
        complete(4);

        assertThat(flushedIds()).containsExactly(List.of(1L), List.of(2L, 3L, 4L));
    }

    @Test
    void shouldFlushTheWaitingGroupAsSoonAsTheFlushInFlightEnds() {
        complete(1);
        complete(2);

        flushes.get(0).succeed();

        assertThat(flushedIds()).containsExactly(List.of(1L), List.of(2L));
        time.advanceTimeBy(DELAY.multipliedBy(10));
        assertThat(flushedIds()).hasSize(2);
    }

    @Test
    void shouldFailEveryCompletionOfAFailedGroupAndGoOn() {
        complete(1);
        List<Object> second = complete(2);
        List<Object> third = complete(3);
        time.advanceTimeBy(DELAY);
        IllegalStateException failure = new IllegalStateException("connection lost");

        flushes.get(1).end().tryEmitError(failure);
        List<Object> fourth = complete(5);

        assertThat(second).containsExactly(failure);
        assertThat(third).containsExactly(failure);
        assertThat(flushedIds()).containsExactly(List.of(1L), List.of(2L, 3L));
        time.advanceTimeBy(DELAY);
        assertThat(flushedIds()).containsExactly(List.of(1L), List.of(2L, 3L), List.of(5L));
        flushes.get(2).succeed();
        assertThat(fourth).containsExactly(AttemptResult.COMPLETED);
    }

    @Test
    void shouldNeverFlushACompletionTwiceNorLoseOne() {
        List<List<Object>> all = new ArrayList<>();
        for (long id = 1; id <= 20; id++) {
            all.add(complete(id));
            if (id % 4 == 0) {
                time.advanceTimeBy(DELAY);
            }
            if (id % 7 == 0) {
                flushes.forEach(Flush::succeed);
            }
        }
        time.advanceTimeBy(DELAY);
        flushes.forEach(Flush::succeed);

        assertThat(flushedIds().stream().flatMap(List::stream).toList())
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 20).boxed().toList());
        assertThat(flushedIds()).allSatisfy(group -> assertThat(group).hasSizeLessThanOrEqualTo(3));
        assertThat(all).allSatisfy(signals -> assertThat(signals).hasSize(1));
    }
}
