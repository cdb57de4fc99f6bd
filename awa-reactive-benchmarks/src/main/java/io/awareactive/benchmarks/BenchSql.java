package io.awareactive.benchmarks;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The benchmarks' own SQL plumbing on R2DBC, so they depend on awa-reactive's public API only: each call borrows one
 * connection from the factory for one statement (autocommit) and returns it when the statement's results are read.
 * Non-blocking; binds are positional ({@code $1}, {@code $2}, ...) and must not be null.
 */
final class BenchSql {

    private BenchSql() {
    }

    /**
     * Runs a query and maps each row.
     *
     * @param factory the connections
     * @param sql the statement
     * @param mapper maps one row
     * @param binds the positional binds
     * @param <T> the mapped type
     * @return the mapped rows
     */
    static <T> Flux<T> rows(ConnectionFactory factory, String sql, Function<Readable, T> mapper, Object... binds) {
        return Flux.usingWhen(factory.create(),
                connection -> Flux.from(bound(connection, sql, binds).execute())
                        .concatMap(result -> result.map(mapper::apply)),
                Connection::close);
    }

    /**
     * Runs a statement (or, without binds, a script of several) and sums the rows it changed.
     *
     * @param factory the connections
     * @param sql the statement
     * @param binds the positional binds
     * @return the rows changed
     */
    static Mono<Long> update(ConnectionFactory factory, String sql, Object... binds) {
        return Flux.usingWhen(factory.create(),
                connection -> Flux.from(bound(connection, sql, binds).execute()).concatMap(Result::getRowsUpdated),
                Connection::close).reduce(0L, Long::sum);
    }

    /**
     * A non-null column value.
     *
     * @param row the row
     * @param index the zero-based column
     * @param type the Java type
     * @param <T> the type
     * @return the value
     * @throws IllegalStateException when the column is NULL
     */
    static <T> T value(Readable row, int index, Class<T> type) {
        T value = row.get(index, type);
        if (value == null) {
            throw new IllegalStateException("column " + index + " is NULL");
        }
        return value;
    }

    private static Statement bound(Connection connection, String sql, Object... binds) {
        Statement statement = connection.createStatement(sql);
        for (int i = 0; i < binds.length; i++) {
            statement.bind(i, binds[i]);
        }
        return statement;
    }
}
