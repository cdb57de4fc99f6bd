package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.RingOperations;
import io.awareactive.maintenance.TaskOptions;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * What a task's body may do (a body is a function of these steps and the task's options, declared with the task in
 * {@code MaintenanceTask}). The engine hands each run a fresh instance bound to the running task, so a failure is
 * logged and counted under that task's {@code awa.maintenance.task} value without the body naming it. Every returned
 * publisher is lazy, bounded by {@code taskTimeout} and never ends with an error.
 */
public interface TaskSteps {

    /**
     * One ring's tick: rotate, then the already-pruned check, the backoff gate, the prune and the ring gauges. A
     * failed rotation is logged and counted; prune outcomes are published and counted.
     *
     * @param ring the ring
     * @return completion
     */
    Mono<Void> ringTick(Ring ring);

    /**
     * The terminal-count rollup, then fold and ledger trim unless a rollup outcome found the MVCC horizon pinned.
     *
     * @param options the rollup's options
     * @return completion
     */
    Mono<Void> rollup(TaskOptions.Rollup options);

    /**
     * One call of ring work; a failure or a timeout is logged (rate-limited) and counted in
     * {@code awa.maintenance.task.failures} under the running task.
     *
     * @param work the ring work, for example {@code ops -> ops.promote(500)}
     * @return completion
     */
    Mono<Void> step(Function<RingOperations, Mono<?>> work);
}
