package io.awareactive.examples.samples;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.spring.boot.QueueHandler;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The getting-started Spring Boot sample: a WebFlux service that adds the starter and two properties
 * ({@code spring-boot-service.properties}) and gets queue storage, maintenance, a worker, metrics and health.
 */
// tag::spring-boot-service[]
@SpringBootApplication
public class SpringBootService {

    public static void main(String[] args) {
        SpringApplication.run(SpringBootService.class, args);
    }

    @Bean
    QueueHandler emails() {                          // a worker for the queue "emails", started with the application
        return QueueHandler.of("emails", job -> sendEmail(job.args()));
    }

    @Bean
    RouterFunction<ServerResponse> signUp(QueueStorage storage) {      // the auto-configured queue storage
        return RouterFunctions.route(RequestPredicates.POST("/sign-up"), request -> request.bodyToMono(String.class)
                .flatMap(json -> storage.enqueue(JobRequest.builder("emails", "welcome").args(json).build()))
                .flatMap(id -> ServerResponse.accepted().bodyValue(Map.of("job", id))));
    }

    private static Mono<Void> sendEmail(String args) {
        return Mono.delay(Duration.ofMillis(5)).then();                // your non-blocking mail client
    }
}
// end::spring-boot-service[]
