package io.awareactive.benchmarks;

import io.awareactive.testkit.EmbeddedOptions;
import io.awareactive.testkit.PostgresProviders;
import io.awareactive.testkit.PostgresServer;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.netty.resources.LoopResources;

/**
 * The PostgreSQL server and database of one benchmark run, and everything that connects to it: R2DBC pools for the
 * systems under test, JDBC side channels for samplers and fixtures, the maintenance role, server facts.
 */
final class BenchDatabase implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BenchDatabase.class);

    /** The role awa-reactive's maintenance engine connects as, so its statements are told apart in statistics. */
    static final String MAINTENANCE_ROLE = "awa_bench_maintenance";

    /** The application name of every benchmark connection; samplers and the engine use their own. */
    static final String APPLICATION_NAME = "awa-bench";

    /** The application name of the maintenance engine's connections. */
    static final String MAINTENANCE_APPLICATION_NAME = "awa-bench-maintenance";

    /** Server settings reported with every result. */
    private static final List<String> REPORTED_SETTINGS = List.of("server_version", "fsync", "synchronous_commit",
            "full_page_writes", "wal_level", "shared_buffers", "min_wal_size", "max_wal_size", "checkpoint_timeout",
            "autovacuum", "autovacuum_naptime", "autovacuum_vacuum_cost_delay", "autovacuum_vacuum_cost_limit",
            "autovacuum_max_workers", "deadlock_timeout", "shared_preload_libraries", "max_connections");

    private final PostgresServer server;
    private final String database;
    private final boolean ownsServer;
    private final String serverDescription;
    private @Nullable String maintenancePassword;
    private @Nullable Boolean pgStatStatements;
    private @Nullable Boolean superuser;
    private @Nullable Boolean pgStatWal;

    BenchDatabase(PostgresServer server, String database, boolean ownsServer, String serverDescription) {
        this.server = server;
        this.database = database;
        this.ownsServer = ownsServer;
        this.serverDescription = serverDescription;
    }

    /**
     * Starts the server a command line asks for: the external server of {@code --url} (or of the testkit's
     * {@value PostgresProviders#URL_ENV}), else an embedded, durable PostgreSQL 17 with pg_stat_statements loaded.
     */
    static BenchDatabase start(BenchOptions options) {
        String url = options.url();
        if (url == null) {
            String fromEnvironment = System.getenv(PostgresProviders.URL_ENV);
            url = fromEnvironment == null || fromEnvironment.isBlank() ? null : fromEnvironment.trim();
        }
        if (url != null) {
            PostgresServer server = PostgresProviders.external(url);
            return new BenchDatabase(server, server.database(), false, "external server " + server.host() + ":"
                    + server.port() + "/" + server.database());
        }
        long naptimeSeconds = Math.max(1, options.autovacuumNaptime().toSeconds());
        EmbeddedOptions embedded = EmbeddedOptions.builder()
                .durable(true)
                .serverConfig("shared_preload_libraries", "pg_stat_statements")
                .serverConfig("pg_stat_statements.track_utility", "on")
                .serverConfig("autovacuum_naptime", naptimeSeconds + "s")
                // Every checkpoint leaves 1 GB of old segments (the default max_wal_size) for reuse: preallocateWal.
                .serverConfig("min_wal_size", "1GB")
                .build();
        PostgresServer server = PostgresProviders.embedded(embedded);
        BenchDatabase database = new BenchDatabase(server, server.database(), true, "embedded PostgreSQL (durable:"
                + " fsync, synchronous_commit and full_page_writes on; autovacuum_naptime " + naptimeSeconds + "s; "
                + "WAL segments preallocated)");
        database.preallocateWal(database.queryLong("SELECT (SELECT setting::bigint * 1024 * 1024 FROM pg_settings"
                + " WHERE name = 'min_wal_size') / (SELECT setting::bigint FROM pg_settings WHERE name ="
                + " 'wal_segment_size')"));
        return database;
    }

    PostgresServer server() {
        return server;
    }

    String database() {
        return database;
    }

    String serverDescription() {
        return serverDescription;
    }

    /** Opens a JDBC connection (auto-commit) to the benchmark database. */
    Connection jdbc() throws SQLException {
        return server.openJdbc(database);
    }

    /** Runs statements over one JDBC connection. */
    void execute(String... sql) {
        try (Connection connection = jdbc(); Statement statement = connection.createStatement()) {
            for (String each : sql) {
                statement.execute(each);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("benchmark SQL failed: " + e.getMessage(), e);
        }
    }

    /** Runs a query returning one number. */
    long queryLong(String sql) {
        try (Connection connection = jdbc(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("benchmark SQL failed: " + e.getMessage(), e);
        }
    }

    /** A non-pooled R2DBC connection factory with the given application name. */
    PostgresqlConnectionFactory connectionFactory(String applicationName) {
        return server.connectionFactory(database, builder -> builder.applicationName(applicationName));
    }

    /**
     * A non-pooled R2DBC connection factory after a customisation of its configuration (role, event loops).
     */
    PostgresqlConnectionFactory connectionFactory(String applicationName,
            Consumer<io.r2dbc.postgresql.PostgresqlConnectionConfiguration.Builder> customizer) {
        return server.connectionFactory(database, builder -> {
            builder.applicationName(applicationName);
            customizer.accept(builder);
        });
    }

    /**
     * A fixed-size r2dbc-pool over a factory: every connection is opened before the measurement starts. With
     * {@code mostRecentlyUsedFirst} it hands out the most recently released idle connection first, else the least
     * recently released one (reactor-pool's default).
     */
    static ConnectionPool pool(io.r2dbc.spi.ConnectionFactory factory, String name, int size,
            boolean mostRecentlyUsedFirst) {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(factory)
                .name(name)
                .initialSize(size)
                .maxSize(size)
                .maxAcquireTime(Duration.ofSeconds(30))
                .customizer(idle -> idle.idleResourceReuseOrder(!mostRecentlyUsedFirst))
                .build());
        pool.warmup().block(Duration.ofSeconds(60));
        return pool;
    }

    /**
     * The factory of the maintenance engine's connections: its own role when the benchmark user may create one (so
     * pg_stat_statements tells its statements apart), its own application name, and its own event-loop thread (so
     * its JVM CPU is measurable per thread).
     */
    PostgresqlConnectionFactory maintenanceFactory(LoopResources loops) {
        String password = maintenancePassword();
        return connectionFactory(MAINTENANCE_APPLICATION_NAME, builder -> {
            builder.loopResources(loops);
            if (password != null) {
                builder.username(MAINTENANCE_ROLE).password(password);
            }
        });
    }

    /** Whether the maintenance engine connects as {@value #MAINTENANCE_ROLE}. */
    boolean hasMaintenanceRole() {
        return maintenancePassword() != null;
    }

    private synchronized @Nullable String maintenancePassword() {
        if (maintenancePassword == null && isSuperuser()) {
            byte[] bytes = new byte[12];
            new SecureRandom().nextBytes(bytes);
            StringBuilder password = new StringBuilder("b");
            for (byte b : bytes) {
                password.append(String.format("%02x", b));
            }
            // A superuser: it may truncate ring children and read every session's statistics, as the design asks of
            // a maintenance role (TRUNCATE + pg_read_all_stats), without per-schema grants.
            execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + MAINTENANCE_ROLE
                    + "') THEN CREATE ROLE " + MAINTENANCE_ROLE + " LOGIN SUPERUSER; END IF; END $$",
                    "ALTER ROLE " + MAINTENANCE_ROLE + " PASSWORD '" + password + "'");
            if (pgStatStatements()) {
                // Planning is database time too; tracked for the engine's sessions only, not on the hot path.
                execute("ALTER ROLE " + MAINTENANCE_ROLE + " SET pg_stat_statements.track_planning = on");
            }
            maintenancePassword = password.toString();
        }
        return maintenancePassword;
    }

    synchronized boolean isSuperuser() {
        if (superuser == null) {
            superuser = queryLong("SELECT CASE WHEN rolsuper THEN 1 ELSE 0 END FROM pg_roles"
                    + " WHERE rolname = current_user") == 1;
        }
        return superuser;
    }

    /** Whether pg_stat_statements is loaded and its view usable in this database (created if needed). */
    synchronized boolean pgStatStatements() {
        if (pgStatStatements == null) {
            boolean usable;
            try (Connection connection = jdbc(); Statement statement = connection.createStatement()) {
                boolean loaded;
                try (ResultSet rs = statement.executeQuery("SELECT current_setting('shared_preload_libraries')")) {
                    rs.next();
                    loaded = rs.getString(1).contains("pg_stat_statements");
                }
                if (loaded) {
                    statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                    try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_stat_statements")) {
                        rs.next();
                    }
                }
                usable = loaded;
            } catch (SQLException e) {
                LOG.info("pg_stat_statements is not usable ({}); maintenance database time is sampled from"
                        + " pg_stat_activity instead", e.getMessage());
                usable = false;
            }
            pgStatStatements = usable;
        }
        return pgStatStatements;
    }

    /** The server settings that matter for the figures, as the benchmark's session sees them. */
    Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Connection connection = jdbc(); Statement statement = connection.createStatement()) {
            for (String name : REPORTED_SETTINGS) {
                try (ResultSet rs = statement.executeQuery("SELECT current_setting('" + name + "', true)")) {
                    rs.next();
                    String value = rs.getString(1);
                    settings.put(name, value == null ? "" : value);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read server settings: " + e.getMessage(), e);
        }
        return settings;
    }

    /** The server's {@code data_directory}, or {@code null} when this session may not read it. */
    @Nullable String dataDirectory() {
        try (Connection connection = jdbc(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT current_setting('data_directory', true)")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            return null;
        }
    }

    /**
     * Reads the work counters (see {@link DatabaseWork}) for a system's schema. The statistics views are fed by each
     * backend at most about once a second, so a reading lags the server by up to a second of work.
     *
     * @param schema the system's schema
     */
    DatabaseWork work(String schema) {
        String wal = hasPgStatWal() ? "(SELECT wal_bytes::bigint FROM pg_stat_wal)"
                : "pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint";
        String sql = "SELECT " + wal + ", (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint"
                + " FROM pg_stat_user_tables WHERE schemaname = ?),"
                + " (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())";
        try (Connection connection = jdbc(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, schema);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return new DatabaseWork(rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the work counters: " + e.getMessage(), e);
        }
    }

    private synchronized boolean hasPgStatWal() {
        if (pgStatWal == null) {
            pgStatWal = queryLong("SELECT count(*) FROM pg_catalog.pg_attribute"
                    + " WHERE attrelid = to_regclass('pg_catalog.pg_stat_wal') AND attname = 'wal_bytes'") == 1;
        }
        return pgStatWal;
    }

    /**
     * Fails when the server cannot take {@code needed} more connections (a pool for many workers): max_connections
     * less the superuser reserve and the connections already open.
     *
     * @param needed connections about to be opened
     */
    void requireConnections(int needed) {
        long free = queryLong("SELECT current_setting('max_connections')::int"
                + " - current_setting('superuser_reserved_connections')::int"
                + " - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')");
        if (free < needed) {
            throw new IllegalStateException("the server has " + free + " free connections, the run needs " + needed
                    + ": raise max_connections or lower --workers");
        }
    }

    /**
     * Waits {@code wait}, then analyzes and vacuums this database's own system catalogs ({@code pg_catalog}, not the
     * shared ones), so that a measured window pays for none of the benchmark's own DDL. Installing a system and
     * dropping the previous run's schema leave thousands of dead rows in {@code pg_attribute}, {@code pg_depend},
     * {@code pg_class} and their indexes. Left alone, the first statements that read those pages prune them (WAL with
     * full-page images), and autovacuum vacuums and analyzes those catalogs (the analyses leave dead rows in
     * {@code pg_statistic} for the next planner to prune), all charged to whichever system runs next. The wait lets
     * every session report its table statistics first (PostgreSQL 15 and later report an idle session's within
     * 10 s): an analysis before that report would be followed by autovacuum's own once it arrives. Analyze first: the
     * vacuum then removes the {@code pg_statistic} rows the analyses replaced. Called after every install, before any
     * measurement, for every system alike; the catalog changes a system makes while it runs ({@code TRUNCATE}
     * updating {@code pg_class}, analyses of its tables) are still measured. Catalogs the benchmark's role may not
     * analyze or vacuum are skipped by the server with a warning.
     *
     * @param wait how long to wait first ({@code --settle})
     */
    void settleCatalogs(Duration wait) {
        BenchContext.pause(wait);
        List<String> catalogs = new ArrayList<>();
        try (Connection connection = jdbc(); Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("SELECT format('pg_catalog.%I', c.relname) FROM pg_class c"
                    + " WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'r' AND NOT c.relisshared")) {
                while (rs.next()) {
                    catalogs.add(rs.getString(1));
                }
            }
            statement.execute("ANALYZE " + String.join(", ", catalogs));
            statement.execute("VACUUM " + String.join(", ", catalogs));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot settle the system catalogs: " + e.getMessage(), e);
        }
    }

    /**
     * Leaves {@code segments} WAL segments ready for reuse ahead of the insert position, as a server that has been
     * running for a while has them. On a new cluster every segment is created as the WAL reaches it: zero-filled and
     * synced while the creating backend holds {@code WALWrite}, which stalls every commit for 30–90 ms each time
     * (docs/benchmarks.md, section 1ah). Nothing is reused before the first checkpoint completes, so the system
     * measured first paid for creating the cluster's WAL and the next ones did not. This switches to a new segment
     * {@code segments} times (one small record in each) and checkpoints, which renames the old segments for reuse
     * (as many as {@code min_wal_size} allows). Called once per embedded server, before any install.
     *
     * @param segments how many segments to create and hand back for reuse
     */
    void preallocateWal(long segments) {
        execute("DO $$ BEGIN FOR i IN 1.." + segments + " LOOP"
                + " PERFORM pg_logical_emit_message(false, 'awa-bench', 'preallocate'); PERFORM pg_switch_wal();"
                + " END LOOP; END $$", "CHECKPOINT");
    }

    /** Drops a schema if it exists (cleanup between runs). */
    void dropSchema(String schema) {
        execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }

    @Override
    public void close() {
        if (maintenancePassword != null) {
            try {
                execute("DROP ROLE IF EXISTS " + MAINTENANCE_ROLE);
            } catch (RuntimeException e) {
                LOG.debug("could not drop role {}: {}", MAINTENANCE_ROLE, e.getMessage());
            }
        }
        if (ownsServer) {
            server.close();
        }
    }
}
