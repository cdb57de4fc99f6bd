package io.awareactive.core.ring;

import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The ring work of one schema, for a maintenance engine (and tests): rotation, prune, the terminal-count rollup,
 * promotion of due deferred jobs, rescue of stale attempts and the dead-letter purge. Obtained from
 * {@link QueueStorage#ringOperations()}; it runs on the storage's own connections (one pool) and under the storage's
 * {@link #pruneLockTimeout() prune lock timeout}. Applications do not call it: a running {@code RingMaintenance}
 * does.
 *
 * <p>Every method is lazy and non-blocking: nothing happens until the returned publisher is subscribed. Instances
 * are immutable and thread-safe.
 */
public interface RingOperations {

    /**
     * The schema these operations work on.
     *
     * @return the schema name
     */
    String schema();

    /**
     * The storage's connection factory (usually a pool), for the engine's own diagnostics and blocker queries.
     *
     * @return the factory
     */
    ConnectionFactory connectionFactory();

    /**
     * The configured slot count of a ring.
     *
     * @param ring the ring
     * @return 2 to 64
     */
    int slotCount(Ring ring);

    /**
     * The lock timeout every rotation, prune and rollup transaction sets first, in whole milliseconds: the storage's
     * {@link QueueStorageConfig#effectivePruneLockTimeout()}. A prune may wait up to this once per lock acquisition.
     *
     * @return the timeout
     */
    Duration pruneLockTimeout();

    /**
     * Checks, changing nothing, that the schema is installed at this library's latest version with the configured
     * slot counts (the same check as {@link QueueStorage#verifyInstalled()}).
     *
     * @return completion; an {@code AwaReactiveException} error otherwise
     */
    Mono<Void> verifyInstalled();

    /**
     * Rotates a ring once. An idle ring is answered by one read-only statement (lock timeout, serializer try-lock and
     * idle probe in one server-side call) that writes nothing; otherwise one short transaction: the ring serializer
     * (try-lock, never waiting), a busy gate on the next slot, an in-flight-writer probe, an idle gate, and a
     * compare-and-swap append to the ledger. Concurrent rotations never produce a duplicate or skipped generation.
     *
     * @param ring the ring
     * @return {@link RotateOutcome.Rotated}, {@link RotateOutcome.SkippedBusy} or {@link RotateOutcome.SkippedIdle};
     *     any other database failure is an error signal
     */
    Mono<RotateOutcome> rotate(Ring ring);

    /**
     * Prunes the ring's oldest initialized sealed slot in one transaction on a connection from the factory.
     *
     * <p>The transaction starts with {@code set_config('lock_timeout', '<T>ms', true)} ({@code T} the
     * {@linkplain #pruneLockTimeout() effective prune lock timeout}), so every lock it
     * takes is bounded and nothing leaks into a pooled connection. Then: the ring serializer (a try-lock that never
     * waits; held elsewhere → {@link PruneOutcome.Blocked} with {@link BlockedCause#SERIALIZER_BUSY}), the target
     * from the ledger and slot count (none → {@link PruneOutcome.Noop}), the slot row {@code FOR UPDATE}, the
     * live-work gates (→ {@link PruneOutcome.SkippedActive}; they read tallies and per-lane index probes, never the
     * slot's rows), the child locks (queue: {@code ready_segments_k} timed, the other children {@code NOWAIT}; lease:
     * {@code leases_k}, {@code lease_runs_k} and {@code lease_tallies_k} timed; claim: {@code lease_claims_k} timed,
     * {@code lease_claim_closures_k} and {@code claim_tallies_k} {@code NOWAIT}), the gates again, the count hand-off
     * (queue) and one {@code TRUNCATE} of the slot's children and tallies → {@link PruneOutcome.Pruned} with lock,
     * truncate and commit times.
     *
     * <p>SQLSTATE 55P03 rolls back, releasing every lock taken, → {@link PruneOutcome.Blocked} with
     * {@link BlockedCause#NOWAIT} at a {@code NOWAIT} step and {@link BlockedCause#LOCK_TIMEOUT} elsewhere; any other
     * failure (57014, 40P01, a lost connection, a pool timeout, 55P03 before the target is known) rolls back →
     * {@link PruneOutcome.Failed}, returned with its error and SQLSTATE, not logged (a running maintenance engine logs
     * it, at most once a minute per ring). Never changes a ring cursor. Does not block; run it at most once
     * per ring at a time (the serializer answers a concurrent attempt {@code SERIALIZER_BUSY}).
     *
     * @param ring the ring
     * @return {@link PruneOutcome.Pruned}, {@link PruneOutcome.Noop}, {@link PruneOutcome.Blocked},
     *     {@link PruneOutcome.SkippedActive} or {@link PruneOutcome.Failed}; never an error signal
     * @throws NullPointerException when {@code ring} is null
     */
    Mono<PruneOutcome> prune(Ring ring);

    /**
     * Folds the terminal-count deltas of sealed queue slots into live counts. Candidates (initialized sealed slots
     * whose {@code queue_terminal_count_deltas_k} has rows, oldest first, at most {@code maxSlots}) come from one
     * short timeout-first read; then each slot gets its own transaction: the lock timeout, the queue serializer
     * (held elsewhere → {@link RollupOutcome.Blocked}), a cursor re-read (slot reopened → {@link RollupOutcome.Empty}),
     * the slot row {@code FOR UPDATE}, the horizon check, the delta child {@code ACCESS EXCLUSIVE} (timed; 55P03 →
     * {@link RollupOutcome.Blocked}), an upsert into {@code queue_terminal_live_counts} and a {@code TRUNCATE} of the
     * delta child → {@link RollupOutcome.Rolled}. Terminal counts are unchanged by a rollup.
     *
     * <p>The horizon check: another backend of this database holds a snapshot whose transaction is older than
     * {@code mvccPinMinAge}, or idles in a transaction holding an xid; for sessions whose activity is hidden (no
     * {@code pg_read_all_stats}), an {@code age(backend_xmin)} or {@code age(backend_xid)} above
     * {@code mvccPinMinXids} counts instead. A pinned horizon → {@link RollupOutcome.SkippedMvccPinned} and no further
     * slot this call.
     *
     * @param maxSlots the most slots to fold, 1 to 64 (the engine's default is 4)
     * @param mvccPinMinAge a snapshot older than this pins the horizon (the engine's default is 5 s); positive
     * @param mvccPinMinXids without {@code pg_read_all_stats}, an xid age above this pins the horizon (the engine's
     *     default is 10,000); positive
     * @return one outcome per slot transaction, none when no sealed slot holds deltas; per-slot failures are
     *     {@link RollupOutcome.Failed} outcomes, and only a failed candidate read is an error signal
     * @throws IllegalArgumentException at call time, before any SQL, when an argument breaks its rule
     */
    Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids);

    /**
     * Folds the prune hand-off deltas ({@code queue_terminal_rollup_deltas}, written when a queue slot is pruned)
     * into {@code queue_terminal_rollups}, in one transaction that sets the lock timeout first. Terminal counts are
     * unchanged; concurrent folds count each delta once. The maintenance engine runs it after {@link #rollup}, and
     * skips it while the horizon is pinned.
     *
     * @return the number of delta rows folded; a database failure is an error signal
     */
    Mono<Long> foldTerminalCounts();

    /**
     * Trims each ring's ledger to one lap: {@code DELETE ... WHERE generation < max - (N - 1)}, one transaction per
     * ring, each setting the lock timeout first. The cursor never changes. The maintenance engine runs it after
     * {@link #rollup}, and skips it while the horizon is pinned.
     *
     * @return the number of ledger rows deleted over all rings; a database failure is an error signal
     */
    Mono<Long> trimLedgers();

    /**
     * Counts the ring's initialized sealed slots that still hold rows, that is, slots prune has not yet reclaimed,
     * in one short read transaction that sets the lock timeout first. Feeds the {@code awa.ring.sealed_slots} gauge:
     * 0 when idle or keeping up, up to N - 1 when pruning is stalled.
     *
     * @param ring the ring
     * @return the count; a database failure is an error signal
     * @throws NullPointerException when {@code ring} is null
     */
    Mono<Integer> sealedSlots(Ring ring);

    /**
     * Reads a ring's current slot and generation: one index probe of its ledger.
     *
     * @param ring the ring
     * @return the cursor
     */
    Mono<RingCursor> cursor(Ring ring);

    /**
     * Maintenance: moves due scheduled jobs and delayed retries into the current queue slot, oldest first, in one
     * transaction under its own transaction-local lock timeout of max(prune lock timeout, 100 ms). Rows are locked
     * {@code FOR UPDATE SKIP LOCKED}; a lane whose lock a producer holds keeps its jobs for the next call, the other
     * lanes' jobs move now. Called by the maintenance engine; without one running, nothing is promoted.
     *
     * @param maxJobs the most jobs to move, 1 to 10,000
     * @return how many moved
     * @throws IllegalArgumentException when {@code maxJobs} is out of range
     */
    Mono<Integer> promote(int maxJobs);

    /**
     * Maintenance: takes back attempts whose heartbeat is older than {@link QueueStorageConfig#leaseStaleAfter()}
     * or whose deadline has passed ({@code FOR UPDATE SKIP LOCKED}): deletes the lease, writes a {@code rescued}
     * closure, then retries the job with backoff or fails it terminally, as {@code QueueStorage.fail} does. A
     * worker's later completion of such an attempt changes nothing ({@code AttemptResult.LOST}). Called by the
     * maintenance engine; without one running, stuck attempts are never rescued.
     *
     * @param maxJobs the most attempts, 1 to 10,000
     * @return how many were rescued
     * @throws IllegalArgumentException when {@code maxJobs} is out of range
     */
    Mono<Integer> rescue(int maxJobs);

    /**
     * Maintenance: deletes dead-letter rows that failed longer than {@link QueueStorageConfig#deadLetterRetention()}
     * ago (all of them when it is zero), oldest first, in transactions of at most {@code batchSize} rows until a
     * batch comes back short. Each transaction first sets a transaction-local lock timeout of max(prune lock
     * timeout, 100 ms), so a session holding a conflicting lock on the table bounds the wait: the call then ends
     * with the driver's error (SQLSTATE 55P03), earlier batches committed. Rows locked by a concurrent retry or
     * discard are skipped, never waited for. Called by the maintenance engine's dead-letter purge task.
     *
     * @param batchSize rows per transaction, 1 to 10,000 (the engine uses 500)
     * @return how many rows were deleted
     * @throws IllegalArgumentException at call time when {@code batchSize} is out of range
     */
    Mono<Long> purgeFailedJobs(int batchSize);
}
