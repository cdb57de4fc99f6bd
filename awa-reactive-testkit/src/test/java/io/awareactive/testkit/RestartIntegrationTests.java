package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Embedded servers that the tests stop and start again. */
final class RestartIntegrationTests {

    @Test
    void shouldKeepCommittedRowsAcrossFastAndImmediateRestarts() {
        try (RestartablePostgresServer server = PostgresProviders.embedded(
                EmbeddedOptions.builder().durable(true).build())) {
            TestDatabase database = TestDatabase.of(server, "RestartIntegrationTests");
            String table = database.schema() + ".jobs";
            int port = server.port();
            assertThat(database.query("SELECT setting FROM pg_settings WHERE name IN "
                    + "('fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name", rs -> rs.getString(1)))
                    .containsExactly("on", "on", "on");
            database.execute("CREATE SCHEMA " + database.schema(),
                    "CREATE TABLE " + table + " (id int PRIMARY KEY)",
                    "INSERT INTO " + table + " VALUES (1)");

            server.stop(false);
            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(database::openJdbc).isInstanceOf(SQLException.class);
            server.start();

            assertThat(server.isRunning()).isTrue();
            assertThat(server.port()).isEqualTo(port);
            assertThat(database.queryLong("SELECT count(*) FROM " + table + " WHERE id = 1")).isEqualTo(1);
            R2dbc.execute(database.connectionFactory(), "INSERT INTO " + table + " VALUES (2)");

            server.stop(true);
            assertThat(server.isRunning()).isFalse();
            server.start();

            assertThat(database.query("SELECT id FROM " + table + " ORDER BY id", rs -> rs.getInt(1)))
                    .containsExactly(1, 2);
            assertThat(R2dbc.queryOne(database.connectionFactory(), "SELECT inet_server_port()", Integer.class))
                    .isEqualTo(port);
        }
    }

    @Test
    void shouldUseFastSettingsByDefaultAndDeleteTheDataDirectoryOnClose() {
        Path dataDirectory;
        try (RestartablePostgresServer server = PostgresProviders.embedded()) {
            dataDirectory = server.dataDirectory();
            assertThat(dataDirectory).startsWith(Path.of("target", "awa-postgres").toAbsolutePath());
            assertThat(dataDirectory.resolve("PG_VERSION")).isRegularFile();
            TestDatabase database = TestDatabase.of(server, "fast");
            assertThat(database.query("SELECT setting FROM pg_settings WHERE name IN "
                    + "('fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name", rs -> rs.getString(1)))
                    .containsExactly("off", "off", "off");
            SupportedVersions.assertExpected(server, server.serverVersion());
        }
        assertThat(dataDirectory).doesNotExist();
    }

    @Test
    void shouldReuseAChosenDataDirectoryAndPort() throws Exception {
        Path dataDirectory = Path.of("target", "awa-postgres", "chosen-" + Names.randomSuffix());
        int port;
        try (RestartablePostgresServer first = PostgresProviders.embedded(EmbeddedOptions.builder()
                .dataDirectory(dataDirectory)
                .serverConfig("work_mem", "8MB")
                .build())) {
            port = first.port();
            TestDatabase database = TestDatabase.of(first, "chosen");
            assertThat(database.query("SHOW work_mem", rs -> rs.getString(1))).containsExactly("8MB");
            database.execute("CREATE TABLE kept (id int)", "INSERT INTO kept VALUES (7)");
        }
        try {
            assertThat(dataDirectory.resolve("PG_VERSION")).isRegularFile();
            try (RestartablePostgresServer again = PostgresProviders.embedded(EmbeddedOptions.builder()
                    .dataDirectory(dataDirectory)
                    .port(port)
                    .build())) {
                assertThat(again.port()).isEqualTo(port);
                TestDatabase database = TestDatabase.of(again, "chosen");
                assertThat(database.queryLong("SELECT id FROM kept")).isEqualTo(7);
                assertThat(database.query("SHOW work_mem", rs -> rs.getString(1)))
                        .as("settings follow the options of each start")
                        .containsExactly("4MB");
            }
        } finally {
            FileTrees.deleteRecursively(dataDirectory.toAbsolutePath());
        }
        assertThat(Files.exists(dataDirectory)).isFalse();
    }

    @Test
    void shouldRefuseToStartAfterClose() {
        RestartablePostgresServer server = PostgresProviders.embedded();
        server.close();
        server.close();
        assertThat(server.isRunning()).isFalse();
        assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
