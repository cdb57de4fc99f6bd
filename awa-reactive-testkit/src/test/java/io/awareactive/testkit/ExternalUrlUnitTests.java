package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class ExternalUrlUnitTests {

    private static final String RULE = "r2dbc:postgresql://user[:password]@host[:port]/database";

    @Test
    void shouldParseAllParts() {
        PostgresServer server = PostgresProviders.external(
                "r2dbc:postgresql://us%40er:p%40ss%3Aw%2Frd@db.example:6543/my%20db?sslMode=disable");

        assertThat(server.host()).isEqualTo("db.example");
        assertThat(server.port()).isEqualTo(6543);
        assertThat(server.username()).isEqualTo("us@er");
        assertThat(server.password()).isEqualTo("p@ss:w/rd");
        assertThat(server.database()).isEqualTo("my db");
        assertThat(server.jdbcUrl("other")).isEqualTo("jdbc:postgresql://db.example:6543/other?user=us%40er"
                + "&password=p%40ss%3Aw%2Frd&ApplicationName=awa-reactive-test&sslmode=disable");
    }

    @Test
    void shouldRoundTripItsOwnUrl() {
        PostgresServer server = PostgresProviders.external("r2dbc:postgresql://app:s3cr%25t+x@localhost/jobs");
        PostgresServer again = PostgresProviders.external(server.r2dbcUrl("jobs"));

        assertThat(server.port()).isEqualTo(5432);
        assertThat(server.password()).isEqualTo("s3cr%t x");
        assertThat(again.username()).isEqualTo("app");
        assertThat(again.password()).isEqualTo(server.password());
        assertThat(again.database()).isEqualTo("jobs");
        assertThat(server.r2dbcUrl("other")).isEqualTo("r2dbc:postgresql://app:s3cr%25t+x@localhost:5432/other");
    }

    @Test
    void shouldAcceptUrlsWithoutPasswordAndWithIpv6Hosts() {
        PostgresServer server = PostgresProviders.external("r2dbc:postgresql://postgres@[::1]:5433/postgres");

        assertThat(server.host()).isEqualTo("::1");
        assertThat(server.port()).isEqualTo(5433);
        assertThat(server.password()).isEmpty();
        assertThat(server.r2dbcUrl("postgres")).isEqualTo("r2dbc:postgresql://postgres@[::1]:5433/postgres");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "jdbc:postgresql://localhost/db",
        "r2dbc:pool:postgresql://user@localhost/db",
        "r2dbc:mysql://user@localhost/db",
        "r2dbc:postgresql://localhost:5432/db",
        "r2dbc:postgresql://:pw@localhost/db",
        "r2dbc:postgresql://user@localhost:5432",
        "r2dbc:postgresql://user@localhost:5432/",
        "r2dbc:postgresql://user@:5432/db",
        "r2dbc:postgresql://user@localhost:port/db",
        "r2dbc:postgresql://user@localhost:70000/db",
        "r2dbc:postgresql://user@localhost/db/extra",
        "r2dbc:postgresql://user@host1,host2/db",
    })
    void shouldRejectMalformedUrlsNamingTheRule(String url) {
        assertThatThrownBy(() -> PostgresProviders.external(url))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RULE);
    }

    @Test
    void shouldHideThePasswordInErrors() {
        assertThatThrownBy(() -> PostgresProviders.external("r2dbc:postgresql://app:topsecret@localhost:5432"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the database is missing")
                .hasMessageContaining("app:***@localhost")
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void shouldChooseTheProviderFromPropertiesBeforeTheEnvironment() {
        PostgresServer server = PostgresProviders.fromSettings(
                Map.of(PostgresProviders.URL_PROPERTY, "r2dbc:postgresql://a@property-host/db")::get,
                Map.of(PostgresProviders.URL_ENV, "r2dbc:postgresql://a@env-host/db",
                        PostgresProviders.PROVIDER_ENV, "embedded")::get);

        assertThat(server.host()).isEqualTo("property-host");
    }

    @Test
    void shouldRejectUnknownProvidersAndExternalWithoutUrl() {
        assertThatThrownBy(() -> PostgresProviders.fromSettings(name -> null,
                Map.of(PostgresProviders.PROVIDER_ENV, "docker")::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("docker")
                .hasMessageContaining("embedded, external or testcontainers");
        assertThatThrownBy(() -> PostgresProviders.fromSettings(
                Map.of(PostgresProviders.PROVIDER_PROPERTY, "External")::get, name -> null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(PostgresProviders.URL_ENV);
    }
}
