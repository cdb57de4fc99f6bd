package io.awareactive.core.internal;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.util.Arrays;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Small R2DBC helpers: connection and transaction scopes, statements with positional binds ({@code $1, $2, ...}),
 * and result draining. Every {@code Result} is consumed completely, because errors surface only on consumption.
 */
public final class Db {

    private static final Logger LOG = LoggerFactory.getLogger(Db.class);

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
     * <p>A cancellation at any point, even while the {@code BEGIN} is still in flight, ends the transaction: the
     * cancel path sends {@code ROLLBACK} as a statement whenever a {@code BEGIN} was sent. The driver's
     * {@code rollbackTransaction()} would be skipped there, because it decides from the transaction status of the last
     * reply, which stays idle until the {@code BEGIN} has answered; the connection would then go back to the pool open
     * in a transaction, and the next borrower's statements (an auto-commit claim, say) would run inside it and keep
     * their locks.
     *
     * @param connection the connection, not in a transaction
     * @param body the work
     * @param <T> the result type
     * @return the body's result
     */
    public static <T> Mono<T> inTransaction(Connection connection, Function<Connection, Mono<T>> body) {
        return Mono.defer(() -> {
            Begin begin = new Begin();
            return Mono.usingWhen(
                    Mono.just(connection),
                    c -> begin.send(c).then(Mono.defer(() -> body.apply(c))),
                    Connection::commitTransaction,
                    // An error comes after the BEGIN answered (or is its failure), so the driver's status is current.
                    (c, error) -> c.rollbackTransaction(),
                    c -> begin.cancel() ? rollbackOnCancel(c) : Mono.empty());
        });
    }

    /**
     * Orders a transaction's {@code BEGIN} and its cancel's {@code ROLLBACK} on the connection, which answers
     * requests in the order they were queued: the cancel may come from another thread while the {@code BEGIN} is
     * being queued. Either the {@code BEGIN} is queued first and the cancel then queues a {@code ROLLBACK} behind it,
     * or the cancel comes first and no {@code BEGIN} is sent.
     */
    private static final class Begin {

        private boolean sent;
        private boolean cancelled;

        /** Queues the BEGIN (subscribed under the lock) unless cancelled; completes when it has answered. */
        synchronized Mono<Void> send(Connection connection) {
            if (cancelled) {
                return Mono.never();
            }
            sent = true;
            // A cancel must not stop the BEGIN half-queued: its answer is awaited apart from the subscription.
            return Mono.fromFuture(Mono.from(connection.beginTransaction()).toFuture(), true);
        }

        /** Marks the scope cancelled; whether a BEGIN was queued that a ROLLBACK has to follow. */
        synchronized boolean cancel() {
            cancelled = true;
            return sent;
        }
    }

    /**
     * Queues {@code ROLLBACK} unconditionally (only a warning when no transaction is open): it runs after the
     * {@code BEGIN} or statement still in flight and before anything a later borrower of the connection sends.
     */
    private static Mono<Void> rollbackOnCancel(Connection connection) {
        return execute(connection, "ROLLBACK").onErrorResume(error -> {
            // A broken connection: the transaction ended with it, and the pool's validation drops it.
            LOG.debug("rollback after a cancelled transaction failed", error);
            return Mono.empty();
        });
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
     * Runs {@code body} in a maintenance transaction ({@link #inTransaction(ConnectionFactory, Function)}) whose first
     * statement sets, for that transaction only ({@code set_config(..., true)}, the bindable {@code SET LOCAL}), the
     * lock timeout and {@code plan_cache_mode = force_generic_plan}; both revert at COMMIT or ROLLBACK and never leak
     * into a pooled connection. The plan mode lets a maintenance statement with binds, which the driver prepares once
     * per connection, keep its plan until a truncate of a table it reads invalidates it: left to choose, PostgreSQL
     * planned the prune gates afresh on every call (a custom plan looks cheaper for statements over partitioned
     * parents).
     *
     * @param factory the connection factory
     * @param timeoutMillis the effective lock timeout in whole milliseconds
     * @param body the work, after the settings
     * @param <T> the result type
     * @return the body's result
     */
    public static <T> Mono<T> inMaintenanceTransaction(ConnectionFactory factory, long timeoutMillis,
            Function<Connection, Mono<T>> body) {
        return inTransaction(factory, c -> query(c, "SELECT set_config('lock_timeout', $1, true),"
                        + " set_config('plan_cache_mode', 'force_generic_plan', true)", row -> 1, timeoutMillis + "ms")
                .then(Mono.defer(() -> body.apply(c))));
    }

    /**
     * Calls one function (or evaluates one expression) in one autocommit statement under a transaction-local lock
     * timeout: the statement is its own transaction, so a tick needs no {@code BEGIN}, {@code set_config} or
     * {@code COMMIT} of its own. The timeout is set by a materialised CTE, which runs before the call (the call reads
     * it), so every lock the call's functions take waits at most the timeout; tables the statement itself names are
     * locked as it starts, before the timeout (a function call names none). The timeout reverts when the statement
     * ends.
     *
     * @param connection a connection in autocommit
     * @param timeoutMillis the timeout in whole milliseconds
     * @param call the call, for example {@code "s".promote_jobs($1)}; its binds are {@code binds}, and the timeout is
     *     bound after them
     * @param mapper maps the one row
     * @param binds the call's binds
     * @param <T> the result type
     * @return the mapped row
     */
    public static <T> Mono<T> callUnderLockTimeout(Connection connection, long timeoutMillis, String call,
            Function<Readable, T> mapper, @Nullable Object... binds) {
        Object[] all = Arrays.copyOf(binds, binds.length + 1);
        all[binds.length] = timeoutMillis + "ms";
        return queryOne(connection, "WITH timeout AS MATERIALIZED (SELECT set_config('lock_timeout', $" + all.length
                + ", true)) SELECT " + call + " FROM timeout", mapper, all);
    }
}
