package io.awareactive.maintenance.internal;

import io.awareactive.core.PruneOutcome;
import io.awareactive.core.Ring;
import io.awareactive.core.RingCursor;
import io.awareactive.core.RollupOutcome;
import io.awareactive.core.RotateOutcome;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.StartupWarning;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the engine's loop does to the database, one method per step. {@link StoragePort} is the real implementation
 * (core's {@code QueueStorage} plus the engine's own leader, diagnostics and blocker SQL); tests of the loop's own
 * scheduling (virtual time) substitute a fake, never for SQL behaviour. Every method is lazy and non-blocking.
 */
public interface TaskPort {

    /**
     * The installed slot count of a ring (as configured and verified at start).
     *
     * @param ring the ring
     * @return the slot count
     */
    int slotCount(Ring ring);

    /**
     * Checks that the schema is installed with the configured slot counts.
     *
     * @return completion, or an error naming the mismatch
     */
    Mono<Void> verifyInstalled();

    /**
     * One election attempt.
     *
     * @return the leadership when won; empty when another instance leads; an error when the attempt failed
     */
    Mono<Leadership> tryLead();

    /**
     * Rotates a ring once.
     *
     * @param ring the ring
     * @return the outcome; errors on database failure
     */
    Mono<RotateOutcome> rotate(Ring ring);

    /**
     * Prunes a ring's oldest sealed slot.
     *
     * @param ring the ring
     * @return the outcome (never an error by contract; the engine maps a stray error to {@code Failed})
     */
    Mono<PruneOutcome> prune(Ring ring);

    /**
     * Reads a ring's cursor.
     *
     * @param ring the ring
     * @return the cursor
     */
    Mono<RingCursor> cursor(Ring ring);

    /**
     * Counts a ring's initialized sealed slots still holding rows.
     *
     * @param ring the ring
     * @return the count
     */
    Mono<Integer> sealedSlots(Ring ring);

    /**
     * Folds sealed queue slots' terminal-count deltas, one transaction per slot.
     *
     * @param maxSlots the most slots
     * @param mvccPinMinAge snapshot age that pins the horizon
     * @param mvccPinMinXids xid age that pins the horizon without {@code pg_read_all_stats}
     * @return one outcome per slot transaction
     */
    Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids);

    /**
     * Folds the rollup deltas into the rollups.
     *
     * @return rows folded
     */
    Mono<Long> foldTerminalCounts();

    /**
     * Trims every ring's ledger to one lap.
     *
     * @return rows deleted
     */
    Mono<Long> trimLedgers();

    /**
     * Moves due deferred jobs into the current queue slot.
     *
     * @param maxJobs the most jobs
     * @return how many moved
     */
    Mono<Integer> promote(int maxJobs);

    /**
     * Retries or fails attempts with a stale heartbeat or passed deadline.
     *
     * @param maxJobs the most attempts
     * @return how many
     */
    Mono<Integer> rescue(int maxJobs);

    /**
     * Deletes dead-letter rows past their retention, in transactions of at most {@code batchSize} rows.
     *
     * @param batchSize rows per transaction
     * @return how many were deleted
     */
    Mono<Long> purgeFailedJobs(int batchSize);

    /**
     * The sessions holding locks that conflict with a prune of the slot.
     *
     * @param ring the ring
     * @param slot the slot
     * @return the holders
     */
    Mono<List<LockHolder>> blockers(Ring ring, int slot);

    /**
     * The startup diagnostics (§9 of the design): never errors.
     *
     * @param lockTimeout the effective prune lock timeout
     * @return the warnings, possibly empty
     */
    Mono<List<StartupWarning>> diagnose(Duration lockTimeout);

    /** A won leadership: the held leader lock. */
    interface Leadership {

        /**
         * Checks the leader connection ({@code SELECT 1}).
         *
         * @return completion; an error when the connection failed
         */
        Mono<Void> check();

        /**
         * Unlocks and closes the leader connection; never errors (closing frees the lock anyway).
         *
         * @return completion
         */
        Mono<Void> release();
    }
}
