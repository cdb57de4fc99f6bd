package io.awareactive.testkit;

import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a test class gets from {@link PostgresExtension}: a server, a database on it and a unique schema
 * name, plus small helpers for fixtures (JDBC side channel, extra databases and roles).
 *
 * <p>The schema named by {@link #schema()} is not created: tests create what they need in it. When the test
 * class finishes, the extension drops the schemas, databases and roles this object handed out (best effort,
 * with a lock timeout, so that a leaked connection cannot hang the run). Thread-safe.
 */
public final class TestDatabase {

    private static final Logger LOG = LoggerFactory.getLogger(TestDatabase.class);

    private final PostgresServer server;
    private final String database;
    private final String base;
    private final String schema;
    private final List<String> schemas = new CopyOnWriteArrayList<>();
    private final Shared shared;

    /** State shared by a test database and the databases created from it (roles are server-wide). */
    private static final class Shared {
        final List<String> databases = new CopyOnWriteArrayList<>();
        final Map<String, String> rolePasswords = new ConcurrentHashMap<>();
        final List<String> roles = new CopyOnWriteArrayList<>();
    }

    private TestDatabase(PostgresServer server, String database, String base, Shared shared) {
        this.server = server;
        this.database = database;
        this.base = base;
        this.shared = shared;
        this.schema = newSchemaName();
    }

    /**
     * Creates a test database on the server's default database, for code that manages its own server (for
     * example a restart test's own embedded server). Names derive from {@code label}.
     *
     * @param server the server
     * @param label a label for the generated names, for example the test class's simple name
     * @return a new test database
     */
    public static TestDatabase of(PostgresServer server, String label) {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(label, "label");
        return new TestDatabase(server, server.database(), Names.base(label), new Shared());
    }

    /**
     * Returns the server.
     *
     * @return the server this database lives on
     */
    public PostgresServer server() {
        return server;
    }

    /**
     * Returns the database tests use: the server's default one, unless this object came from
     * {@link #newDatabase()}.
     *
     * @return the database name
     */
    public String database() {
        return database;
    }

    /**
     * Returns this test class's schema name: unique, lower case ({@code [a-z_][a-z0-9_]*}), at most 40
     * characters, derived from the class's simple name plus a random suffix, for example
     * {@code t_rotationintegrationtests_k3x9q2}. The schema does not exist yet.
     *
     * @return the schema name, the same on every call
     */
    public String schema() {
        return schema;
    }

    /**
     * Returns another unique schema name (not created), for tests needing several schemas.
     *
     * @return a new schema name, following the rules of {@link #schema()}
     */
    public String newSchemaName() {
        String name = Names.unique("t", base);
        schemas.add(name);
        return name;
    }

    /**
     * Creates a non-pooled R2DBC connection factory for {@link #database()}, as the server's user.
     *
     * @return a new connection factory
     */
    public PostgresqlConnectionFactory connectionFactory() {
        return server.connectionFactory(database);
    }

    /**
     * Creates a non-pooled R2DBC connection factory for {@link #database()} after letting the caller change
     * the configuration.
     *
     * @param customizer called with the pre-filled configuration builder before it is built
     * @return a new connection factory
     */
    public PostgresqlConnectionFactory connectionFactory(
            Consumer<PostgresqlConnectionConfiguration.Builder> customizer) {
        return server.connectionFactory(database, customizer);
    }

    /**
     * Opens a JDBC connection to {@link #database()} (auto-commit on). The caller closes it.
     *
     * @return a new open connection
     * @throws SQLException if the connection cannot be opened
     */
    public Connection openJdbc() throws SQLException {
        return server.openJdbc(database);
    }

    /**
     * Runs SQL statements, in order, over one fresh JDBC connection in auto-commit mode.
     *
     * @param sql the statements, one per argument
     * @throws IllegalStateException if a statement fails (the message names it) or no connection can be
     *     opened
     */
    public void execute(String... sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String each : sql) {
                try {
                    statement.execute(each);
                } catch (SQLException e) {
                    throw new IllegalStateException("SQL statement failed: " + each + " -- " + e.getMessage(), e);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("JDBC failure on database " + database + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs a query over a fresh JDBC connection and maps every row.
     *
     * @param <T> the type of the mapped rows
     * @param sql the query, with {@code ?} placeholders
     * @param mapper maps one row
     * @param params the values of the placeholders, in order (bound with {@code setObject})
     * @return the mapped rows, in order
     * @throws IllegalStateException if the query fails (the message names it)
     */
    public <T> List<T> query(String sql, RowMapper<T> mapper, @Nullable Object... params) {
        Objects.requireNonNull(mapper, "mapper");
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    rows.add(mapper.map(rs));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("SQL query failed: " + sql + " -- " + e.getMessage(), e);
        }
    }

    /**
     * Runs a query that returns exactly one row with one non-null integer column.
     *
     * @param sql the query, with {@code ?} placeholders
     * @param params the values of the placeholders, in order
     * @return the value of the single column
     * @throws IllegalStateException if the query fails or does not return exactly one non-null value
     */
    public long queryLong(String sql, @Nullable Object... params) {
        List<@Nullable Long> rows = query(sql, rs -> {
            long value = rs.getLong(1);
            return rs.wasNull() ? null : value;
        }, params);
        if (rows.size() != 1) {
            throw new IllegalStateException("Expected exactly one row but got " + rows.size() + ": " + sql);
        }
        Long value = rows.get(0);
        if (value == null) {
            throw new IllegalStateException("Expected a non-null value: " + sql);
        }
        return value;
    }

    /**
     * Creates a database with a unique name ({@code CREATE DATABASE}), for tests that change database-level
     * settings ({@code ALTER DATABASE}).
     *
     * @return a test database on the new database, with its own schema name
     * @throws IllegalStateException if the database cannot be created
     */
    public TestDatabase newDatabase() {
        String name = Names.unique("d", base);
        execute("CREATE DATABASE " + Names.quote(name));
        shared.databases.add(name);
        return new TestDatabase(server, name, base, shared);
    }

    /**
     * Creates a login role with a unique name and a generated password, and grants it the given roles. Roles
     * are server-wide: they can connect to every database that allows it.
     *
     * @param grantedRoles roles to grant to the new role, for example {@code pg_read_all_data}
     * @return the new role's name; its password is {@link #rolePassword(String)}
     * @throws IllegalStateException if the role cannot be created or a grant fails
     */
    public String newRole(String... grantedRoles) {
        String role = Names.unique("r", base);
        String password = Names.random(24);
        execute("CREATE ROLE " + Names.quote(role) + " LOGIN PASSWORD '" + password + "'");
        shared.rolePasswords.put(role, password);
        shared.roles.add(role);
        String[] grants = new String[grantedRoles.length];
        for (int i = 0; i < grantedRoles.length; i++) {
            grants[i] = "GRANT " + Names.quote(grantedRoles[i]) + " TO " + Names.quote(role);
        }
        if (grants.length > 0) {
            execute(grants);
        }
        return role;
    }

    /**
     * Returns the password of a role created with {@link #newRole(String...)} (by this object or by one it
     * is related to through {@link #newDatabase()}).
     *
     * @param role the role name
     * @return the role's password
     * @throws IllegalArgumentException if the role was not created by {@link #newRole(String...)}
     */
    public String rolePassword(String role) {
        String password = shared.rolePasswords.get(Objects.requireNonNull(role, "role"));
        if (password == null) {
            throw new IllegalArgumentException("Role '" + role + "' was not created with newRole()");
        }
        return password;
    }

    /**
     * Creates a non-pooled R2DBC connection factory for {@link #database()} that logs in as a role created
     * with {@link #newRole(String...)}.
     *
     * @param role the role name
     * @return a new connection factory
     * @throws IllegalArgumentException if the role was not created by {@link #newRole(String...)}
     */
    public PostgresqlConnectionFactory connectionFactoryAs(String role) {
        String password = rolePassword(role);
        return server.connectionFactory(database, builder -> builder.username(role).password(password));
    }

    private Connection connect() throws SQLException {
        return server.openJdbc(database);
    }

    /**
     * Drops what this object handed out: databases created with {@link #newDatabase()}, its schemas (if
     * they were created), and roles created with {@link #newRole(String...)}. Best effort: failures are
     * logged.
     */
    void dropCreatedObjects() {
        if (shared.databases.isEmpty() && shared.roles.isEmpty() && schemas.isEmpty()) {
            return;
        }
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET lock_timeout = '5s'");
            statement.execute("SET statement_timeout = '60s'");
            int version = connection.getMetaData().getDatabaseMajorVersion();
            for (String each : shared.databases) {
                dropQuietly(statement, "DROP DATABASE IF EXISTS " + Names.quote(each) + (version >= 13
                        ? " WITH (FORCE)" : ""));
            }
            for (String each : schemas) {
                dropQuietly(statement, "DROP SCHEMA IF EXISTS " + Names.quote(each) + " CASCADE");
            }
            for (String each : shared.roles) {
                if (roleExists(connection, each) && dropQuietly(statement, "DROP OWNED BY " + Names.quote(each))) {
                    dropQuietly(statement, "DROP ROLE IF EXISTS " + Names.quote(each));
                }
            }
        } catch (SQLException e) {
            LOG.warn("Could not clean up test objects of {} in database {}: {}", schema, database, e.getMessage());
        }
    }

    private static boolean roleExists(Connection connection, String role) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
            statement.setString(1, role);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static boolean dropQuietly(Statement statement, String sql) {
        try {
            statement.execute(sql);
            return true;
        } catch (SQLException e) {
            LOG.warn("Test clean-up failed: {} -- {}", sql, e.getMessage());
            return false;
        }
    }

    @Override
    public String toString() {
        return "TestDatabase{database=" + database + ", schema=" + schema + ", server=" + server + '}';
    }
}
