package io.awareactive.core;

import io.awareactive.core.internal.Db;
import io.awareactive.core.internal.RingReads;
import io.awareactive.core.internal.Pruner;
import io.awareactive.core.internal.Rotator;
import io.awareactive.core.internal.Schema;
import io.awareactive.core.internal.SchemaInstaller;
import io.awareactive.core.internal.TerminalRollup;
import io.awareactive.core.internal.Validation;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The queue storage of one awa-reactive schema: installation, ring rotation and prune, and the job lifecycle.
 *
 * <p>Every method is lazy and non-blocking: nothing happens until the returned publisher is subscribed, and no
 * method blocks the subscribing thread. Instances are immutable and thread-safe; create one per schema and share
 * it. Connections come from {@link QueueStorageConfig#connectionFactory()} and are returned after each operation.
 */
public final class QueueStorage {

    private final QueueStorageConfig config;
    private final Schema schema;
    private final SchemaInstaller installer;
    private final Rotator rotator;
    private final Pruner pruner;
    private final TerminalRollup rollup;

    private QueueStorage(QueueStorageConfig config) {
        this.config = config;
        this.schema = new Schema(config.schema());
        Map<Ring, Integer> slotCounts = new EnumMap<>(Ring.class);
        for (Ring ring : Ring.values()) {
            slotCounts.put(ring, config.slotCount(ring));
        }
        this.installer = new SchemaInstaller(config.connectionFactory(), schema, slotCounts);
        long lockTimeoutMillis = config.effectivePruneLockTimeout().toMillis();
        this.rotator = new Rotator(config.connectionFactory(), schema, lockTimeoutMillis);
        this.pruner = new Pruner(config.connectionFactory(), schema, lockTimeoutMillis);
        this.rollup = new TerminalRollup(config.connectionFactory(), schema, lockTimeoutMillis);
    }

    /**
     * Creates the storage. Does no I/O.
     *
     * @param config the configuration
     * @return the storage
     * @throws IllegalArgumentException when {@code config} is null
     */
    public static QueueStorage create(QueueStorageConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        return new QueueStorage(config);
    }

    /**
     * The configuration this storage was created with.
     *
     * @return the configuration
     */
    public QueueStorageConfig config() {
        return config;
    }

    /**
     * Installs the schema: idempotent, versioned and serialised across concurrent installers (two installing at
     * once end with one correct schema and no error). An installed schema is only verified.
     *
     * @return completion; errors with {@link AwaReactiveException}, changing nothing, when the schema holds tables
     *     awa-reactive did not create, has another version, or was installed with other slot counts (the message
     *     names both values)
     */
    public Mono<Void> install() {
        return installer.install();
    }

    /**
     * Checks, changing nothing, that the schema is installed at this library's version with the configured slot
     * counts.
     *
     * @return completion; errors with {@link AwaReactiveException} otherwise
     */
    public Mono<Void> verifyInstalled() {
        return installer.verify();
    }

    /**
     * Rotates a ring once, in one short transaction: the ring serializer (try-lock, never waiting), a busy gate on
     * the next slot, an in-flight-writer probe, an idle gate, and a compare-and-swap append to the ledger.
     * Concurrent rotations never produce a duplicate or skipped generation.
     *
     * @param ring the ring
     * @return {@link RotateOutcome.Rotated}, {@link RotateOutcome.SkippedBusy} or {@link RotateOutcome.SkippedIdle};
     *     any other database failure is an error signal
     */
    public Mono<RotateOutcome> rotate(Ring ring) {
        return rotator.rotate(Objects.requireNonNull(ring, "ring"));
    }

    /**
     * Prunes the ring's oldest initialized sealed slot in one transaction on a connection from the factory.
     *
     * <p>The transaction starts with {@code set_config('lock_timeout', '<T>ms', true)} ({@code T} the
     * {@linkplain QueueStorageConfig#effectivePruneLockTimeout() effective prune lock timeout}), so every lock it
     * takes is bounded and nothing leaks into a pooled connection. Then: the ring serializer (a try-lock that never
     * waits; held elsewhere → {@link PruneOutcome.Blocked} with {@link BlockedCause#SERIALIZER_BUSY}), the target
     * from the ledger and slot count (none → {@link PruneOutcome.Noop}), the slot row {@code FOR UPDATE}, the
     * live-work gates (→ {@link PruneOutcome.SkippedActive}), the child locks (queue: {@code ready_segments_k} timed,
     * the other children {@code NOWAIT}; lease: {@code leases_k} timed; claim: {@code lease_claims_k} timed,
     * {@code lease_claim_closures_k} {@code NOWAIT}), the gates again, the count hand-off (queue) and one
     * {@code TRUNCATE} of the slot's children → {@link PruneOutcome.Pruned} with lock, truncate and commit times.
     *
     * <p>SQLSTATE 55P03 rolls back, releasing every lock taken, → {@link PruneOutcome.Blocked} with
     * {@link BlockedCause#NOWAIT} at a {@code NOWAIT} step and {@link BlockedCause#LOCK_TIMEOUT} elsewhere; any other
     * failure (57014, 40P01, a lost connection, a pool timeout, 55P03 before the target is known) rolls back →
     * {@link PruneOutcome.Failed}, logged at ERROR. Never changes a ring cursor. Does not block; run it at most once
     * per ring at a time (the serializer answers a concurrent attempt {@code SERIALIZER_BUSY}).
     *
     * @param ring the ring
     * @return {@link PruneOutcome.Pruned}, {@link PruneOutcome.Noop}, {@link PruneOutcome.Blocked},
     *     {@link PruneOutcome.SkippedActive} or {@link PruneOutcome.Failed}; never an error signal
     * @throws NullPointerException when {@code ring} is null
     */
    public Mono<PruneOutcome> prune(Ring ring) {
        return pruner.prune(Objects.requireNonNull(ring, "ring"));
    }

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
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        Validation.requireBetween(maxSlots, 1, Ring.MAX_SLOT_COUNT, "maxSlots");
        Validation.requirePositive(mvccPinMinAge, "mvccPinMinAge");
        Validation.requirePositive(mvccPinMinXids, "mvccPinMinXids");
        return rollup.rollup(maxSlots, mvccPinMinAge, mvccPinMinXids);
    }

    /**
     * Folds the prune hand-off deltas ({@code queue_terminal_rollup_deltas}, written when a queue slot is pruned)
     * into {@code queue_terminal_rollups}, in one transaction that sets the lock timeout first. Terminal counts are
     * unchanged; concurrent folds count each delta once. The maintenance engine runs it after {@link #rollup}, and
     * skips it while the horizon is pinned.
     *
     * @return the number of delta rows folded; a database failure is an error signal
     */
    public Mono<Long> foldTerminalCounts() {
        return rollup.foldTerminalCounts();
    }

    /**
     * Trims each ring's ledger to one lap: {@code DELETE ... WHERE generation < max - (N - 1)}, one transaction per
     * ring, each setting the lock timeout first. The cursor never changes. The maintenance engine runs it after
     * {@link #rollup}, and skips it while the horizon is pinned.
     *
     * @return the number of ledger rows deleted over all rings; a database failure is an error signal
     */
    public Mono<Long> trimLedgers() {
        return rollup.trimLedgers();
    }

    /**
     * Counts the ring's initialized sealed slots that still hold rows, that is, slots prune has not yet reclaimed,
     * in one short read transaction that sets the lock timeout first. Feeds the {@code awa.ring.sealed_slots} gauge:
     * 0 when idle or keeping up, up to N - 1 when pruning is stalled.
     *
     * @param ring the ring
     * @return the count; a database failure is an error signal
     * @throws NullPointerException when {@code ring} is null
     */
    public Mono<Integer> sealedSlots(Ring ring) {
        return pruner.sealedSlots(Objects.requireNonNull(ring, "ring"));
    }

    /**
     * Reads a ring's current slot and generation: one index probe of its ledger.
     *
     * @param ring the ring
     * @return the cursor
     */
    public Mono<RingCursor> cursor(Ring ring) {
        Objects.requireNonNull(ring, "ring");
        return Db.withConnection(config.connectionFactory(), c -> RingReads.cursor(c, schema, ring));
    }
}
