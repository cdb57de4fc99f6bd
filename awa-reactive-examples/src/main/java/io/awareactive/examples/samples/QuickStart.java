package io.awareactive.examples.samples;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Worker;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * The README's quick start, as compiled source: {@code DocSamplesUnitTests} fails when the README's copy drifts from
 * the text between the tag comments, and {@code SamplesIntegrationTests} runs it.
 */
public final class QuickStart {

    private QuickStart() {
    }

    /**
     * What the quick start starts, so that its caller can stop it.
     *
     * @param storage the storage
     * @param worker the running worker
     * @param maintenance the running maintenance engine
     */
    public record Started(QueueStorage storage, Worker worker, RingMaintenance maintenance) {
    }

    /**
     * Runs the quick start.
     *
     * @param connectionFactory an R2DBC connection factory, ideally an r2dbc-pool
     * @param meterRegistry where the awa meters go
     * @return what was started
     */
    public static Started run(ConnectionFactory connectionFactory, MeterRegistry meterRegistry) {
        // tag::quickstart[]
        QueueStorage storage = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(connectionFactory)           // R2DBC, ideally an r2dbc-pool
                .pruneLockTimeout(Duration.ofMillis(10))        // the default
                .build());
        storage.install().block();                              // once: schema awa_reactive

        storage.enqueue(JobRequest.builder("emails", "welcome").args("{\"to\":\"ada@example.com\"}").build())
                .subscribe(id -> System.out.println("enqueued job " + id));

        Worker worker = storage.worker("emails", job -> sendEmail(job.args())); // completes, or retries on error
        worker.start().block();

        RingMaintenance maintenance = RingMaintenance.create(storage, RingMaintenanceConfig.builder()
                .meterRegistry(meterRegistry)
                .build());
        maintenance.outcomes().subscribe(event -> System.out.println(event.ring() + " " + event.outcome()));
        maintenance.start().block();
        // end::quickstart[]
        return new Started(storage, worker, maintenance);
    }

    /**
     * Stands in for real work.
     *
     * @param args the job's JSON arguments
     * @return completion
     */
    static Mono<Void> sendEmail(String args) {
        return Mono.delay(Duration.ofMillis(1)).then();
    }
}
