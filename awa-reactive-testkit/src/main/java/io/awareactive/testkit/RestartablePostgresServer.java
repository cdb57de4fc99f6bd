package io.awareactive.testkit;

import java.nio.file.Path;

/**
 * A server the test controls: it can be stopped and started again on the same data directory and
 * port, to test behaviour when PostgreSQL restarts. Returned by {@link PostgresProviders#embedded()}.
 */
public interface RestartablePostgresServer extends PostgresServer {

    /**
     * Stops the server and waits until it is down. Open connections are broken.
     *
     * @param immediate {@code false} for a fast shutdown ({@code pg_ctl stop -m fast}: sessions are
     *     terminated, a shutdown checkpoint is written), {@code true} for an immediate shutdown
     *     ({@code -m immediate}: crash-like, the next start runs crash recovery)
     * @throws IllegalStateException if the server is closed or {@code pg_ctl} fails
     */
    void stop(boolean immediate);

    /**
     * Starts the server again on the same data directory and port and waits until it accepts
     * connections. Does nothing if it is running.
     *
     * @throws IllegalStateException if the server is closed or does not start
     */
    void start();

    /**
     * Tells whether the server is running (started and not stopped or closed).
     *
     * @return {@code true} while the server is running
     */
    boolean isRunning();

    /**
     * Returns the data directory of the server.
     *
     * @return the absolute path of the data directory
     */
    Path dataDirectory();
}
