package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneDurations;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.SkipReason;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Ring prune: one transaction that proves the ring's oldest sealed slot holds no live work, locks its children
 * {@code ACCESS EXCLUSIVE} within a bounded wait, proves it again and truncates them (design §6.1–§6.4).
 *
 * <p>Every transaction starts with the transaction-local lock timeout, then the ring serializer (a try-lock, never
 * waiting), then the slot row {@code FOR UPDATE} (timed). SQLSTATE 55P03 anywhere rolls back, which releases every lock
 * taken, and becomes {@link PruneOutcome.Blocked} with the cause of the running step; every other failure rolls back
 * and becomes {@link PruneOutcome.Failed}, which is returned, not logged (the engine logs outcomes, rate-limited).
 * Errors are mapped outside the transaction scope, so the rollback path ends a failed attempt. A prune never writes a
 * ledger, so it never moves a cursor.
 */
public final class Pruner {

    private static final Logger LOG = LoggerFactory.getLogger(Pruner.class);

    private final ConnectionFactory connectionFactory;
    private final Schema schema;
    private final long lockTimeoutMillis;
    private final Hooks hooks;

    /**
     * Test seam (package-private): replaces the computed target, to reach the {@code lease.current} and
     * {@code claim.current} guards that cannot fire otherwise, and runs extra work inside the transaction after the
     * serializer was taken (a probe reading {@code current_setting('lock_timeout')}).
     *
     * @param target maps the computed prune target
     * @param probe runs inside the transaction once the serializer is held, before the slot row lock
     */
    record Hooks(UnaryOperator<SealedSlot> target, BiFunction<Connection, SealedSlot, Mono<Void>> probe) {
        static final Hooks NONE = new Hooks(UnaryOperator.identity(), (c, target) -> Mono.empty());
    }

    /**
     * Which children a ring's prune locks: {@code timed} under the lock timeout first, in one statement, then
     * {@code nowait} in one {@code NOWAIT} statement. A slot's tallies are locked with its families.
     */
    private record LockPlan(List<Table> timed, List<Table> nowait) {
        static LockPlan of(Ring ring) {
            return switch (ring) {
                // Every claimer scans the ready_segments parent: the one child where NOWAIT would rarely win.
                case QUEUE -> new LockPlan(List.of(Table.READY_SEGMENTS), List.of(Table.READY_ENTRIES,
                        Table.READY_CLAIM_RANGES, Table.READY_TOMBSTONES, Table.DONE_ENTRIES,
                        Table.QUEUE_TERMINAL_COUNT_DELTAS));
                case LEASE -> new LockPlan(List.of(Table.LEASES, Table.LEASE_RUNS, Table.LEASE_RUN_CLOSURES,
                        Table.LEASE_TALLIES), List.of());
                // Receipts are the widely read side; with every receipt closed no closure can arrive.
                case CLAIM -> new LockPlan(List.of(Table.LEASE_CLAIMS),
                        List.of(Table.LEASE_CLAIM_CLOSURES, Table.CLAIM_TALLIES));
            };
        }
    }

    /** Per-subscription state of one attempt, read when mapping its end outside the transaction scope. */
    private static final class Attempt {
        volatile @Nullable Integer slot;
        volatile BlockedCause runningStep = BlockedCause.LOCK_TIMEOUT;
        volatile long lockNanos;
        volatile long truncateNanos;
        volatile long commitStart;
        volatile @Nullable PruneOutcome outcome;

        /** The outcome once the transaction ended; a Pruned gets its commit time here, after the COMMIT returned. */
        PruneOutcome finish() {
            PruneOutcome ended = outcome;
            if (ended instanceof PruneOutcome.Pruned pruned) {
                return new PruneOutcome.Pruned(pruned.slot(), pruned.generation(), new PruneDurations(
                        Duration.ofNanos(lockNanos), Duration.ofNanos(truncateNanos),
                        Duration.ofNanos(System.nanoTime() - commitStart)));
            }
            if (ended == null) {
                throw new IllegalStateException("prune transaction ended without an outcome");
            }
            return ended;
        }
    }

    /**
     * Creates a pruner.
     *
     * @param connectionFactory pooled connections
     * @param schema the schema
     * @param lockTimeoutMillis the effective lock timeout, set transaction-locally first
     */
    public Pruner(ConnectionFactory connectionFactory, Schema schema, long lockTimeoutMillis) {
        this(connectionFactory, schema, lockTimeoutMillis, Hooks.NONE);
    }

    Pruner(ConnectionFactory connectionFactory, Schema schema, long lockTimeoutMillis, Hooks hooks) {
        this.connectionFactory = connectionFactory;
        this.schema = schema;
        this.lockTimeoutMillis = lockTimeoutMillis;
        this.hooks = hooks;
    }

    /**
     * Prunes the ring's oldest sealed slot in one transaction.
     *
     * @param ring the ring
     * @return the outcome: {@code Pruned}, {@code Noop}, {@code Blocked}, {@code SkippedActive} or {@code Failed};
     *     never an error signal
     */
    public Mono<PruneOutcome> prune(Ring ring) {
        return Mono.defer(() -> {
            Attempt attempt = new Attempt();
            return Db.inMaintenanceTransaction(connectionFactory, lockTimeoutMillis,
                            c -> RingReads.tryLockSerializer(c, schema, ring)
                            .flatMap(locked -> RingReads.state(c, schema, ring)
                                    .flatMap(state -> pruneTarget(c, ring, state, locked, attempt))))
                    .doOnNext(outcome -> attempt.outcome = outcome)
                    // then(): runs after usingWhen's COMMIT completed, so the commit clock covers it.
                    .then(Mono.fromSupplier(attempt::finish))
                    .onErrorResume(error -> Mono.just(ended(attempt, error)));
        });
    }

    /** Q2–Q4: the serializer's answer, the target and the slot row. */
    private Mono<PruneOutcome> pruneTarget(Connection c, Ring ring, RingReads.RingState state, boolean locked,
            Attempt attempt) {
        Optional<SealedSlot> found = SealedSlot.pruneTarget(state).map(hooks.target());
        if (found.isEmpty()) {
            // A false try-lock leaves by the rollback path like every abandoned attempt (one path is simpler).
            return locked ? Mono.just(new PruneOutcome.Noop())
                    : Mono.error(new EarlyExit(new PruneOutcome.Noop(), null));
        }
        SealedSlot target = found.get();
        attempt.slot = target.slot();
        if (!locked) {
            return Mono.error(new EarlyExit(new PruneOutcome.Blocked(target.slot(), BlockedCause.SERIALIZER_BUSY),
                    null));
        }
        return hooks.probe().apply(c, target)
                .then(lockSlotRow(c, schema, ring, target.slot()))
                .flatMap(present -> {
                    if (!present) {
                        LOG.warn("prune of the {} ring: slot row {} is missing from {}; the installation is damaged",
                                ring.label(), target.slot(), schema.ringSlots(ring));
                        return Mono.just(new PruneOutcome.Noop());
                    }
                    return pruneLocked(c, ring, target, attempt);
                });
    }

    /** Gates, child locks, gates again, count hand-off and truncate, with the lock and truncate clocks. */
    private Mono<PruneOutcome> pruneLocked(Connection c, Ring ring, SealedSlot target, Attempt attempt) {
        int slot = target.slot();
        return liveWork(c, ring, target).flatMap(before -> before.isPresent()
                ? Mono.<PruneOutcome>just(new PruneOutcome.SkippedActive(slot, before.get()))
                : lockChildren(c, ring, slot, attempt)
                        // Rows committed while we waited for the locks are visible only now.
                        .then(Mono.defer(() -> liveWork(c, ring, target)))
                        .flatMap(after -> after.isPresent()
                                ? Mono.<PruneOutcome>just(new PruneOutcome.SkippedActive(slot, after.get()))
                                : handOffCounts(c, ring, slot)
                                        .then(truncate(c, ring, slot, attempt))
                                        .thenReturn((PruneOutcome) new PruneOutcome.Pruned(slot, target.generation(),
                                                new PruneDurations(Duration.ZERO, Duration.ZERO, Duration.ZERO)))));
    }

    /**
     * The ring's live-work gates, in order; the first that finds live work gives the skip reason. Each reads tallies
     * (schema step 6) or probes each lane of the slot with an index, so its cost does not grow with the rows the slot
     * holds. One statement for the queue ring ({@code CASE} evaluates its branches lazily, so later gates run only
     * when earlier ones pass). Why each is exact: {@code docs/architecture.md}, "Prune gates".
     *
     * <ul>
     *   <li>G1 {@code queue.active_leases}: the open attempts (leases and attempts of claimed runs) pointing at the
     *       slot, summed over every lease slot's tallies, and the claimed runs of its rows that a lease slot not yet
     *       pruned still holds (from schema step 18, whose attempts counted as completed by done rows in this slot;
     *       since step 19 a completion closes them in the run's lease slot, and this part only delays the prune).
     *   <li>G2 {@code queue.pending_ready}: {@link #pendingReady(int)}.
     *   <li>G3 {@code queue.unclosed_claim_refs}: receipts minus closures pointing at the slot, summed over every
     *       claim slot's tallies.
     *   <li>{@code lease.active}: the lease slot's tallied open attempts; {@code claim.open}: the claim slot's receipts
     *       minus closures.
     * </ul>
     *
     * A sum that is not zero counts as live work, a negative one too: never truncate what cannot be proven finished.
     */
    private Mono<Optional<SkipReason>> liveWork(Connection c, Ring ring, SealedSlot target) {
        int k = target.slot();
        return switch (ring) {
            case QUEUE -> Db.queryOne(c, "SELECT CASE"
                            + " WHEN (SELECT coalesce(sum(live), 0) <> 0 OR coalesce(sum(runs), 0) <> 0 FROM "
                            + schema.table(Table.LEASE_TALLIES) + " WHERE ready_slot = $1) THEN 'QUEUE_ACTIVE_LEASES'"
                            + " WHEN " + pendingReady(k) + " THEN 'QUEUE_PENDING_READY'"
                            + " WHEN (SELECT coalesce(sum(opened - closed), 0) FROM "
                            + schema.table(Table.CLAIM_TALLIES) + " WHERE ready_slot = $1) <> 0"
                            + " THEN 'QUEUE_UNCLOSED_CLAIM_REFS' END",
                    row -> Optional.ofNullable(row.get(0, String.class)).map(SkipReason::valueOf), k);
            case LEASE -> target.slot() == target.currentSlot() ? Mono.just(Optional.of(SkipReason.LEASE_CURRENT))
                    : Db.queryOne(c, "SELECT coalesce(sum(live), 0) <> 0 FROM " + schema.child(Table.LEASE_TALLIES, k),
                            row -> Db.get(row, 0, Boolean.class) ? Optional.of(SkipReason.LEASE_ACTIVE)
                                    : Optional.<SkipReason>empty());
            case CLAIM -> target.slot() == target.currentSlot() ? Mono.just(Optional.of(SkipReason.CLAIM_CURRENT))
                    : Db.queryOne(c, "SELECT coalesce(sum(opened - closed), 0) <> 0 FROM "
                                    + schema.child(Table.CLAIM_TALLIES, k),
                            row -> Db.get(row, 0, Boolean.class) ? Optional.of(SkipReason.CLAIM_OPEN)
                                    : Optional.<SkipReason>empty());
        };
    }

    /**
     * G2: a ready row at or beyond its lane's effective cursor, the larger of the claim sequence's last value + 1 and
     * the end of the lane's highest committed range in this slot, so a lagging cursor cannot pin the slot. A row
     * whose lane is missing counts as pending (cursor 1): never truncate what cannot be proven claimed.
     *
     * <p>Some row of a lane reaches the cursor exactly when the lane's highest row does. The slot's lanes are found
     * by a loose scan of the primary key (one probe per lane: the next lane key above the last), and each lane's
     * highest row and highest range end by one backward probe each (the primary key and
     * {@code ready_claim_ranges_lane_next_idx}): O(lanes in the slot), never a pass over its rows.
     */
    private String pendingReady(int k) {
        String entries = schema.child(Table.READY_ENTRIES, k);
        String key = "ready_slot, queue, priority, enqueue_shard";
        String sameLane = " AND x.queue = l.queue AND x.priority = l.priority AND x.enqueue_shard = l.enqueue_shard";
        return "EXISTS (WITH RECURSIVE lanes AS ("
                + "(SELECT " + key + " FROM " + entries + " WHERE ready_slot = $1 ORDER BY " + key + " LIMIT 1)"
                // The row comparison alone, which starts the index scan at the key; an added ready_slot = $1 made
                // PostgreSQL start at the slot's first key and read the whole index.
                + " UNION ALL SELECT n.* FROM lanes l CROSS JOIN LATERAL (SELECT " + key + " FROM " + entries + " x"
                + " WHERE (x.ready_slot, x.queue, x.priority, x.enqueue_shard)"
                + " > (l.ready_slot, l.queue, l.priority, l.enqueue_shard) ORDER BY " + key + " LIMIT 1) n)"
                + " SELECT 1 FROM lanes l LEFT JOIN " + schema.table(Table.QUEUE_LANES) + " q"
                + " ON q.queue = l.queue AND q.priority = l.priority AND q.enqueue_shard = l.enqueue_shard"
                + " WHERE (SELECT x.lane_seq FROM " + entries + " x WHERE x.ready_slot = $1" + sameLane
                + " ORDER BY x.lane_seq DESC LIMIT 1)"
                + " >= GREATEST(COALESCE(pg_sequence_last_value(q.claim_seq), 0) + 1,"
                + " (SELECT x.next_lane_seq FROM " + schema.child(Table.READY_CLAIM_RANGES, k) + " x"
                + " WHERE x.ready_slot = $1" + sameLane + " ORDER BY x.next_lane_seq DESC LIMIT 1)))";
    }

    private Mono<Void> lockChildren(Connection c, Ring ring, int k, Attempt attempt) {
        LockPlan plan = LockPlan.of(ring);
        return Mono.defer(() -> {
            long start = System.nanoTime();
            Mono<Void> timed = Db.execute(c, "LOCK TABLE " + children(plan.timed(), k) + " IN ACCESS EXCLUSIVE MODE");
            Mono<Void> nowait = plan.nowait().isEmpty() ? Mono.empty() : Mono.defer(() -> {
                attempt.runningStep = BlockedCause.NOWAIT;
                return Db.execute(c, "LOCK TABLE " + children(plan.nowait(), k) + " IN ACCESS EXCLUSIVE MODE NOWAIT")
                        .doOnSuccess(done -> attempt.runningStep = BlockedCause.LOCK_TIMEOUT);
            });
            return timed.then(nowait).doOnSuccess(done -> attempt.lockNanos = System.nanoTime() - start);
        });
    }

    /**
     * Q9: the slot's terminal counts move to the rollup deltas, in one statement: its folded counts (deleted) plus its
     * count deltas not yet folded (which leave with the truncate). Every writer of a done row writes its count delta
     * in the same transaction and slot, and the rollup moves deltas into folded counts in one transaction, so these
     * two sum to the slot's done rows without reading them: O(queues x states + unfolded deltas).
     *
     * <p>The deltas are summed straight from the child, before the union with the folded counts: one delta per
     * completion statement makes them the bulk of the rows, and grouping them where they are scanned is the cheaper
     * order (100,000 deltas: 22.5-24.3 ms against 27.0-30.9 ms after the union; docs/benchmarks.md section 1am).
     */
    private Mono<Void> handOffCounts(Connection c, Ring ring, int k) {
        if (ring != Ring.QUEUE) {
            return Mono.empty();
        }
        return Db.update(c, "WITH folded AS (DELETE FROM " + schema.table(Table.QUEUE_TERMINAL_LIVE_COUNTS)
                        + " WHERE ready_slot = $1 RETURNING queue, priority, state, count)"
                        + " INSERT INTO " + schema.table(Table.QUEUE_TERMINAL_ROLLUP_DELTAS)
                        + " (queue, priority, state, count) SELECT queue, priority, state, sum(n) FROM ("
                        + "SELECT queue, priority, state, count AS n FROM folded UNION ALL"
                        + " SELECT queue, priority, state, sum(delta) FROM "
                        + schema.child(Table.QUEUE_TERMINAL_COUNT_DELTAS, k) + " GROUP BY queue, priority, state)"
                        + " x GROUP BY queue, priority, state", k)
                .then();
    }

    /**
     * Truncates the slot's children that hold storage. A truncate gives each child, its TOAST table and each index a
     * new file, so a child that has never been written since its last truncate (often the tombstones, or deltas the
     * rollup already took) is left out: it holds no row, and under {@code ACCESS EXCLUSIVE} none can arrive.
     */
    private Mono<Void> truncate(Connection c, Ring ring, int k, Attempt attempt) {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            List<Table> children = new ArrayList<>(Schema.families(ring));
            children.addAll(Schema.tallies(ring));
            return withStorage(c, children, k)
                    .flatMap(written -> written.isEmpty() ? Mono.<Void>empty()
                            : Db.execute(c, "TRUNCATE " + children(written, k)))
                    .doOnSuccess(done -> {
                        long end = System.nanoTime();
                        attempt.truncateNanos = end - start;
                        attempt.commitStart = end;
                    });
        });
    }

    /**
     * The tables whose slot-k child has pages in its table or TOAST table (where rows live), in one statement. Its
     * indexes are left out: an empty index still has a metapage.
     */
    private Mono<List<Table>> withStorage(Connection c, List<Table> tables, int k) {
        return sizes(c, tables.stream().map(table -> schema.child(table, k)).toList())
                .map(sizes -> IntStream.range(0, tables.size()).filter(i -> sizes.get(i) > 0)
                        .mapToObj(tables::get).toList());
    }

    /**
     * The bytes of each child's table and TOAST table, in order, in one statement whose text names no child: planned
     * once per connection, and no truncate invalidates its plan.
     */
    private static Mono<List<Long>> sizes(Connection c, List<String> children) {
        return Db.query(c, "SELECT pg_relation_size(r.oid) + coalesce(pg_relation_size(nullif(r.reltoastrelid, 0)), 0)"
                        + " FROM unnest($1::text[]::regclass[]) WITH ORDINALITY AS x (child, ord)"
                        + " JOIN pg_class r ON r.oid = x.child ORDER BY x.ord",
                        row -> Db.get(row, 0, Long.class), (Object) children.toArray(String[]::new))
                .collectList();
    }

    private String children(List<Table> families, int k) {
        return families.stream().map(family -> schema.child(family, k)).collect(Collectors.joining(", "));
    }

    /** Maps the end of an attempt that left by the error path: early exits, 55P03 and failures. */
    private PruneOutcome ended(Attempt attempt, Throwable error) {
        if (error instanceof EarlyExit exit) {
            return exit.outcome(PruneOutcome.class);
        }
        // Not logged here: the outcome carries the error, and its consumer (the engine, rate-limited) logs it.
        return MaintenanceFailures.pruneOutcome(error, attempt.slot, attempt.runningStep);
    }

    /**
     * Locks a slot row {@code FOR UPDATE} under the transaction's lock timeout (lock order: serializer, slot row,
     * children).
     *
     * @param c a connection inside a timeout-first transaction
     * @param schema the schema
     * @param ring the ring
     * @param slot the slot
     * @return whether the row exists
     */
    static Mono<Boolean> lockSlotRow(Connection c, Schema schema, Ring ring, int slot) {
        return Db.query(c, "SELECT slot FROM " + schema.ringSlots(ring) + " WHERE slot = $1 FOR UPDATE",
                        row -> Boolean.TRUE, slot)
                .hasElements();
    }

    /**
     * Counts the ring's initialized sealed slots that still hold rows (not yet pruned), in one short timeout-first
     * read transaction. A lease slot holds rows when its tallies count an open attempt or a claimed run (read without
     * walking deleted leases); the other rings' slots when a family child has pages.
     *
     * @param ring the ring
     * @return the count: 0 when idle, up to N - 1 when pruning is stalled; errors with the database failure
     */
    public Mono<Integer> sealedSlots(Ring ring) {
        return Db.inMaintenanceTransaction(connectionFactory, lockTimeoutMillis, c -> RingReads.state(c, schema, ring)
                .flatMap(state -> {
                    List<SealedSlot> sealed = SealedSlot.oldestFirst(state.cursor(), state.slotCount());
                    if (sealed.isEmpty()) {
                        return Mono.just(0);
                    }
                    return ring == Ring.LEASE ? Db.queryOne(c, liveLeaseSlotsSql(sealed),
                            row -> Db.get(row, 0, Integer.class)) : slotsWithStorage(c, ring, sealed);
                }));
    }

    /**
     * Counts the slots whose family children have pages ({@link #sizes}). Rows are appended to these families and
     * leave only with a truncate, so a slot without pages holds no row; one with pages of rolled-back rows only counts
     * until its prune truncates them.
     */
    private Mono<Integer> slotsWithStorage(Connection c, Ring ring, List<SealedSlot> sealed) {
        List<Table> families = Schema.families(ring);
        List<String> children = sealed.stream()
                .flatMap(slot -> families.stream().map(family -> schema.child(family, slot.slot())))
                .toList();
        return sizes(c, children).map(sizes -> (int) IntStream.range(0, sealed.size())
                .filter(i -> sizes.subList(i * families.size(), (i + 1) * families.size()).stream()
                        .anyMatch(size -> size > 0))
                .count());
    }

    /**
     * Counts the lease slots whose tallies count an open attempt or a claimed run (literal slots: only their tally
     * children are read).
     */
    private String liveLeaseSlotsSql(List<SealedSlot> sealed) {
        String slots = sealed.stream().map(s -> Integer.toString(s.slot())).collect(Collectors.joining(", "));
        return "SELECT count(*)::int FROM (SELECT lease_slot FROM " + schema.table(Table.LEASE_TALLIES)
                + " WHERE lease_slot IN (" + slots + ") GROUP BY lease_slot HAVING sum(live) <> 0 OR sum(runs) <> 0) t";
    }
}
