package io.awareactive.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short contending readers: each session repeatedly opens a transaction, runs the system's reader statement (which
 * takes {@code ACCESS SHARE} on the tables it reads), holds the transaction open for {@code hold}, commits, and
 * pauses. Against awa-reactive the statement scans the {@code ready_segments} parent, so every child of it stays
 * locked for the hold: exactly what a prune's timed {@code ACCESS EXCLUSIVE} wait on {@code ready_segments_k}
 * contends with. Against the baseline it scans the jobs table.
 */
final class ContendingReaders implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ContendingReaders.class);

    /** How many sessions, how long each holds its lock, how long it pauses between transactions. */
    record Settings(int sessions, Duration hold, Duration pause) {
    }

    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong transactions = new AtomicLong();
    private volatile boolean running = true;

    ContendingReaders(BenchDatabase database, String readerSql, Settings settings) {
        for (int i = 0; i < settings.sessions(); i++) {
            Thread thread = new Thread(() -> loop(database, readerSql, settings), "bench-reader-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
    }

    ContendingReaders start() {
        threads.forEach(Thread::start);
        return this;
    }

    private void loop(BenchDatabase database, String readerSql, Settings settings) {
        try (Connection connection = database.jdbc()) {
            connection.setAutoCommit(false);
            try (Statement reader = connection.createStatement();
                    PreparedStatement hold = connection.prepareStatement("SELECT pg_sleep(?)")) {
                hold.setDouble(1, settings.hold().toNanos() / 1e9);
                while (running) {
                    reader.executeQuery(readerSql).close();
                    hold.executeQuery().close();
                    connection.commit();
                    transactions.incrementAndGet();
                    if (!settings.pause().isZero()) {
                        TimeUnit.NANOSECONDS.sleep(settings.pause().toNanos());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException e) {
            if (running) {
                LOG.warn("contending reader stopped: {}", e.toString());
            }
        }
    }

    /** Reader transactions committed so far. */
    long transactions() {
        return transactions.get();
    }

    @Override
    public void close() {
        running = false;
        for (Thread thread : threads) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
