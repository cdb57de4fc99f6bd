package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import io.r2dbc.spi.Result;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A transaction cancelled at any point gives its pooled connection back with no transaction open and no lock held,
 * so the next borrower's auto-commit statements commit. A pool of one connection makes that borrower the same
 * session. The cancel arrives while the session waits on a gate: a table the test holds {@code ACCESS EXCLUSIVE} on
 * in its own JDBC transaction, so no timing decides where the cancel lands.
 */
@AwaPostgresTest
final class DbCancellationIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String gate;
    private ConnectionPool pool;

    DbCancellationIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void createPoolOfOneAndGate() {
        gate = "\"" + db.newSchemaName() + "\".gate";
        db.execute("CREATE SCHEMA " + gate.substring(0, gate.indexOf('.')), "CREATE TABLE " + gate + " (id int)");
        pool = new ConnectionPool(ConnectionPoolConfiguration.builder(db.connectionFactory())
                .initialSize(0).maxSize(1).maxAcquireTime(WAIT).build());
    }

    @AfterEach
    void disposePool() {
        pool.dispose();
    }

    /**
     * The driver's own rollback decides from the last reply's transaction status, still idle while the BEGIN waits
     * behind an earlier statement: before the fix it skipped the rollback, and the BEGIN then opened a transaction
     * on the pooled connection that the next borrower ran inside.
     */
    @Test
    void shouldEndATransactionCancelledWhileItsBeginIsStillInFlight() throws SQLException {
        // Each connection first runs a gated read without waiting for it, so the BEGIN queues behind it.
        ConnectionFactory gatedFirst = new ConnectionFactory() {
            @Override
            public Mono<Connection> create() {
                return pool.create().doOnNext(c -> Flux.from(c.createStatement("SELECT count(*) FROM " + gate)
                        .execute()).flatMap(Result::getRowsUpdated).subscribe());
            }

            @Override
            public ConnectionFactoryMetadata getMetadata() {
                return pool.getMetadata();
            }
        };
        cancelWhileWaitingOnTheGate(Db.inTransaction(gatedFirst, c -> Mono.never()));

        assertTheNextBorrowerRunsInAutoCommitHoldingNothing();
    }

    /** A cancel while a statement of the body waits: the rollback ends the transaction and its locks. */
    @Test
    void shouldEndATransactionCancelledWhileItsBodyWaits() throws SQLException {
        cancelWhileWaitingOnTheGate(Db.inTransaction(pool, c -> Db.execute(c, "SELECT pg_advisory_xact_lock(1)")
                .then(Db.execute(c, "LOCK TABLE " + gate + " IN ROW EXCLUSIVE MODE"))));

        assertTheNextBorrowerRunsInAutoCommitHoldingNothing();
    }

    /** Holds the gate, subscribes, cancels once the pooled session waits on the gate, then opens the gate. */
    private void cancelWhileWaitingOnTheGate(Mono<?> transaction) throws SQLException {
        try (java.sql.Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("LOCK TABLE " + gate + " IN ACCESS EXCLUSIVE MODE");
            Disposable running = transaction.subscribe();
            await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_stat_activity WHERE"
                    + " wait_event_type = 'Lock' AND datname = current_database() AND query LIKE '%' || ? || '%'",
                    gate) == 1);
            running.dispose();
            holder.commit();
        }
    }

    private void assertTheNextBorrowerRunsInAutoCommitHoldingNothing() {
        Integer pid = Db.withConnection(pool, c -> Db.queryOne(c, "SELECT pg_backend_pid()",
                row -> Db.get(row, 0, Integer.class))).block(WAIT);
        assertThat(pid).isNotNull();
        // Its statement answered and the connection went back: inside a leftover transaction it would still be open.
        assertThat(db.query("SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = ?", rs -> rs.getString(1),
                pid)).containsExactly("idle: SELECT pg_backend_pid()");
        assertThat(db.queryLong("SELECT count(*) FROM pg_locks WHERE pid = ? AND locktype <> 'virtualxid'", pid))
                .isZero();
    }
}
