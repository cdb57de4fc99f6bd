package io.awareactive.examples.webflux;

import io.awareactive.core.JobRequest;
import io.awareactive.core.JobStatus;
import io.awareactive.core.QueueCounts;
import io.awareactive.core.QueueStorage;
import java.net.URI;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The example's HTTP API: {@code POST /jobs} enqueues, {@code GET /jobs/{id}} reads a job's status,
 * and {@code GET /queues/{queue}/counts} a queue's counts. The prune-outcome stream ({@code GET /maintenance/outcomes})
 * is the starter's ({@code awa.web.*}).
 */
@RestController
class JobsController {

    private final QueueStorage storage;
    private final String queue;

    JobsController(QueueStorage storage, @Value("${example.queue}") String queue) {
        this.storage = storage;
        this.queue = queue;
    }

    // tag::endpoints[]
    /** Enqueues a job whose arguments are the JSON request body; answers 201 with the job id. */
    @PostMapping(path = "/jobs", consumes = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<Map<String, Long>>> enqueue(@RequestBody String args,
            @RequestParam(defaultValue = "greet") String kind) {
        return storage.enqueue(JobRequest.builder(queue, kind).args(args).build())
                .map(id -> ResponseEntity.created(URI.create("/jobs/" + id)).body(Map.of("id", id)));
    }
    // end::endpoints[]

    /** A queue's counts: available, running, scheduled, and exact terminal counts that outlive prunes. */
    @GetMapping("/queues/{queue}/counts")
    Mono<QueueCounts> counts(@PathVariable String queue) {
        return storage.counts(queue);
    }

    /** The job's status, or 404 (unknown, or its ring slot was pruned: history lasts about one ring lap). */
    @GetMapping("/jobs/{id}")
    Mono<ResponseEntity<JobStatus>> status(@PathVariable long id) {
        return storage.status(id)
                .map(ResponseEntity::ok)
                .defaultIfEmpty(ResponseEntity.notFound().build());
    }
}
