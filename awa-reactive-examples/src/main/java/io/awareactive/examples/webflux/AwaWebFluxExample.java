package io.awareactive.examples.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot WebFlux service using awa-reactive through its starter: {@code POST /jobs} enqueues, the worker of the
 * {@code QueueHandler} bean processes, ring maintenance runs in the application context, {@code /actuator/prometheus}
 * exports the {@code awa_*} meters, {@code GET /maintenance/outcomes} streams prune outcomes and
 * {@code /actuator/health} reports maintenance leadership and ring health. Configured by application.properties
 * (the starter's {@code awa.*} properties, and {@code example.queue}).
 */
@SpringBootApplication
public class AwaWebFluxExample {

    /**
     * Starts the service.
     *
     * @param args Spring Boot arguments, for example {@code --spring.r2dbc.url=r2dbc:postgresql://...}
     */
    public static void main(String[] args) {
        SpringApplication.run(AwaWebFluxExample.class, args);
    }
}
