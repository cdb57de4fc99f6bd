package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.RollupOutcome;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The terminal-count rollup of the queue ring (design §6.5): folds each sealed slot's
 * {@code queue_terminal_count_deltas_k} into {@code queue_terminal_live_counts} and truncates the delta child, one
 * timeout-first transaction per slot; then, as separate transactions, folds the prune hand-off deltas into
 * {@code queue_terminal_rollups} and trims every ledger to one lap.
 */
public final class TerminalRollup {

    private final ConnectionFactory connectionFactory;
    private final Schema schema;
    private final long lockTimeoutMillis;

    /**
     * Creates the rollup.
     *
     * @param connectionFactory pooled connections
     * @param schema the schema
     * @param lockTimeoutMillis the effective prune lock timeout, set transaction-locally first
     */
    public TerminalRollup(ConnectionFactory connectionFactory, Schema schema, long lockTimeoutMillis) {
        this.connectionFactory = connectionFactory;
        this.schema = schema;
        this.lockTimeoutMillis = lockTimeoutMillis;
    }

    /**
     * Rolls up at most {@code maxSlots} sealed queue slots holding deltas, oldest first, one transaction each; stops
     * after a {@link RollupOutcome.SkippedMvccPinned}.
     *
     * @param maxSlots the most slots, already validated
     * @param mvccPinMinAge a snapshot older than this pins the horizon
     * @param mvccPinMinXids without {@code pg_read_all_stats}, an xid age above this pins the horizon
     * @return one outcome per slot transaction; errors only when the candidate read fails
     */
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        return candidates(maxSlots)
                .concatMap(slot -> rollSlot(slot, mvccPinMinAge, mvccPinMinXids))
                .takeUntil(RollupOutcome.SkippedMvccPinned.class::isInstance);
    }

    /** The sealed slots whose delta child has rows, oldest first, in a short timeout-first read transaction. */
    private Flux<SealedSlot> candidates(int maxSlots) {
        return Db.inMaintenanceTransaction(connectionFactory, lockTimeoutMillis,
                        c -> RingReads.state(c, schema, Ring.QUEUE)
                        .flatMap(state -> {
                            List<SealedSlot> sealed = SealedSlot.oldestFirst(state.cursor(), state.slotCount());
                            if (sealed.isEmpty()) {
                                return Mono.just(List.<SealedSlot>of());
                            }
                            String sql = sealed.stream()
                                    .map(s -> "EXISTS (SELECT 1 FROM " + deltas(s.slot()) + ")")
                                    .collect(Collectors.joining(", ", "SELECT ", ""));
                            return Db.queryOne(c, sql, row -> {
                                List<SealedSlot> withDeltas = new ArrayList<>();
                                for (int i = 0; i < sealed.size() && withDeltas.size() < maxSlots; i++) {
                                    if (Db.get(row, i, Boolean.class)) {
                                        withDeltas.add(sealed.get(i));
                                    }
                                }
                                return withDeltas;
                            });
                        }))
                .flatMapMany(Flux::fromIterable);
    }

    private Mono<RollupOutcome> rollSlot(SealedSlot candidate, Duration mvccPinMinAge, long mvccPinMinXids) {
        int k = candidate.slot();
        return Db.inMaintenanceTransaction(connectionFactory, lockTimeoutMillis,
                        c -> RingReads.tryLockSerializer(c, schema, Ring.QUEUE)
                        .flatMap(locked -> locked ? RingReads.state(c, schema, Ring.QUEUE)
                                : Mono.error(new EarlyExit(new RollupOutcome.Blocked(k,
                                        BlockedCause.SERIALIZER_BUSY), null)))
                        .flatMap(state -> stillSealed(state, candidate)
                                ? Pruner.lockSlotRow(c, schema, Ring.QUEUE, k)
                                : Mono.just(false))
                        .flatMap(proceed -> proceed
                                ? horizonPinned(c, mvccPinMinAge, mvccPinMinXids).flatMap(pinned -> pinned
                                        ? Mono.<RollupOutcome>just(new RollupOutcome.SkippedMvccPinned(k))
                                        : fold(c, candidate))
                                : Mono.<RollupOutcome>just(new RollupOutcome.Empty(k))))
                .onErrorResume(error -> Mono.just(ended(k, error)));
    }

    /** Still sealed at the candidate's generation: rotation may have reopened the slot since the candidate read. */
    private static boolean stillSealed(RingReads.RingState state, SealedSlot candidate) {
        return SealedSlot.oldestFirst(state.cursor(), state.slotCount()).stream()
                .anyMatch(s -> s.slot() == candidate.slot() && s.generation() == candidate.generation());
    }

    /**
     * The horizon check: another backend of this database holds a snapshot older than {@code mvccPinMinAge}, or
     * idles in a transaction holding an xid. For sessions whose activity columns are hidden (no
     * {@code pg_read_all_stats}: {@code state} is NULL), an {@code age(backend_xmin)} or {@code age(backend_xid)}
     * above {@code mvccPinMinXids} counts instead. Only this database's backends hold back the horizon of its
     * tables (PostgreSQL 14+), and only they can read them.
     */
    private Mono<Boolean> horizonPinned(Connection c, Duration mvccPinMinAge, long mvccPinMinXids) {
        return Db.queryOne(c, "SELECT EXISTS (SELECT 1 FROM pg_stat_activity a"
                        + " WHERE a.pid <> pg_backend_pid() AND a.datname = current_database()"
                        + " AND a.backend_type IS DISTINCT FROM 'autovacuum worker'"
                        + " AND (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL)"
                        + " AND CASE WHEN a.state IS NULL"
                        + " THEN GREATEST(age(a.backend_xmin), age(a.backend_xid)) > $2"
                        + " ELSE (a.backend_xmin IS NOT NULL"
                        + " AND a.xact_start < clock_timestamp() - $1 * interval '1 millisecond')"
                        + " OR (a.state LIKE 'idle in transaction%' AND a.backend_xid IS NOT NULL) END)",
                row -> Db.get(row, 0, Boolean.class), mvccPinMinAge.toMillis(), mvccPinMinXids);
    }

    /**
     * Steps 4–5: lock the delta child (timed), sum it into live counts in one statement that also counts its rows (one
     * scan of the child), and truncate it unless it was empty.
     */
    private Mono<RollupOutcome> fold(Connection c, SealedSlot slot) {
        int k = slot.slot();
        return Db.execute(c, "LOCK TABLE " + deltas(k) + " IN ACCESS EXCLUSIVE MODE")
                .then(Db.queryOne(c, "WITH sums AS (SELECT queue, priority, state, sum(delta) AS count,"
                                + " count(*) AS rows FROM " + deltas(k) + " GROUP BY queue, priority, state),"
                                + " folded AS (INSERT INTO " + schema.table(Table.QUEUE_TERMINAL_LIVE_COUNTS)
                                + " AS l (ready_slot, queue, priority, state, count)"
                                + " SELECT $1, queue, priority, state, count FROM sums"
                                + " ON CONFLICT (ready_slot, queue, priority, state)"
                                + " DO UPDATE SET count = l.count + EXCLUDED.count)"
                                + " SELECT coalesce(sum(rows), 0)::bigint FROM sums",
                        row -> Db.get(row, 0, Long.class), k))
                .flatMap(rows -> rows == 0 ? Mono.<RollupOutcome>just(new RollupOutcome.Empty(k))
                        : Db.execute(c, "TRUNCATE " + deltas(k))
                                .thenReturn(new RollupOutcome.Rolled(k, slot.generation(), rows)));
    }

    private String deltas(int k) {
        return schema.child(Table.QUEUE_TERMINAL_COUNT_DELTAS, k);
    }

    private RollupOutcome ended(int slot, Throwable error) {
        if (error instanceof EarlyExit exit) {
            return exit.outcome(RollupOutcome.class);
        }
        // Not logged here: the outcome carries the error, and its consumer (the engine, rate-limited) logs it.
        return MaintenanceFailures.rollupOutcome(error, slot);
    }

    /**
     * Folds the prune hand-off deltas ({@code queue_terminal_rollup_deltas}) into {@code queue_terminal_rollups} in
     * one timeout-first transaction. Concurrent folds are safe: a delta row is deleted, and so counted, once.
     *
     * @return the number of delta rows folded; errors with the database failure
     */
    public Mono<Long> foldTerminalCounts() {
        return Db.inMaintenanceTransaction(connectionFactory, lockTimeoutMillis, c -> Db.queryOne(c,
                                "WITH moved AS (DELETE FROM " + schema.table(Table.QUEUE_TERMINAL_ROLLUP_DELTAS)
                                + " RETURNING queue, priority, state, count), folded AS (INSERT INTO "
                                + schema.table(Table.QUEUE_TERMINAL_ROLLUPS) + " AS r (queue, priority, state, count)"
                                + " SELECT queue, priority, state, sum(count) FROM moved"
                                + " GROUP BY queue, priority, state ON CONFLICT (queue, priority, state)"
                                + " DO UPDATE SET count = r.count + EXCLUDED.count)"
                                + " SELECT count(*) FROM moved",
                        row -> Db.get(row, 0, Long.class)));
    }

    /**
     * Trims each ring's ledger to one lap ({@code DELETE ... WHERE generation < max - (N - 1)}), one timeout-first
     * transaction per ring. The cursor row and the N - 1 before it stay.
     *
     * @return the number of ledger rows deleted over all rings; errors with the database failure
     */
    public Mono<Long> trimLedgers() {
        return Flux.fromArray(Ring.values())
                .concatMap(ring -> Db.inMaintenanceTransaction(connectionFactory, lockTimeoutMillis,
                        c -> Db.update(c, "DELETE FROM " + schema.ledger(ring) + " WHERE generation < (SELECT"
                                + " max(generation) FROM " + schema.ledger(ring) + ") - ((SELECT slot_count FROM "
                                + schema.ringState(ring) + ") - 1)")))
                .reduce(0L, Long::sum);
    }
}
