package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@AwaPostgresTest
final class PostgresExtensionIntegrationTests {

    private static TestDatabase fromBeforeAll;

    private final TestDatabase fromConstructor;
    private TestDatabase fromBeforeEach;

    PostgresExtensionIntegrationTests(TestDatabase database) {
        this.fromConstructor = database;
    }

    @BeforeAll
    static void captureFromBeforeAll(TestDatabase database) {
        fromBeforeAll = database;
    }

    @BeforeEach
    void captureFromBeforeEach(TestDatabase database) {
        fromBeforeEach = database;
    }

    @Test
    void shouldResolveTheSameTestDatabaseEverywhereInTheClass(TestDatabase database) {
        assertThat(database)
                .isSameAs(fromBeforeAll)
                .isSameAs(fromConstructor)
                .isSameAs(fromBeforeEach);
    }

    @Test
    void shouldRunSelectOneOverR2dbc(TestDatabase database) {
        assertThat(R2dbc.queryOne(database.connectionFactory(), "SELECT 1", Integer.class)).isEqualTo(1);
    }

    @Test
    void shouldRunTheSelectedPostgresqlMajor(TestDatabase database) {
        String shown = R2dbc.queryOne(database.connectionFactory(), "SHOW server_version", String.class);
        SupportedVersions.assertExpected(database.server(), shown);
        assertThat(database.server().serverVersion()).isEqualTo(shown);
    }

    @Test
    void shouldOfferAJdbcSideChannel(TestDatabase database) throws Exception {
        String schema = database.schema();
        database.execute(
                "CREATE SCHEMA " + schema,
                "CREATE TABLE " + schema + ".items (id int PRIMARY KEY, name text NOT NULL)",
                "INSERT INTO " + schema + ".items VALUES (1, 'one'), (2, 'two'), (3, 'three')");

        List<String> names = database.query("SELECT name FROM " + schema + ".items WHERE id >= ? ORDER BY id",
                rs -> rs.getString(1), 2);
        assertThat(names).containsExactly("two", "three");
        assertThat(database.queryLong("SELECT count(*) FROM " + schema + ".items")).isEqualTo(3);
        try (Connection connection = database.openJdbc();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT current_database()")) {
            assertThat(connection.getAutoCommit()).isTrue();
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(database.database());
        }
        // What JDBC wrote, R2DBC reads.
        assertThat(R2dbc.queryOne(database.connectionFactory(), "SELECT name FROM " + schema + ".items WHERE id = 1",
                String.class)).isEqualTo("one");
    }

    @Test
    void shouldUseANonUtcSessionTimeZoneOnEveryTestConnection(TestDatabase database) {
        assertThat(R2dbc.queryOne(database.connectionFactory(), "SHOW TimeZone", String.class))
                .isEqualTo(PostgresProviders.SESSION_TIME_ZONE)
                .isNotEqualTo("UTC");
        assertThat(database.query("SHOW TimeZone", rs -> rs.getString(1)))
                .containsExactly(PostgresProviders.SESSION_TIME_ZONE);
        assertThat(R2dbc.queryOne(database.connectionFactory(), "SELECT current_setting('application_name')",
                String.class)).isEqualTo(PostgresProviders.APPLICATION_NAME);
    }

    @Test
    void shouldLetTheCallerCustomizeTheConnectionFactory(TestDatabase database) {
        String zone = R2dbc.queryOne(database.connectionFactory(builder -> builder.timeZone("Asia/Tokyo")),
                "SHOW TimeZone", String.class);
        assertThat(zone).isEqualTo("Asia/Tokyo");
    }

    @Test
    void shouldNameTheSchemaAfterTheTestClass(TestDatabase database) {
        assertThat(database.schema())
                .matches("[a-z_][a-z0-9_]*")
                .hasSizeLessThanOrEqualTo(40)
                .startsWith("t_postgresextensionintegrationte");
        assertThat(database.queryLong("SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?",
                database.newSchemaName())).isZero();
    }

    @Test
    void shouldHandOutFreshSchemaNamesThatCanBeCreated(TestDatabase database) {
        String first = database.newSchemaName();
        String second = database.newSchemaName();
        assertThat(first).isNotEqualTo(second).isNotEqualTo(database.schema());
        database.execute("CREATE SCHEMA " + first, "CREATE SCHEMA " + second);
        assertThat(database.queryLong(
                "SELECT count(*) FROM information_schema.schemata WHERE schema_name IN (?, ?)", first, second))
                .isEqualTo(2);
    }

    @Test
    void shouldNameTheFailingStatement(TestDatabase database) {
        assertThatThrownBy(() -> database.execute("SELECT 1", "SELEC broken"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("SELEC broken");
        assertThatThrownBy(() -> database.queryLong("SELECT 1 WHERE false"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exactly one row");
    }
}
