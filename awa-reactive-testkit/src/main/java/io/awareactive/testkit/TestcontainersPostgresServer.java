package io.awareactive.testkit;

import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * PostgreSQL in a Docker container started by Testcontainers. Loaded only when that provider is chosen, so
 * that {@code org.testcontainers:testcontainers-postgresql} stays an optional dependency.
 */
final class TestcontainersPostgresServer extends AbstractPostgresServer {

    private static final int POSTGRES_PORT = 5432;

    private final PostgreSQLContainer container;
    private final String host;
    private final int port;

    private TestcontainersPostgresServer(PostgreSQLContainer container) {
        this.container = container;
        this.host = container.getHost();
        this.port = container.getMappedPort(POSTGRES_PORT);
    }

    static TestcontainersPostgresServer start(String image) {
        PostgreSQLContainer container = new PostgreSQLContainer(
                DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"));
        container.withCommand("postgres", "-c", "fsync=off", "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off", "-c", "max_connections=200");
        container.start();
        try {
            return new TestcontainersPostgresServer(container);
        } catch (RuntimeException e) {
            container.stop();
            throw e;
        }
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String username() {
        return container.getUsername();
    }

    @Override
    public String password() {
        return container.getPassword();
    }

    @Override
    public String database() {
        return container.getDatabaseName();
    }

    @Override
    public void close() {
        container.stop();
    }
}
