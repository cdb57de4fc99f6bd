package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

final class NamingAndOptionsUnitTests {

    private static final PostgresServer NOT_CONNECTED = PostgresProviders.external("r2dbc:postgresql://u@h/db");

    @Test
    void shouldDeriveSchemaNamesFromTheLabel() {
        TestDatabase database = TestDatabase.of(NOT_CONNECTED, "RotationIntegrationTests");

        assertThat(database.schema()).matches("t_rotationintegrationtests_[a-z0-9]{6}");
        assertThat(database.database()).isEqualTo("db");
        assertThat(database.schema()).isSameAs(database.schema());
    }

    @Test
    void shouldKeepNamesShortLowerCaseAndUnique() {
        TestDatabase database = TestDatabase.of(NOT_CONNECTED,
                "A$Very-Long.Test Class NameThatGoesOnAndOnAndOnForeverIntegrationTests");
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String name = database.newSchemaName();
            assertThat(name).matches("[a-z_][a-z0-9_]*").hasSizeLessThanOrEqualTo(40);
            names.add(name);
        }
        assertThat(names).hasSize(10_000).doesNotContain(database.schema());
        assertThat(TestDatabase.of(NOT_CONNECTED, "$$$").schema()).startsWith("t_test_");
    }

    @Test
    void shouldDefaultToFastSettingsAndAFreePort() {
        EmbeddedOptions options = EmbeddedOptions.builder().build();

        assertThat(options.durable()).isFalse();
        assertThat(options.port()).isZero();
        assertThat(options.dataDirectory()).isEmpty();
        assertThat(options.serverConfig()).isEmpty();
    }

    @Test
    void shouldBuildImmutableOptions() {
        EmbeddedOptions.Builder builder = EmbeddedOptions.builder()
                .durable(true)
                .port(15432)
                .dataDirectory(Path.of("target", "x"))
                .serverConfig("max_connections", "50")
                .serverConfig("log_min_duration_statement", "0");
        EmbeddedOptions options = builder.build();
        builder.serverConfig("work_mem", "1MB").durable(false);

        assertThat(options.durable()).isTrue();
        assertThat(options.port()).isEqualTo(15432);
        assertThat(options.dataDirectory()).contains(Path.of("target", "x"));
        assertThat(options.serverConfig()).containsExactly(
                java.util.Map.entry("max_connections", "50"), java.util.Map.entry("log_min_duration_statement", "0"));
        assertThatThrownBy(() -> options.serverConfig().put("a", "b")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldRejectInvalidOptions() {
        assertThatThrownBy(() -> EmbeddedOptions.builder().port(70000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedOptions.builder().serverConfig("bad name", "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedOptions.builder().serverConfig("work_mem", "1MB\nfsync = off"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
