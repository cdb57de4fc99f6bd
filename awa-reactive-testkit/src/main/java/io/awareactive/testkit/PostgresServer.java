package io.awareactive.testkit;

import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * A PostgreSQL server that tests connect to: embedded, external or a Testcontainers container
 * (see {@link PostgresProviders}).
 *
 * <p>Connection factories created here are not pooled, use the application name
 * {@value PostgresProviders#APPLICATION_NAME} and the session time zone
 * {@value PostgresProviders#SESSION_TIME_ZONE} (a zone that is not UTC, to expose time-zone bugs).
 * Implementations are thread-safe.
 */
public interface PostgresServer extends AutoCloseable {

    /**
     * Returns the host name tests connect to.
     *
     * @return the host name, for example {@code localhost}
     */
    String host();

    /**
     * Returns the TCP port tests connect to.
     *
     * @return the port
     */
    int port();

    /**
     * Returns the user name tests connect as (a superuser for the embedded server).
     *
     * @return the user name
     */
    String username();

    /**
     * Returns the password of {@link #username()}.
     *
     * @return the password, {@code ""} when the server does not need one
     */
    String password();

    /**
     * Returns the default database, the one tests use unless they create their own.
     *
     * @return the database name, for example {@code postgres}
     */
    String database();

    /**
     * Returns the version the server reports ({@code SHOW server_version}).
     *
     * @return the server version, for example {@code 17.6}
     * @throws IllegalStateException if the server cannot be queried
     */
    String serverVersion();

    /**
     * Returns an R2DBC URL for a database of this server:
     * {@code r2dbc:postgresql://user[:password]@host:port/database}, with user and password
     * URL-encoded.
     *
     * @param database the database name
     * @return the R2DBC URL
     */
    String r2dbcUrl(String database);

    /**
     * Returns a JDBC URL for a database of this server; it carries the user and password as URL
     * parameters, so that {@code DriverManager.getConnection(url)} works as is.
     *
     * @param database the database name
     * @return the JDBC URL
     */
    String jdbcUrl(String database);

    /**
     * Creates a non-pooled R2DBC connection factory for a database of this server.
     *
     * @param database the database name
     * @return a new connection factory
     */
    PostgresqlConnectionFactory connectionFactory(String database);

    /**
     * Creates a non-pooled R2DBC connection factory for a database of this server, after letting
     * the caller change the configuration (for example the user, statement timeout or options).
     *
     * @param database the database name
     * @param customizer called with the pre-filled configuration builder before it is built
     * @return a new connection factory
     */
    PostgresqlConnectionFactory connectionFactory(
            String database, Consumer<PostgresqlConnectionConfiguration.Builder> customizer);

    /**
     * Opens a JDBC connection to a database of this server (auto-commit on), as a side channel for
     * fixtures, assertions and lock holders. The caller closes it.
     *
     * @param database the database name
     * @return a new open connection
     * @throws SQLException if the connection cannot be opened
     */
    Connection openJdbc(String database) throws SQLException;

    /**
     * Stops the servers this provider started (embedded server, container); does nothing for an
     * external server. Idempotent.
     */
    @Override
    void close();
}
