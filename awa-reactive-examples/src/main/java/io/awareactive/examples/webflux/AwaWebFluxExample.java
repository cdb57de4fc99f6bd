package io.awareactive.examples.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot WebFlux service using awa-reactive: {@code POST /jobs} enqueues, a worker processes, ring maintenance
 * runs in the application context, {@code /actuator/prometheus} exports the {@code awa_*} meters,
 * {@code GET /maintenance/outcomes} streams prune outcomes and {@code /actuator/health} reports maintenance
 * leadership and ring health. Configured by the {@code awa.*} properties ({@link AwaProperties}).
 */
@SpringBootApplication
public class AwaWebFluxExample {

    /**
     * Starts the service.
     *
     * @param args Spring Boot arguments, for example {@code --awa.r2dbc-url=r2dbc:postgresql://...}
     */
    public static void main(String[] args) {
        SpringApplication.run(AwaWebFluxExample.class, args);
    }
}
