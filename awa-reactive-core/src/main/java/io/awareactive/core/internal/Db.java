package io.awareactive.core.internal;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Small R2DBC helpers: connection and transaction scopes, statements with positional binds ({@code $1, $2, ...}),
 * and result draining. Every {@code Result} is consumed completely, because errors surface only on consumption.
 */
public final class Db {

    private Db() {
    }

    /**
     * A typed SQL NULL for a bind position.
     *
     * @param type the Java type of the column
     * @return a null marker
     */
    public static NullBind nullOf(Class<?> type) {
        return new NullBind(type);
    }

    /**
     * A typed SQL NULL bind marker.
     *
     * @param type the Java type of the column
     */
    public record NullBind(Class<?> type) {
    }

    /**
     * Runs {@code body} on a connection from {@code factory}, closing (returning) it whatever happens.
     *
     * @param factory the connection factory
     * @param body the work
     * @param <T> the result type
     * @return the body's result
     */
    public static <T> Mono<T> withConnection(ConnectionFactory factory, Function<Connection, Mono<T>> body) {
        return Mono.usingWhen(Mono.from(factory.create()), body, Connection::close);
    }

    /**
     * Runs {@code body} in a transaction on a connection from {@code factory}: COMMIT when it completes, ROLLBACK
     * when it errors or is cancelled; the error then propagates. Map errors to outcomes <em>outside</em> this scope
     * so the rollback path, not a COMMIT of an aborted transaction, ends it.
     *
     * @param factory the connection factory
     * @param body the work
     * @param <T> the result type
     * @return the body's result
     */
    public static <T> Mono<T> inTransaction(ConnectionFactory factory, Function<Connection, Mono<T>> body) {
        return withConnection(factory, connection -> inTransaction(connection, body));
    }

    /**
     * Runs {@code body} in a transaction on the given connection (see {@link #inTransaction(ConnectionFactory,
     * Function)}).
     *
     * @param connection the connection, not in a transaction
     * @param body the work
     * @param <T> the result type
     * @return the body's result
     */
    public static <T> Mono<T> inTransaction(Connection connection, Function<Connection, Mono<T>> body) {
        return Mono.usingWhen(
                Mono.from(connection.beginTransaction()).thenReturn(connection),
                body,
                Connection::commitTransaction,
                (c, error) -> c.rollbackTransaction(),
                Connection::rollbackTransaction);
    }

    /**
     * Creates a statement and binds {@code binds} to {@code $1, $2, ...}; a {@link NullBind} binds a typed NULL.
     *
     * @param connection the connection
     * @param sql the SQL
     * @param binds the values
     * @return the statement
     */
    public static Statement statement(Connection connection, String sql, @Nullable Object... binds) {
        Statement statement = connection.createStatement(sql);
        for (int i = 0; i < binds.length; i++) {
            Object value = binds[i];
            if (value == null) {
                throw new IllegalArgumentException("bind $" + (i + 1) + " is null; use Db.nullOf(type)");
            }
            if (value instanceof NullBind nullBind) {
                statement.bindNull(i, nullBind.type());
            } else {
                statement.bind(i, value);
            }
        }
        return statement;
    }

    /**
     * Executes a statement and returns the number of rows it changed (0 for statements that report none).
     *
     * @param connection the connection
     * @param sql the SQL
     * @param binds the values for {@code $1, $2, ...}
     * @return the row count
     */
    public static Mono<Long> update(Connection connection, String sql, @Nullable Object... binds) {
        return Flux.from(statement(connection, sql, binds).execute())
                .concatMap(Result::getRowsUpdated)
                .reduce(0L, Long::sum);
    }

    /**
     * Executes SQL without binds (DDL, {@code LOCK TABLE}, several statements at once) and drains every result.
     *
     * @param connection the connection
     * @param sql the SQL
     * @return completion
     */
    public static Mono<Void> execute(Connection connection, String sql) {
        return Flux.from(connection.createStatement(sql).execute())
                .concatMap(Result::getRowsUpdated)
                .then();
    }

    /**
     * Executes a query and maps each row.
     *
     * @param connection the connection
     * @param sql the SQL
     * @param mapper maps a row; must not return null
     * @param binds the values for {@code $1, $2, ...}
     * @param <T> the row type
     * @return the rows
     */
    public static <T> Flux<T> query(Connection connection, String sql, Function<Readable, T> mapper,
            @Nullable Object... binds) {
        return Flux.from(statement(connection, sql, binds).execute())
                .concatMap(result -> result.map(mapper::apply));
    }

    /**
     * Executes a query expected to return at most one row.
     *
     * @param connection the connection
     * @param sql the SQL
     * @param mapper maps the row; must not return null
     * @param binds the values for {@code $1, $2, ...}
     * @param <T> the row type
     * @return the row, or empty
     */
    public static <T> Mono<T> queryOne(Connection connection, String sql, Function<Readable, T> mapper,
            @Nullable Object... binds) {
        return query(connection, sql, mapper, binds).next();
    }

    /**
     * Reads a non-null column.
     *
     * @param row the row
     * @param index the column index, from 0
     * @param type the Java type
     * @param <T> the type
     * @return the value
     * @throws IllegalStateException when the column is NULL
     */
    public static <T> T get(Readable row, int index, Class<T> type) {
        T value = row.get(index, type);
        if (value == null) {
            throw new IllegalStateException("column " + index + " is unexpectedly NULL");
        }
        return value;
    }

    /**
     * Sets the prune lock timeout for the current transaction only ({@code set_config(..., true)}, the bindable
     * {@code SET LOCAL}); it reverts at COMMIT or ROLLBACK and never leaks into a pooled connection.
     *
     * @param connection a connection inside a transaction
     * @param timeoutMillis the effective timeout in whole milliseconds
     * @return completion
     */
    public static Mono<Void> setLocalLockTimeout(Connection connection, long timeoutMillis) {
        return query(connection, "SELECT set_config('lock_timeout', $1, true)", row -> 1, timeoutMillis + "ms")
                .then();
    }
}
