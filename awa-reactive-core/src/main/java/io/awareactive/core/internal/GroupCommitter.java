package io.awareactive.core.internal;

import io.awareactive.core.AttemptResult;
import io.awareactive.core.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * Group commit of one worker's completions. A completion is flushed at once when no flush is in flight; otherwise
 * it waits, and the waiting group is flushed as soon as it holds {@code maxGroup} completions or its oldest has
 * waited {@code maxDelay}, whichever comes first, and at the latest when the flush in flight ends. Each flush is one
 * call of {@code flush} (one statement, one commit); its results go back to each caller, its error to every caller of
 * the group. The lock guards only list and counter updates, never I/O.
 */
public final class GroupCommitter {

    private final Function<List<Job>, Mono<List<AttemptResult>>> flush;
    private final int maxGroup;
    private final Duration maxDelay;
    private final Scheduler timer;
    private final Object lock = new Object();
    private List<Waiting> waiting = new ArrayList<>();
    private int inFlight;
    private @Nullable Disposable delayTimer;

    private record Waiting(Job job, Sinks.One<AttemptResult> result) {
    }

    /**
     * Creates a committer.
     *
     * @param flush ends a group of attempts in one transaction, one result per job in order
     * @param maxGroup the largest group
     * @param maxDelay how long a completion waits for others while a flush is in flight
     * @param timer where the delay runs
     */
    public GroupCommitter(Function<List<Job>, Mono<List<AttemptResult>>> flush, int maxGroup, Duration maxDelay,
            Scheduler timer) {
        this.flush = flush;
        this.maxGroup = maxGroup;
        this.maxDelay = maxDelay;
        this.timer = timer;
    }

    /**
     * Completes an attempt as part of a group.
     *
     * @param job the attempt
     * @return what its group's commit did for it; the group's error when that commit failed
     */
    public Mono<AttemptResult> complete(Job job) {
        return Mono.defer(() -> {
            Sinks.One<AttemptResult> result = Sinks.one();
            List<Waiting> due;
            synchronized (lock) {
                waiting.add(new Waiting(job, result));
                due = inFlight == 0 || waiting.size() >= maxGroup ? take() : null;
                armTimer();
            }
            if (due != null) {
                flush(due);
            }
            return result.asMono();
        });
    }

    /** Under the lock: the next group, counted as in flight. */
    private List<Waiting> take() {
        int size = Math.min(maxGroup, waiting.size());
        List<Waiting> group = new ArrayList<>(waiting.subList(0, size));
        waiting = new ArrayList<>(waiting.subList(size, waiting.size()));
        inFlight++;
        return group;
    }

    /** Under the lock: a timer runs exactly while completions wait. */
    private void armTimer() {
        if (waiting.isEmpty()) {
            if (delayTimer != null) {
                delayTimer.dispose();
                delayTimer = null;
            }
        } else if (delayTimer == null) {
            delayTimer = timer.schedule(this::delayElapsed, maxDelay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void delayElapsed() {
        List<Waiting> due;
        synchronized (lock) {
            delayTimer = null;
            due = waiting.isEmpty() ? null : take();
            armTimer();
        }
        if (due != null) {
            flush(due);
        }
    }

    private void flush(List<Waiting> group) {
        flush.apply(group.stream().map(Waiting::job).toList()).subscribe(
                results -> {
                    for (int i = 0; i < group.size(); i++) {
                        group.get(i).result().tryEmitValue(results.get(i));
                    }
                },
                error -> {
                    group.forEach(w -> w.result().tryEmitError(error));
                    flushEnded();
                },
                this::flushEnded);
    }

    /** The next group starts at once when completions waited for this flush. */
    private void flushEnded() {
        List<Waiting> due;
        synchronized (lock) {
            inFlight--;
            due = inFlight == 0 && !waiting.isEmpty() ? take() : null;
            armTimer();
        }
        if (due != null) {
            flush(due);
        }
    }
}
