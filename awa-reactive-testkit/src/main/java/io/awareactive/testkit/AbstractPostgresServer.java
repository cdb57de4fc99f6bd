package io.awareactive.testkit;

import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.TimeZone;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** What every {@link PostgresServer} shares: URLs, connection factories, the JDBC side channel. */
abstract class AbstractPostgresServer implements PostgresServer {

    private volatile @Nullable String serverVersion;

    /**
     * Returns a configuration builder with the connection coordinates (host, port, credentials,
     * database) and nothing else.
     */
    PostgresqlConnectionConfiguration.Builder coordinates(String database) {
        PostgresqlConnectionConfiguration.Builder builder = PostgresqlConnectionConfiguration.builder()
                .host(host())
                .port(port())
                .username(username())
                .database(database);
        if (!password().isEmpty()) {
            builder.password(password());
        }
        return builder;
    }

    /** Extra JDBC URL parameters, each starting with {@code &}; none by default. */
    String extraJdbcParameters() {
        return "";
    }

    /** The scheme of {@link #r2dbcUrl(String)}. */
    String r2dbcScheme() {
        return "r2dbc:postgresql://";
    }

    /** The query string (without {@code ?}) appended to {@link #r2dbcUrl(String)}; none by default. */
    String r2dbcQuery() {
        return "";
    }

    @Override
    public final PostgresqlConnectionFactory connectionFactory(String database) {
        return connectionFactory(database, builder -> { });
    }

    @Override
    public final PostgresqlConnectionFactory connectionFactory(
            String database, Consumer<PostgresqlConnectionConfiguration.Builder> customizer) {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(customizer, "customizer");
        PostgresqlConnectionConfiguration.Builder builder = coordinates(database)
                .applicationName(PostgresProviders.APPLICATION_NAME)
                .timeZone(TimeZone.getTimeZone(PostgresProviders.SESSION_TIME_ZONE));
        customizer.accept(builder);
        return new PostgresqlConnectionFactory(builder.build());
    }

    @Override
    public final String r2dbcUrl(String database) {
        Objects.requireNonNull(database, "database");
        StringBuilder url = new StringBuilder(r2dbcScheme()).append(encode(username()));
        if (!password().isEmpty()) {
            url.append(':').append(encode(password()));
        }
        url.append('@').append(hostAndPort()).append('/').append(encode(database));
        String query = r2dbcQuery();
        if (!query.isEmpty()) {
            url.append('?').append(query);
        }
        return url.toString();
    }

    @Override
    public final String jdbcUrl(String database) {
        Objects.requireNonNull(database, "database");
        StringBuilder url = new StringBuilder("jdbc:postgresql://").append(hostAndPort())
                .append('/').append(encode(database))
                .append("?user=").append(encode(username()));
        if (!password().isEmpty()) {
            url.append("&password=").append(encode(password()));
        }
        url.append("&ApplicationName=").append(encode(PostgresProviders.APPLICATION_NAME));
        url.append(extraJdbcParameters());
        return url.toString();
    }

    @Override
    public final Connection openJdbc(String database) throws SQLException {
        Connection connection = DriverManager.getConnection(jdbcUrl(database));
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET TimeZone = '" + PostgresProviders.SESSION_TIME_ZONE + "'");
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return connection;
    }

    @Override
    public String serverVersion() {
        String version = serverVersion;
        if (version == null) {
            version = queryServerVersion();
            serverVersion = version;
        }
        return version;
    }

    private String queryServerVersion() {
        try (Connection connection = openJdbc(database());
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW server_version")) {
            if (!rs.next()) {
                throw new IllegalStateException("SHOW server_version returned no row");
            }
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the version of PostgreSQL at " + hostAndPort(), e);
        }
    }

    final String hostAndPort() {
        String host = host();
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
            host = '[' + host + ']';
        }
        return host + ':' + port();
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + '{' + username() + '@' + hostAndPort() + '/' + database() + '}';
    }
}
