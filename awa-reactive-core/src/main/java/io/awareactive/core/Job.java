package io.awareactive.core;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One claimed attempt of a job, as returned by {@link QueueStorage#claim(String, int, String)}: the job's data plus
 * the ring coordinates of the attempt, which heartbeat, complete, fail and release use to name the exact rows
 * (the lease's own slot). Pass it back unchanged. Immutable.
 *
 * @param id the job id
 * @param queue the queue
 * @param kind the kind
 * @param args the JSON arguments
 * @param priority the priority, 1 (highest) to 4
 * @param attempt this attempt's number, from 1
 * @param maxAttempts the attempts allowed
 * @param timeout the job's own per-attempt timeout, or null
 * @param deadline this attempt's hard deadline (claim time + timeout), or null
 * @param runLease the attempt's identity, never reused: a late call for an older attempt never matches (negative
 *     for attempts claimed from schema step 18 on, which name their claimed run and their place in it)
 * @param readySlot the queue slot of the attempt's ready row
 * @param readyGeneration the queue generation of that slot
 * @param leaseSlot the lease slot of the attempt's claimed run (or lease)
 * @param claimSlot the claim slot current when the attempt was claimed (only attempts claimed before schema step 7
 *     have a receipt there)
 * @param enqueueShard the lane's enqueue shard
 * @param laneSeq the position in the lane
 */
public record Job(long id, String queue, String kind, String args, int priority, int attempt, int maxAttempts,
        @Nullable Duration timeout, @Nullable Instant deadline, long runLease, int readySlot, long readyGeneration,
        int leaseSlot, int claimSlot, int enqueueShard, long laneSeq) {
}
