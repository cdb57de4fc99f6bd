package io.awareactive.core.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.RingCursor;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.core.ring.RotationBlocker;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * Ring rotation: one short transaction that appends {@code (generation + 1, next slot)} to the ring's ledger when
 * the next slot is empty and free of uncommitted writers and the ring is not idle.
 */
public final class Rotator {

    /** The busy-gate blocker of each ring family; the public blocker names its family by text. */
    private static final Map<String, RotationBlocker> BLOCKER_BY_FAMILY = Arrays.stream(RotationBlocker.values())
            .filter(blocker -> blocker.family() != null)
            .collect(Collectors.toMap(RotationBlocker::family, blocker -> blocker));

    private final ConnectionFactory connectionFactory;
    private final Schema schema;
    private final long lockTimeoutMillis;
    /** Each ring's idle probe, built once: it is sent on every tick. */
    private final Map<Ring, String> idleProbeSql = new EnumMap<>(Ring.class);
    /** Each ring's idle tick, run under the lock timeout: the serializer try-lock, then the idle probe. */
    private final Map<Ring, String> idleTickCall = new EnumMap<>(Ring.class);

    /**
     * Creates a rotator.
     *
     * @param connectionFactory pooled connections
     * @param schema the schema
     * @param lockTimeoutMillis the effective lock timeout, set transaction-locally first
     */
    public Rotator(ConnectionFactory connectionFactory, Schema schema, long lockTimeoutMillis) {
        this.connectionFactory = connectionFactory;
        this.schema = schema;
        this.lockTimeoutMillis = lockTimeoutMillis;
        for (Ring ring : Ring.values()) {
            idleProbeSql.put(ring, buildIdleProbeSql(ring));
            idleTickCall.put(ring, "CASE WHEN pg_try_advisory_xact_lock(hashtextextended($1, 0)) THEN ("
                    + idleProbeSql.get(ring) + ") END");
        }
    }

    /**
     * Rotates the ring once. An idle ring is answered by one static statement in autocommit (a materialised CTE sets
     * the lock timeout, then the serializer is tried and, held, the idle probe runs, so its reads of the children wait
     * at most the timeout), which writes nothing and takes no lock but {@code ACCESS SHARE}. Otherwise, or when the
     * serializer is busy, one transaction takes the serializer, passes the busy gate, the in-flight writer probe and
     * the idle probe again, and advances.
     *
     * @param ring the ring
     * @return the outcome; errors with the database failure for anything but a busy serializer or an uncommitted
     *     writer in the next slot
     */
    public Mono<RotateOutcome> rotate(Ring ring) {
        return Db.withConnection(connectionFactory, c -> Db.callUnderLockTimeout(c, lockTimeoutMillis,
                        idleTickCall.get(ring), row -> Optional.ofNullable(row.get(0, Long[].class)),
                        schema.ringKey(ring)))
                .flatMap(probe -> probe.map(values -> idleProbe(ring, values))
                        .filter(IdleProbe::idle)
                        .map(idle -> Mono.just(skippedIdle(idle.state())))
                        .orElseGet(() -> rotateInTransaction(ring)));
    }

    private Mono<RotateOutcome> rotateInTransaction(Ring ring) {
        return Db.inMaintenanceTransaction(connectionFactory, lockTimeoutMillis,
                        c -> RingReads.tryLockSerializer(c, schema, ring)
                        .flatMap(locked -> RingReads.state(c, schema, ring).flatMap(state -> {
                            int next = (state.cursor().slot() + 1) % state.slotCount();
                            if (!locked) {
                                return Mono.error(new EarlyExit(busy(next, RotationBlocker.SERIALIZER_BUSY), null));
                            }
                            return rotateLocked(c, ring, state, next);
                        })))
                .onErrorResume(EarlyExit.class, exit -> Mono.just(exit.outcome(RotateOutcome.class)));
    }

    private Mono<RotateOutcome> rotateLocked(Connection c, Ring ring, RingReads.RingState state, int next) {
        return busyFamilies(c, ring, next).flatMap(blockers -> {
            if (!blockers.isEmpty()) {
                return Mono.just(new RotateOutcome.SkippedBusy(next, blockers));
            }
            return probeInflightWriters(c, ring, next)
                    .then(idleProbe(c, ring))
                    // Under the serializer no rotation commits meanwhile: the probe reads the same cursor.
                    .flatMap(probe -> probe.idle()
                            ? Mono.just(skippedIdle(probe.state()))
                            : advance(c, ring, state.cursor().generation() + 1, next));
        });
    }

    private static RotateOutcome skippedIdle(RingReads.RingState state) {
        return new RotateOutcome.SkippedIdle(state.cursor().slot(), state.cursor().generation());
    }

    /** Busy gate: one blocker per non-empty family child of the next slot. */
    private Mono<Set<RotationBlocker>> busyFamilies(Connection c, Ring ring, int next) {
        List<Table> families = Schema.families(ring);
        String sql = families.stream()
                .map(family -> "EXISTS (SELECT 1 FROM " + schema.child(family, next) + ")")
                .collect(Collectors.joining(", ", "SELECT ", ""));
        return Db.queryOne(c, sql, row -> {
            Set<RotationBlocker> busy = EnumSet.noneOf(RotationBlocker.class);
            for (int i = 0; i < families.size(); i++) {
                if (Db.get(row, i, Boolean.class)) {
                    busy.add(BLOCKER_BY_FAMILY.get(families.get(i).sqlName()));
                }
            }
            return busy;
        });
    }

    /**
     * In-flight writer probe: {@code SHARE} conflicts with a writer's {@code ROW EXCLUSIVE} but not with readers,
     * and {@code NOWAIT} never queues. An uncommitted insert into the next slot makes the rotation busy.
     */
    private Mono<Void> probeInflightWriters(Connection c, Ring ring, int next) {
        String targets = Schema.insertTargets(ring).stream()
                .map(family -> schema.child(family, next))
                .collect(Collectors.joining(", "));
        return Db.execute(c, "LOCK TABLE " + targets + " IN SHARE MODE NOWAIT")
                .onErrorMap(SqlStates::isLockNotAvailable,
                        error -> new EarlyExit(busy(next, RotationBlocker.INFLIGHT_WRITES), error));
    }

    /** The idle probe's answer: the ring's cursor and slot count, and whether the ring is idle. */
    private record IdleProbe(RingReads.RingState state, boolean idle) {
    }

    /**
     * Idle gate, in one statement that also reads the cursor: every child of the ring's families is empty, so prune
     * has reclaimed every slot holding rows, and the current slot holds no dead rows that a rotation into an already
     * reclaimed next slot would let prune truncate. Without the second part a lease ring whose jobs all end between two
     * ticks (each lease deleted before the tick looks) would never rotate, and its one slot would keep every deleted
     * lease for vacuum to clean. One bigint[]: generation, slot, slot count, empty (1/0), the current and the next
     * slot's bytes.
     */
    private String buildIdleProbeSql(Ring ring) {
        return "SELECT ARRAY[x.generation, x.slot, x.slot_count, (" + isEmpty(ring) + ")::int, x.current_bytes,"
                + " x.next_bytes] FROM (SELECT r.generation, r.slot, s.slot_count, " + storageBytes(ring, "r.slot")
                + " AS current_bytes, " + storageBytes(ring, "(r.slot + 1) % s.slot_count") + " AS next_bytes FROM ("
                + schema.cursorQuery(ring) + ") r CROSS JOIN " + schema.ringState(ring) + " s) x";
    }

    private Mono<IdleProbe> idleProbe(Connection c, Ring ring) {
        return Db.queryOne(c, idleProbeSql.get(ring), row -> idleProbe(ring, row.get(0, Long[].class)));
    }

    private static IdleProbe idleProbe(Ring ring, Long[] values) {
        RingReads.RingState state = new RingReads.RingState(new RingCursor(ring, values[1].intValue(), values[0]),
                values[2].intValue());
        return new IdleProbe(state, values[3] == 1 && !(values[4] > 0 && values[5] == 0));
    }

    /**
     * Whether the ring's families hold no row, without scanning a parent (a scan plans and probes every child, each
     * tick). Rows are appended to every family but the leases and leave only with a truncate, so a family's children
     * hold none exactly when they have no pages: the children's sizes answer, from the catalog. A current slot with
     * pages already answers no, so a busy ring reads the sizes of two slots, not of every child (each size opens and
     * locks its relation). A child with pages but only rolled-back rows counts as not empty, which costs one rotation
     * and the prune of its slot, never a row. The lease ring's rows are not a measure of its work (leases are deleted
     * one by one, a claimed run's row outlives its attempts), so its tallies answer instead (schema steps 6 and 18):
     * no open attempt, and no claimed run left in any slot. The second part keeps the ring turning until every run is
     * pruned, which the queue slots of the runs' jobs wait for (prune gate G1).
     */
    private String isEmpty(Ring ring) {
        if (ring == Ring.LEASE) {
            return "(SELECT coalesce(sum(live), 0) = 0 AND coalesce(sum(runs), 0) = 0 FROM "
                    + schema.table(Table.LEASE_TALLIES) + ")";
        }
        String parents = Schema.families(ring).stream()
                .map(family -> Schema.literal(schema.table(family)) + "::regclass")
                .collect(Collectors.joining(", "));
        return "x.current_bytes = 0 AND (SELECT coalesce(sum(pg_relation_size(i.inhrelid)), 0) FROM pg_inherits i"
                + " WHERE i.inhparent IN (" + parents + ")) = 0";
    }

    /** The bytes of a slot's family children (a truncated or never written child has none); the slot is SQL. */
    private String storageBytes(Ring ring, String slot) {
        return Schema.families(ring).stream()
                .map(family -> "pg_relation_size(format('%I.%I', " + Schema.literal(schema.name()) + ", '"
                        + family.sqlName() + "_' || " + slot + ")::regclass)")
                .collect(Collectors.joining(" + ", "(", ")::bigint"));
    }

    /** Compare-and-swap on the ledger's generation key: a concurrent writer bypassing the serializer loses. */
    private Mono<RotateOutcome> advance(Connection c, Ring ring, long generation, int next) {
        return Db.update(c, "INSERT INTO " + schema.ledger(ring) + " (generation, slot) VALUES ($1, $2)"
                        + " ON CONFLICT (generation) DO NOTHING", generation, next)
                .map(rows -> rows == 1
                        ? new RotateOutcome.Rotated(next, generation)
                        : busy(next, RotationBlocker.LOST_CAS));
    }

    private static RotateOutcome busy(int next, RotationBlocker blocker) {
        return new RotateOutcome.SkippedBusy(next, Set.of(blocker));
    }
}
