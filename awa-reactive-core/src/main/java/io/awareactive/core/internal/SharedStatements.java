package io.awareactive.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Lets concurrent requests of one kind share statements, as a worker's group commit lets its completions share
 * commits. At most {@code maxInFlight} statements run at once; a request that arrives while that many run waits, and
 * when one ends, the requests that waited (oldest first, up to {@code maxWeight} between them, counted by
 * {@code weight}) are sent together: {@code statement} runs them as one statement and answers each, in order. A
 * failed statement's error goes to every request of its group. A request cancelled while it waits leaves the queue;
 * one cancelled while its statement runs has its answer handed to {@code unanswered} (a claim's jobs are released).
 * The lock guards only the queue of waiting requests and the in-flight count, never I/O.
 *
 * @param <Q> a request
 * @param <A> the answer to one request
 */
final class SharedStatements<Q, A> {

    private final Function<List<Q>, Mono<List<A>>> statement;
    private final ToIntFunction<Q> weight;
    private final int maxWeight;
    private final int maxInFlight;
    private final Consumer<A> unanswered;
    private final Object lock = new Object();
    private List<Waiting<Q, A>> waiting = new ArrayList<>();
    private int inFlight;

    /** One request, its caller, and whether it has been answered or cancelled. */
    private record Waiting<Q, A>(Q request, MonoSink<A> caller, AtomicBoolean settled) {

        /** True for the one call that may answer (or cancel) this request. */
        boolean settle() {
            return settled.compareAndSet(false, true);
        }
    }

    /**
     * Creates the sharing of one kind of request.
     *
     * @param statement runs a group of requests as one statement, one answer per request in order
     * @param weight a request's share of a statement's size
     * @param maxWeight the most a statement carries (a single request may carry more)
     * @param maxInFlight the most statements running at once, at least 1
     * @param unanswered takes the answer of a request cancelled while its statement ran
     */
    SharedStatements(Function<List<Q>, Mono<List<A>>> statement, ToIntFunction<Q> weight, int maxWeight,
            int maxInFlight, Consumer<A> unanswered) {
        this.statement = statement;
        this.weight = weight;
        this.maxWeight = maxWeight;
        this.maxInFlight = maxInFlight;
        this.unanswered = unanswered;
    }

    /**
     * Runs a request, alone or as part of a group.
     *
     * @param request the request
     * @return its answer; the group statement's error when that statement failed
     */
    Mono<A> run(Q request) {
        return Mono.create(caller -> {
            Waiting<Q, A> entry = new Waiting<>(request, caller, new AtomicBoolean());
            caller.onCancel(() -> {
                if (entry.settle()) {
                    synchronized (lock) {
                        waiting.remove(entry);
                    }
                }
            });
            List<Waiting<Q, A>> due;
            synchronized (lock) {
                waiting.add(entry);
                due = inFlight < maxInFlight ? take() : null;
            }
            if (due != null) {
                send(due);
            }
        });
    }

    /** Under the lock: the next group (the oldest requests, up to the weight limit), counted as in flight. */
    private List<Waiting<Q, A>> take() {
        int size = 0;
        int total = 0;
        while (size < waiting.size()) {
            int next = weight.applyAsInt(waiting.get(size).request());
            if (size > 0 && total + next > maxWeight) {
                break;
            }
            total += next;
            size++;
        }
        List<Waiting<Q, A>> group = new ArrayList<>(waiting.subList(0, size));
        waiting = new ArrayList<>(waiting.subList(size, waiting.size()));
        inFlight++;
        return group;
    }

    private void send(List<Waiting<Q, A>> group) {
        Mono.defer(() -> statement.apply(group.stream().map(Waiting::request).toList())).subscribe(
                answers -> {
                    for (int i = 0; i < group.size(); i++) {
                        Waiting<Q, A> entry = group.get(i);
                        if (entry.settle()) {
                            entry.caller().success(answers.get(i));
                        } else {
                            unanswered.accept(answers.get(i));
                        }
                    }
                },
                error -> {
                    group.stream().filter(Waiting::settle).forEach(entry -> entry.caller().error(error));
                    statementEnded();
                },
                this::statementEnded);
    }

    /** The next group starts at once when requests waited for this statement. */
    private void statementEnded() {
        List<Waiting<Q, A>> due;
        synchronized (lock) {
            inFlight--;
            due = waiting.isEmpty() ? null : take();
        }
        if (due != null) {
            send(due);
        }
    }
}
