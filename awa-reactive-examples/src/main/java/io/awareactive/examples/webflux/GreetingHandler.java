package io.awareactive.examples.webflux;

import io.awareactive.core.Job;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The example's job handler: pretends to send a greeting (a short non-blocking delay; 3 s for jobs of kind
 * {@code slow}). The job completes when the returned {@code Mono} completes and fails (retried with backoff) when it
 * errors.
 */
@Component
class GreetingHandler {

    private final AtomicLong handled = new AtomicLong();

    Mono<Void> handle(Job job) {
        return Mono.delay(job.kind().equals("slow") ? Duration.ofSeconds(3) : Duration.ofMillis(5))
                .doOnNext(tick -> handled.incrementAndGet())
                .then();
    }

    long handled() {
        return handled.get();
    }
}
