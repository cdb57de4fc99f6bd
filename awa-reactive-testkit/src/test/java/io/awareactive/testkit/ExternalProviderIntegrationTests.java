package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The external provider, pointed at a second embedded server that this class starts. */
final class ExternalProviderIntegrationTests {

    private static RestartablePostgresServer second;
    private static String marker;

    @BeforeAll
    static void startSecondServer() throws Exception {
        second = PostgresProviders.embedded();
        marker = "marker-" + Names.randomSuffix();
        try (Connection connection = second.openJdbc("postgres");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE awa_marker (token text NOT NULL)");
            statement.execute("INSERT INTO awa_marker VALUES ('" + marker + "')");
        }
    }

    @AfterAll
    static void stopSecondServer() {
        if (second != null) {
            second.close();
        }
    }

    @Test
    void shouldConnectToTheServerTheUrlNames() throws Exception {
        PostgresServer external = PostgresProviders.external(second.r2dbcUrl("postgres"));

        assertThat(external.host()).isEqualTo(second.host());
        assertThat(external.port()).isEqualTo(second.port());
        assertThat(external.username()).isEqualTo("postgres");
        assertThat(external.password()).isEmpty();
        assertThat(external.database()).isEqualTo("postgres");
        SupportedVersions.assertExpected(external, external.serverVersion());
        assertThat(R2dbc.queryOne(external.connectionFactory("postgres"), "SELECT inet_server_port()", Integer.class))
                .isEqualTo(second.port());
        assertThat(R2dbc.queryOne(external.connectionFactory("postgres"), "SELECT token FROM awa_marker",
                String.class)).isEqualTo(marker);
        try (Connection connection = external.openJdbc("postgres");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT token, inet_server_port() FROM awa_marker")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(marker);
            assertThat(rs.getInt(2)).isEqualTo(second.port());
        }
        external.close();
        assertThat(second.isRunning()).as("closing an external server leaves it running").isTrue();
        assertThat(R2dbc.queryOne(second.connectionFactory("postgres"), "SELECT 1", Integer.class)).isEqualTo(1);
    }

    @Test
    void shouldCreateAndDropDatabasesOnTheExternalServer() {
        PostgresServer external = PostgresProviders.external(second.r2dbcUrl("postgres"));
        TestDatabase database = TestDatabase.of(external, "ExternalProviderIntegrationTests");
        TestDatabase other = database.newDatabase();

        assertThat(R2dbc.queryOne(external.connectionFactory(other.database()), "SELECT current_database()",
                String.class)).isEqualTo(other.database());
        assertThat(databaseNames()).contains(other.database());
        database.dropCreatedObjects();
        assertThat(databaseNames()).doesNotContain(other.database());
    }

    private static List<String> databaseNames() {
        return TestDatabase.of(second, "names").query("SELECT datname FROM pg_database", rs -> rs.getString(1));
    }

    @Test
    void shouldUseTheUrlFromTheEnvironment() {
        String url = second.r2dbcUrl("postgres");
        PostgresServer fromProperty = PostgresProviders.fromSettings(
                Map.of(PostgresProviders.URL_PROPERTY, url)::get, name -> null);
        PostgresServer fromEnvironment = PostgresProviders.fromSettings(
                name -> null, Map.of(PostgresProviders.URL_ENV, url)::get);

        assertThat(R2dbc.queryOne(fromProperty.connectionFactory("postgres"), "SELECT inet_server_port()",
                Integer.class)).isEqualTo(second.port());
        assertThat(R2dbc.queryOne(fromEnvironment.connectionFactory("postgres"), "SELECT token FROM awa_marker",
                String.class)).isEqualTo(marker);
    }

    @Test
    void shouldRejectABadUrlWithTheRule() {
        assertThatThrownBy(() -> PostgresProviders.external("postgresql://localhost:" + second.port() + "/postgres"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("r2dbc:postgresql://user[:password]@host[:port]/database");
        assertThatThrownBy(() -> PostgresProviders.fromSettings(
                Map.of(PostgresProviders.URL_PROPERTY, "r2dbc:postgresql://localhost/postgres")::get, name -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the user is missing")
                .hasMessageContaining("r2dbc:postgresql://user[:password]@host[:port]/database");
    }
}
