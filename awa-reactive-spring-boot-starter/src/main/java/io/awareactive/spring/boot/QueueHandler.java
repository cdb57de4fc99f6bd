package io.awareactive.spring.boot;

import io.awareactive.core.Job;
import io.awareactive.core.WorkerConfig;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * A job handler for one queue: declare it as a bean and the starter runs a {@link io.awareactive.core.Worker} for it,
 * started and stopped with the application context.
 *
 * <pre>{@code
 * @Bean
 * QueueHandler emails(EmailClient client) {
 *     return QueueHandler.of("emails", job -> client.send(job.args()));
 * }
 * }</pre>
 *
 * <p>The attempt completes when the handler's {@code Mono} completes and fails (retried with backoff until the job's
 * {@code maxAttempts}) when it errors or outlasts its timeout. Handlers run on the worker's Reactor scheduler and must
 * not block. Every worker takes the {@code awa.worker.*} properties; {@link #configure(UnaryOperator)} changes them for
 * this queue. One handler per queue: two beans naming the same queue fail the startup. Immutable and thread-safe.
 */
public final class QueueHandler {

    private final String queue;
    private final Function<Job, ? extends Mono<?>> handler;
    private final UnaryOperator<WorkerConfig.Builder> customizer;

    private QueueHandler(String queue, Function<Job, ? extends Mono<?>> handler,
            UnaryOperator<WorkerConfig.Builder> customizer) {
        this.queue = queue;
        this.handler = handler;
        this.customizer = customizer;
    }

    /**
     * A handler for the jobs of {@code queue}. The queue name is validated by the library when the worker is built
     * (at startup).
     *
     * @param queue the queue the worker claims from
     * @param handler the job handler: non-blocking, one {@code Mono} per attempt
     * @return the handler, with the {@code awa.worker.*} options
     * @throws NullPointerException when an argument is null
     */
    public static QueueHandler of(String queue, Function<Job, ? extends Mono<?>> handler) {
        return new QueueHandler(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(handler, "handler"),
                UnaryOperator.identity());
    }

    /**
     * A copy whose worker options are changed after the {@code awa.worker.*} properties were applied, for example
     * {@code builder -> builder.concurrency(50)}. Options are validated by the library at startup.
     *
     * @param customizer changes the builder and returns it
     * @return a new handler; this one is unchanged
     * @throws NullPointerException when {@code customizer} is null
     */
    public QueueHandler configure(UnaryOperator<WorkerConfig.Builder> customizer) {
        Objects.requireNonNull(customizer, "customizer");
        UnaryOperator<WorkerConfig.Builder> previous = this.customizer;
        return new QueueHandler(queue, handler, builder -> customizer.apply(previous.apply(builder)));
    }

    /**
     * The queue.
     *
     * @return the queue name
     */
    public String queue() {
        return queue;
    }

    /**
     * The handler.
     *
     * @return the job handler
     */
    public Function<Job, ? extends Mono<?>> handler() {
        return handler;
    }

    /**
     * Applies this handler's own worker options.
     *
     * @param builder a builder holding the {@code awa.worker.*} options
     * @return the builder to build
     */
    public WorkerConfig.Builder customize(WorkerConfig.Builder builder) {
        return customizer.apply(builder);
    }

    @Override
    public String toString() {
        return "QueueHandler[" + queue + "]";
    }
}
