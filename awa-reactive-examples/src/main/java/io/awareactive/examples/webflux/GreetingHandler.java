package io.awareactive.examples.webflux;

import io.awareactive.core.Job;
import io.awareactive.spring.boot.QueueHandler;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * The example's job handler: pretends to send a greeting (a short non-blocking delay; 3 s for jobs of kind
 * {@code slow}). The job completes when the returned {@code Mono} completes and fails (retried with backoff) when it
 * errors. The {@link QueueHandler} bean below makes the starter run a worker for it on {@code example.queue}.
 */
@Configuration(proxyBeanMethods = false)
class GreetingHandler {

    private final AtomicLong handled = new AtomicLong();

    // tag::handler[]
    @Bean
    QueueHandler greetings(@Value("${example.queue}") String queue) {
        return QueueHandler.of(queue, this::handle)          // a worker for the queue, started with the context
                .configure(worker -> worker.concurrency(20)); // optional: this queue's own worker options
    }
    // end::handler[]

    Mono<Void> handle(Job job) {
        return Mono.delay(job.kind().equals("slow") ? Duration.ofSeconds(3) : Duration.ofMillis(5))
                .doOnNext(tick -> handled.incrementAndGet())
                .then();
    }

    long handled() {
        return handled.get();
    }
}
