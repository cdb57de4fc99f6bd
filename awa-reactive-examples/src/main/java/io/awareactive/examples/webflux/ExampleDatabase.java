package io.awareactive.examples.webflux;

import io.awareactive.testkit.PostgresProviders;
import io.awareactive.testkit.PostgresServer;
import org.jspecify.annotations.Nullable;

/**
 * Where the example's database is: the configured {@code awa.r2dbc-url}, or, when that is empty, an embedded
 * PostgreSQL the example starts for itself (a convenience of the example; a real service points at its database).
 */
final class ExampleDatabase implements AutoCloseable {

    private final String r2dbcUrl;
    private final @Nullable PostgresServer embedded;

    private ExampleDatabase(String r2dbcUrl, @Nullable PostgresServer embedded) {
        this.r2dbcUrl = r2dbcUrl;
        this.embedded = embedded;
    }

    static ExampleDatabase of(@Nullable String configuredUrl) {
        if (configuredUrl != null && !configuredUrl.isBlank()) {
            return new ExampleDatabase(configuredUrl, null);
        }
        PostgresServer server = PostgresProviders.embedded();
        return new ExampleDatabase(server.r2dbcUrl(server.database()), server);
    }

    String r2dbcUrl() {
        return r2dbcUrl;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
