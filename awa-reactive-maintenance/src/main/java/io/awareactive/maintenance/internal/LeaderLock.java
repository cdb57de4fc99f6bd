package io.awareactive.maintenance.internal;

import io.awareactive.core.internal.Db;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Leader election (design §7.1): a session-level {@code pg_try_advisory_lock} on the schema's leader key, taken on
 * one dedicated physical connection that is held for the whole leadership and closed when it ends, which frees the
 * lock even when the unlock fails. Never a pooled connection: the lock would travel back into the pool.
 */
final class LeaderLock {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderLock.class);

    private final ConnectionFactory leaderConnectionFactory;
    private final String leaderKey;

    LeaderLock(ConnectionFactory leaderConnectionFactory, String leaderKey) {
        this.leaderConnectionFactory = leaderConnectionFactory;
        this.leaderKey = leaderKey;
    }

    /** One attempt: the leadership when won, empty when another session holds the key. */
    Mono<EngineSql.Leadership> tryLead() {
        return Mono.from(leaderConnectionFactory.create()).flatMap(connection -> drained(Db.query(connection,
                        "SELECT pg_try_advisory_lock(hashtextextended($1, 0))",
                        row -> Db.get(row, 0, Boolean.class), leaderKey))
                .flatMap(won -> won
                        ? Mono.<EngineSql.Leadership>just(new Held(connection))
                        : close(connection).then(Mono.<EngineSql.Leadership>empty()))
                .onErrorResume(error -> close(connection).then(Mono.error(error)))
                .doOnCancel(() -> close(connection).subscribe()));
    }

    /**
     * The last row of a fully consumed result. Unlike {@code next()}, it never cancels the statement mid-response:
     * closing a connection while the driver still drains a cancelled response can make r2dbc-postgresql's close spin.
     */
    private static <T> Mono<T> drained(reactor.core.publisher.Flux<T> rows) {
        return rows.last();
    }

    private static Mono<Void> close(Connection connection) {
        return Mono.from(connection.close()).onErrorResume(error -> {
            LOG.debug("closing the leader connection failed", error);
            return Mono.empty();
        });
    }

    private final class Held implements EngineSql.Leadership {

        private final Connection connection;

        Held(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Mono<Void> check() {
            return drained(Db.query(connection, "SELECT 1", row -> 1)).then();
        }

        @Override
        public Mono<Void> release() {
            return drained(Db.query(connection, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", row -> 1,
                            leaderKey))
                    .then()
                    .onErrorResume(error -> {
                        LOG.debug("unlocking the leader key failed; closing the connection frees it", error);
                        return Mono.empty();
                    })
                    .then(close(connection));
        }
    }
}
