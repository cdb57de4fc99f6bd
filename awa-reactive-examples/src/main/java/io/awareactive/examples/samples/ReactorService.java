package io.awareactive.examples.samples;

import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Worker;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.Result;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The snippets of docs/getting-started.md for a plain Reactor service, as compiled source ({@code DocSamplesUnitTests}
 * keeps the page in step with the text between the tag comments).
 */
public final class ReactorService {

    private ReactorService() {
    }

    /**
     * Creates the pool and the storage, and installs the schema.
     *
     * @param r2dbcUrl the database
     * @return the storage
     */
    public static QueueStorage storage(String r2dbcUrl) {
        // tag::storage[]
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration
                .builder(ConnectionFactories.get(r2dbcUrl))   // r2dbc:postgresql://user:secret@host:5432/app
                .maxSize(20)
                .customizer(idle -> idle.idleResourceReuseMruOrder())  // warm connections first: see operations.md
                .build());
        QueueStorage storage = QueueStorage.create(QueueStorageConfig.builder()
                .connectionFactory(pool)
                .schema("awa_reactive")                         // the default; one installation per schema
                .pruneLockTimeout(Duration.ofMillis(10))        // the default
                .build());
        storage.install().block();  // idempotent: creates, upgrades or checks the schema (slot counts must match)
        // end::storage[]
        return storage;
    }

    /**
     * Enqueues a job.
     *
     * @param storage the storage
     * @return the job id
     */
    public static Mono<Long> enqueue(QueueStorage storage) {
        // tag::enqueue[]
        JobRequest request = JobRequest.builder("emails", "welcome")
                .args("{\"to\":\"ada@example.com\"}")          // JSON text, at most 1 MiB
                .priority(1)                                    // 1 (highest) to 4, default 2
                .maxAttempts(5)
                .build();
        return storage.enqueue(request);                        // Mono<Long>: the job id
        // end::enqueue[]
    }

    /**
     * Enqueues a job inside the caller's transaction.
     *
     * @param pool the pool
     * @param storage the storage
     * @param orderId the order
     * @return the job id, once committed
     */
    public static Mono<Long> placeOrder(ConnectionPool pool, QueueStorage storage, long orderId) {
        // tag::transactional[]
        return Mono.usingWhen(pool.create(), connection ->
                Mono.usingWhen(Mono.from(connection.beginTransaction()).thenReturn(connection),
                        tx -> Flux.from(tx.createStatement("INSERT INTO shop.orders (id) VALUES ($1)")
                                        .bind("$1", orderId).execute())
                                .flatMap(Result::getRowsUpdated)
                                .then(storage.enqueue(tx, JobRequest.builder("emails", "order-confirmation")
                                        .args("{\"order\":" + orderId + "}").build())),
                        Connection::commitTransaction,                // the job commits with the order...
                        (tx, error) -> tx.rollbackTransaction(),      // ...or neither does
                        Connection::rollbackTransaction),
                Connection::close);
        // end::transactional[]
    }

    /**
     * Starts a worker.
     *
     * @param storage the storage
     * @return the running worker
     */
    public static Worker worker(QueueStorage storage) {
        // tag::worker[]
        Worker worker = storage.worker(WorkerConfig.builder("emails", job -> sendEmail(job.args()))
                .concurrency(10)                                // running attempts at most
                .pollInterval(Duration.ofSeconds(2))            // fallback to LISTEN/NOTIFY wake-ups
                .build());
        worker.start().block();
        // end::worker[]
        return worker;
    }

    /**
     * Starts ring maintenance.
     *
     * @param storage the storage
     * @param meterRegistry the registry
     * @return the running engine
     */
    public static RingMaintenance maintenance(QueueStorage storage, MeterRegistry meterRegistry) {
        // tag::maintenance[]
        RingMaintenance maintenance = RingMaintenance.create(storage, RingMaintenanceConfig.builder()
                .meterRegistry(meterRegistry)                   // awa.maintenance.*, awa.ring.* meters
                .blockerDiagnostics(true)                       // name who held the locks of a blocked prune
                .build());
        maintenance.outcomes()                                  // hot: every prune outcome from now on
                .filter(event -> event.outcome().label().equals("blocked"))
                .subscribe(event -> System.out.println("blocked " + event.ring() + " by " + event.blockers()));
        maintenance.start().block();                            // runs on every instance; one leads
        // end::maintenance[]
        return maintenance;
    }

    /**
     * Stops everything in order.
     *
     * @param worker the worker
     * @param maintenance the engine
     * @param pool the pool
     */
    public static void shutdown(Worker worker, RingMaintenance maintenance, ConnectionPool pool) {
        // tag::shutdown[]
        worker.stop(Duration.ofSeconds(10))                     // running jobs finish, or are released
                .then(Mono.defer(() -> maintenance.stop(Duration.ofSeconds(5)))) // then leadership ends
                .then(Mono.defer(pool::disposeLater))
                .block();
        // end::shutdown[]
    }

    private static Mono<Void> sendEmail(String args) {
        return Mono.empty();
    }
}
