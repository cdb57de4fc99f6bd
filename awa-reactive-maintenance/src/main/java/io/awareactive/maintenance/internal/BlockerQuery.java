package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.internal.Db;
import io.awareactive.core.internal.Schema;
import io.awareactive.core.internal.Table;
import io.awareactive.maintenance.LockHolder;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * Blocker diagnostics (design §6.4): one query joining {@code pg_locks} to {@code pg_stat_activity} for the
 * sessions holding a granted lock on a slot's children, on the ring's slot table (a slot row locked
 * {@code FOR UPDATE} shows as a relation lock there), or on the ring's serializer key.
 */
final class BlockerQuery {

    private final ConnectionFactory connectionFactory;
    private final Schema schema;

    BlockerQuery(ConnectionFactory connectionFactory, Schema schema) {
        this.connectionFactory = connectionFactory;
        this.schema = schema;
    }

    Mono<List<LockHolder>> holders(Ring ring, int slot) {
        List<String> relations = new ArrayList<>();
        for (Table family : Schema.families(ring)) {
            relations.add(schema.child(family, slot));
        }
        relations.add(schema.ringSlots(ring));
        // The names are built from a validated schema and fixed family names; regclass casts resolve them.
        String oids = relations.stream()
                .map(name -> Schema.literal(name) + "::regclass")
                .collect(Collectors.joining(", "));
        String sql = "SELECT a.pid, a.application_name, a.backend_xmin::text, a.state,"
                + " EXTRACT(EPOCH FROM (clock_timestamp() - a.xact_start))::float8, a.wait_event, left(a.query, $2)"
                + " FROM pg_stat_activity a"
                + " WHERE a.pid <> pg_backend_pid()"
                + " AND a.pid IN (SELECT l.pid FROM pg_locks l"
                + " WHERE l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND ((l.locktype = 'relation' AND l.relation IN (" + oids + "))"
                + " OR (l.locktype = 'advisory' AND l.objsubid = 1"
                + " AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended($1, 0))))"
                + " ORDER BY a.pid";
        return Db.withConnection(connectionFactory, c -> Db.query(c, sql, row -> {
            String xmin = row.get(2, String.class);
            Double age = row.get(4, Double.class);
            return new LockHolder(Db.get(row, 0, Integer.class), row.get(1, String.class),
                    xmin == null ? null : Long.valueOf(xmin), row.get(3, String.class),
                    age == null ? null : Duration.ofNanos((long) (age * 1e9)), row.get(5, String.class),
                    row.get(6, String.class));
        }, schema.ringKey(ring), LockHolder.MAX_QUERY_LENGTH).collectList());
    }
}
