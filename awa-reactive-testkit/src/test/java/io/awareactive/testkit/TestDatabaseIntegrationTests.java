package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.r2dbc.spi.R2dbcException;
import org.junit.jupiter.api.Test;

@AwaPostgresTest
final class TestDatabaseIntegrationTests {

    @Test
    void shouldCreateADatabaseOfItsOwn(TestDatabase database) {
        TestDatabase other = database.newDatabase();

        assertThat(other.database()).isNotEqualTo(database.database()).matches("[a-z_][a-z0-9_]*");
        assertThat(other.schema()).isNotEqualTo(database.schema());
        assertThat(other.server()).isSameAs(database.server());
        assertThat(R2dbc.queryOne(other.connectionFactory(), "SELECT current_database()", String.class))
                .isEqualTo(other.database());
        assertThat(other.query("SELECT current_database()", rs -> rs.getString(1))).containsExactly(other.database());
    }

    @Test
    void shouldConfineAlterDatabaseToTheNewDatabase(TestDatabase database) {
        TestDatabase other = database.newDatabase();

        database.execute("ALTER DATABASE " + other.database() + " SET lock_timeout = '3s'");

        assertThat(R2dbc.queryOne(other.connectionFactory(), "SHOW lock_timeout", String.class)).isEqualTo("3s");
        assertThat(R2dbc.queryOne(database.connectionFactory(), "SHOW lock_timeout", String.class)).isEqualTo("0");
    }

    @Test
    void shouldCreateARoleThatCanLogIn(TestDatabase database) {
        String role = database.newRole();

        assertThat(role).matches("[a-z_][a-z0-9_]*").hasSizeLessThanOrEqualTo(40);
        assertThat(database.rolePassword(role)).isNotBlank();
        assertThat(R2dbc.queryOne(database.connectionFactoryAs(role), "SELECT current_user::text", String.class))
                .isEqualTo(role);
        assertThat(database.queryLong("SELECT count(*) FROM pg_roles WHERE rolname = ? AND rolcanlogin", role))
                .isEqualTo(1);
    }

    @Test
    void shouldGrantTheGivenRoles(TestDatabase database) {
        String schema = database.schema();
        database.execute(
                "CREATE SCHEMA IF NOT EXISTS " + schema,
                "CREATE TABLE " + schema + ".secrets (id int)",
                "INSERT INTO " + schema + ".secrets VALUES (42)");

        String reader = database.newRole("pg_read_all_data");
        String nobody = database.newRole();

        assertThat(database.queryLong("SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member"
                + " JOIN pg_roles g ON g.oid = m.roleid WHERE r.rolname = ? AND g.rolname = 'pg_read_all_data'",
                reader)).isEqualTo(1);
        assertThat(R2dbc.queryOne(database.connectionFactoryAs(reader), "SELECT id FROM " + schema + ".secrets",
                Integer.class)).isEqualTo(42);
        assertThatThrownBy(() -> R2dbc.queryOne(database.connectionFactoryAs(nobody),
                "SELECT id FROM " + schema + ".secrets", Integer.class))
                .isInstanceOf(R2dbcException.class)
                .satisfies(e -> assertThat(((R2dbcException) e).getSqlState()).isEqualTo("42501"));
    }

    @Test
    void shouldKnowRolesAcrossDatabasesCreatedFromIt(TestDatabase database) {
        TestDatabase other = database.newDatabase();
        String role = other.newRole();

        assertThat(database.rolePassword(role)).isEqualTo(other.rolePassword(role));
        assertThat(R2dbc.queryOne(other.connectionFactoryAs(role), "SELECT current_database()", String.class))
                .isEqualTo(other.database());
    }

    @Test
    void shouldRejectRolesItDidNotCreate(TestDatabase database) {
        assertThatThrownBy(() -> database.rolePassword("postgres"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postgres");
        assertThatThrownBy(() -> database.connectionFactoryAs("no_such_role"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
