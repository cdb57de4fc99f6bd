package io.awareactive.testkit;

import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Blocking R2DBC helpers for tests (they run on the JUnit thread, never on an event loop). */
final class R2dbc {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private R2dbc() {
    }

    /** Runs {@code sql} on a new connection and returns the first column of the single row. */
    static <T> T queryOne(PostgresqlConnectionFactory factory, String sql, Class<T> type) {
        T value = Mono.usingWhen(factory.create(),
                connection -> connection.createStatement(sql).execute()
                        .flatMap(result -> result.map((row, metadata) -> row.get(0, type)))
                        .single(),
                connection -> connection.close())
                .block(TIMEOUT);
        if (value == null) {
            throw new AssertionError("no value from " + sql);
        }
        return value;
    }

    /** Runs statements in order on one new connection. */
    static void execute(PostgresqlConnectionFactory factory, String... sql) {
        Mono.usingWhen(factory.create(),
                connection -> Flux.fromArray(sql)
                        .concatMap(each -> connection.createStatement(each).execute()
                                .flatMap(result -> result.getRowsUpdated()))
                        .then(),
                connection -> connection.close())
                .block(TIMEOUT);
    }
}
