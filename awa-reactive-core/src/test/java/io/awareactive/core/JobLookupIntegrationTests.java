package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * A job's lookup (status and cancel) in every slot of the queue and lease rings. Since schema step 22 each slot has
 * statements of its own, chosen by slot number, and the lease slots are searched newest first: a slot whose statement
 * named another slot's children, or a search that did not wrap around the ring, would misreport the jobs placed there.
 */
@AwaPostgresTest
final class JobLookupIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    JobLookupIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installWithThreeLeaseSlots() {
        schema = db.newSchemaName();
        storage = QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, b -> b.leaseSlotCount(3)));
        storage.install().block(WAIT);
    }

    /** Jobs of one queue slot whose attempts were claimed into one lease slot. */
    private record Placed(long available, long cancelled, Job completed, Job running, Job failed) {
    }

    /**
     * Places, in the current queue and lease slots, an available job and a cancelled one (queue {@code idle}, never
     * claimed) and three claimed attempts (queue {@code q}): one completed, one left running, one failed for good.
     */
    private Placed place(int queueSlot, int leaseSlot) {
        long available = storage.enqueue(JobRequest.of("idle", "k", "{}")).block(WAIT);
        long cancelled = storage.enqueue(JobRequest.of("idle", "k", "{}")).block(WAIT);
        assertThat(storage.cancel(cancelled).block(WAIT)).isEqualTo(CancelResult.CANCELLED);
        assertThat(db.queryLong("SELECT count(*) FROM \"" + schema + "\".ready_entries_" + queueSlot
                + " WHERE job_id IN (" + available + ", " + cancelled + ")")).isEqualTo(2);
        storage.enqueueAll(Flux.range(0, 3).map(i -> JobRequest.builder("q", "k").maxAttempts(1).build()))
                .blockLast(WAIT);
        List<Job> claimed = new ArrayList<>();
        while (claimed.size() < 3) {
            claimed.addAll(storage.claim("q", 3, "w").collectList().block(WAIT));
        }
        assertThat(claimed).extracting(Job::readySlot).containsOnly(queueSlot);
        assertThat(claimed).extracting(Job::leaseSlot).containsOnly(leaseSlot);
        assertThat(storage.complete(claimed.get(0)).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(storage.fail(claimed.get(2), "boom").block(WAIT)).isEqualTo(AttemptResult.FAILED);
        return new Placed(available, cancelled, claimed.get(0), claimed.get(1), claimed.get(2));
    }

    private JobStatus status(long jobId) {
        return storage.status(jobId).block(WAIT);
    }

    @Test
    void shouldTellTheStateOfJobsInEverySlotOfTheQueueAndLeaseRings() {
        List<Placed> placed = new ArrayList<>();
        placed.add(place(0, 0));
        Fixtures.rotated(storage, Ring.QUEUE, 1, WAIT);
        Fixtures.rotated(storage, Ring.LEASE, 1, WAIT);
        placed.add(place(1, 1));
        Fixtures.rotated(storage, Ring.QUEUE, 2, WAIT);
        Fixtures.rotated(storage, Ring.LEASE, 2, WAIT);
        placed.add(place(2, 2));
        // Lease slot 0 pruned and current again: the first slot's runs are gone, and the lease slots are searched
        // from 0 back round to 2 and 1.
        assertThat(storage.complete(placed.get(0).running()).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(Fixtures.pruneUntilNotBlocked(storage, Ring.LEASE, WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        Fixtures.rotated(storage, Ring.QUEUE, 3, WAIT);
        Fixtures.rotated(storage, Ring.LEASE, 0, WAIT);
        placed.add(place(3, 0));

        for (int slot = 0; slot < placed.size(); slot++) {
            Placed jobs = placed.get(slot);
            assertThat(status(jobs.available()).state()).as("available, queue slot %d", slot)
                    .isEqualTo(JobState.AVAILABLE);
            assertThat(status(jobs.cancelled()).state()).as("cancelled, queue slot %d", slot)
                    .isEqualTo(JobState.CANCELLED);
            assertThat(status(jobs.completed().id()).state()).as("completed, queue slot %d", slot)
                    .isEqualTo(JobState.COMPLETED);
            assertThat(status(jobs.running().id()).state()).as("running, queue slot %d", slot)
                    .isEqualTo(slot == 0 ? JobState.COMPLETED : JobState.RUNNING);
            assertThat(status(jobs.failed().id())).as("failed, queue slot %d", slot)
                    .satisfies(failed -> assertThat(failed.state()).isEqualTo(JobState.FAILED))
                    .satisfies(failed -> assertThat(failed.error()).isEqualTo("boom"));
            assertThat(storage.cancel(jobs.running().id()).block(WAIT)).as("cancel running, queue slot %d", slot)
                    .isEqualTo(CancelResult.NOT_CANCELLABLE);
            assertThat(storage.cancel(jobs.available()).block(WAIT)).as("cancel available, queue slot %d", slot)
                    .isEqualTo(CancelResult.CANCELLED);
        }
        assertThat(storage.counts("q").block(WAIT).running()).isEqualTo(3);
    }

    /** Each probe is a statement planned once per session: no lookup function builds SQL at run time. */
    @Test
    void shouldLookJobsUpWithoutDynamicSql() {
        List<String> bodies = db.query("SELECT p.proname || ': ' || p.prosrc FROM pg_proc p"
                + " WHERE p.pronamespace = '\"" + schema + "\"'::regnamespace AND p.proname IN ('job_status',"
                + " 'locate_job', 'locate_ring_row', 'claimed_attempt_state', 'lock_live_job')", rs -> rs.getString(1));

        assertThat(bodies).hasSize(5).noneMatch(body -> body.contains("EXECUTE"));
    }
}
