package io.awareactive.testkit;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Options of an embedded PostgreSQL server (see {@link PostgresProviders#embedded(EmbeddedOptions)}).
 * Immutable; create instances with {@link #builder()}.
 */
public final class EmbeddedOptions {

    private static final Pattern SETTING_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

    private final boolean durable;
    private final Map<String, String> serverConfig;
    private final @Nullable Path dataDirectory;
    private final int port;

    private EmbeddedOptions(Builder builder) {
        this.durable = builder.durable;
        this.serverConfig = Collections.unmodifiableMap(new LinkedHashMap<>(builder.serverConfig));
        this.dataDirectory = builder.dataDirectory;
        this.port = builder.port;
    }

    /**
     * Returns a builder with the defaults: fast settings, no extra configuration, a fresh data
     * directory under {@code target/awa-postgres/}, a free port.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the default options.
     *
     * @return options equal to {@code builder().build()}
     */
    public static EmbeddedOptions defaults() {
        return builder().build();
    }

    /**
     * Tells whether the server keeps {@code fsync}, {@code synchronous_commit} and
     * {@code full_page_writes} on.
     *
     * @return {@code true} for a durable server, {@code false} (default) for fast settings
     */
    public boolean durable() {
        return durable;
    }

    /**
     * Returns the extra {@code postgresql.conf} settings, in the order they were given.
     *
     * @return an unmodifiable map from setting name to value
     */
    public Map<String, String> serverConfig() {
        return serverConfig;
    }

    /**
     * Returns the data directory, if one was chosen.
     *
     * @return the data directory, or empty for a fresh directory under {@code target/awa-postgres/}
     */
    public Optional<Path> dataDirectory() {
        return Optional.ofNullable(dataDirectory);
    }

    /**
     * Returns the TCP port.
     *
     * @return the port, {@code 0} to pick a free one
     */
    public int port() {
        return port;
    }

    @Override
    public String toString() {
        return "EmbeddedOptions{durable=" + durable + ", serverConfig=" + serverConfig
                + ", dataDirectory=" + dataDirectory + ", port=" + port + '}';
    }

    /** Builds {@link EmbeddedOptions}. Not thread-safe. */
    public static final class Builder {

        private boolean durable;
        private final Map<String, String> serverConfig = new LinkedHashMap<>();
        private @Nullable Path dataDirectory;
        private int port;

        private Builder() {
        }

        /**
         * Chooses durable settings ({@code fsync}, {@code synchronous_commit} and
         * {@code full_page_writes} on) for restart and durability tests and benchmarks, or fast
         * settings (all three off, the default) for ordinary tests.
         *
         * @param durable {@code true} for durable settings
         * @return this builder
         */
        public Builder durable(boolean durable) {
            this.durable = durable;
            return this;
        }

        /**
         * Adds a {@code postgresql.conf} setting; it is applied after (and so wins over) the
         * testkit's own settings. Setting a name again replaces its value.
         *
         * @param name the setting name, for example {@code max_connections}
         * @param value the value, unquoted (the testkit quotes it)
         * @return this builder
         * @throws IllegalArgumentException if the name is not a valid setting name or the value
         *     contains a line break
         */
        public Builder serverConfig(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (!SETTING_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("Not a PostgreSQL setting name: '" + name + "'");
            }
            if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("Setting " + name + " must not contain a line break");
            }
            serverConfig.put(name, value);
            return this;
        }

        /**
         * Chooses the data directory. If it already holds a cluster ({@code PG_VERSION} exists) the
         * server starts on it; otherwise {@code initdb} creates one there. A chosen directory is
         * kept when the server is closed; the default one is deleted.
         *
         * @param dataDirectory the data directory
         * @return this builder
         */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory");
            return this;
        }

        /**
         * Chooses the TCP port.
         *
         * @param port the port, or {@code 0} (default) to pick a free one
         * @return this builder
         * @throws IllegalArgumentException if the port is outside 0..65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be within 0..65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Builds the options.
         *
         * @return the immutable options
         */
        public EmbeddedOptions build() {
            return new EmbeddedOptions(this);
        }
    }
}
