package io.awareactive.testkit;

import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL run from the binaries zonky ships, with {@code initdb} and {@code pg_ctl}: stoppable and
 * restartable in place. As root (uid 0) every command runs under {@code unshare -U}, as zonky does, because
 * PostgreSQL refuses to run as root.
 */
final class EmbeddedPostgresServer extends AbstractPostgresServer implements RestartablePostgresServer {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

    /** Where binaries and default data directories live, relative to the working directory. */
    static final Path WORK_ROOT = Path.of("target", "awa-postgres");

    private static final String SUPERUSER = "postgres";
    private static final String CONFIG_FILE = "awa-testkit.conf";
    private static final String LOG_FILE = "postgres.log";
    private static final String PG_CTL_TIMEOUT_SECONDS = "120";
    private static final long PROCESS_TIMEOUT_SECONDS = 180;

    private final EmbeddedOptions options;
    private final Path installation;
    private final Path dataDirectory;
    private final boolean deleteOnClose;
    private final int port;
    private final Thread shutdownHook;

    private boolean running;
    private boolean closed;

    private EmbeddedPostgresServer(EmbeddedOptions options, Path installation, Path dataDirectory,
            boolean deleteOnClose, int port) {
        this.options = options;
        this.installation = installation;
        this.dataDirectory = dataDirectory;
        this.deleteOnClose = deleteOnClose;
        this.port = port;
        this.shutdownHook = new Thread(this::closeFromShutdownHook, "awa-postgres-" + port + "-shutdown");
    }

    /** Creates (if needed) and starts a server. */
    static EmbeddedPostgresServer start(EmbeddedOptions options) {
        long started = System.nanoTime();
        Path root = WORK_ROOT.toAbsolutePath().normalize();
        Path installation = PgBinaries.install(root);
        Path dataDirectory = options.dataDirectory()
                .map(path -> path.toAbsolutePath().normalize())
                .orElseGet(() -> root.resolve("data-" + UUID.randomUUID().toString().substring(0, 13)));
        int port = options.port() != 0 ? options.port() : freePort();
        EmbeddedPostgresServer server = new EmbeddedPostgresServer(options, installation, dataDirectory,
                options.dataDirectory().isEmpty(), port);
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try {
            server.initdbIfNeeded();
            server.start();
            String version = server.serverVersion();
            LOG.info("Embedded PostgreSQL {} ready on port {} ({}, data directory {}) in {} ms", version, port,
                    options.durable() ? "durable" : "fast settings", dataDirectory,
                    (System.nanoTime() - started) / 1_000_000);
        } catch (RuntimeException e) {
            try {
                server.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return server;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free TCP port", e);
        }
    }

    private void initdbIfNeeded() {
        if (Files.isRegularFile(dataDirectory.resolve("PG_VERSION"))) {
            return;
        }
        try {
            Files.createDirectories(dataDirectory.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + dataDirectory.getParent(), e);
        }
        run("initdb", List.of("-A", "trust", "-U", SUPERUSER, "-D", dataDirectory.toString(), "-E", "UTF8",
                "--locale=C", "--no-sync"));
        Path postgresqlConf = dataDirectory.resolve("postgresql.conf");
        try {
            Files.writeString(postgresqlConf, "\n# Settings of the awa-reactive testkit\ninclude_if_exists = '"
                    + CONFIG_FILE + "'\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + postgresqlConf, e);
        }
    }

    private void writeConfig() {
        String onOff = options.durable() ? "on" : "off";
        StringBuilder config = new StringBuilder()
                .append("# Written by the awa-reactive testkit at every start: edits are overwritten.\n")
                .append(setting("port", Integer.toString(port)))
                .append(setting("listen_addresses", "localhost"))
                .append(setting("unix_socket_directories", ""))
                .append(setting("max_connections", "200"))
                .append(setting("fsync", onOff))
                .append(setting("synchronous_commit", onOff))
                .append(setting("full_page_writes", onOff));
        for (Map.Entry<String, String> entry : options.serverConfig().entrySet()) {
            config.append(setting(entry.getKey(), entry.getValue()));
        }
        Path file = dataDirectory.resolve(CONFIG_FILE);
        try {
            Files.writeString(file, config, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    private static String setting(String name, String value) {
        return name + " = '" + value.replace("\\", "\\\\").replace("'", "''") + "'\n";
    }

    @Override
    public synchronized void start() {
        ensureOpen();
        if (running) {
            return;
        }
        writeConfig();
        run("pg_ctl", List.of("-D", dataDirectory.toString(), "-l", dataDirectory.resolve(LOG_FILE).toString(),
                "-w", "-t", PG_CTL_TIMEOUT_SECONDS, "start"));
        running = true;
    }

    @Override
    public synchronized void stop(boolean immediate) {
        ensureOpen();
        stopServer(immediate);
    }

    private void stopServer(boolean immediate) {
        if (!running) {
            return;
        }
        run("pg_ctl", List.of("-D", dataDirectory.toString(), "-m", immediate ? "immediate" : "fast",
                "-w", "-t", PG_CTL_TIMEOUT_SECONDS, "stop"));
        running = false;
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public Path dataDirectory() {
        return dataDirectory;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("The embedded PostgreSQL on port " + port + " is closed");
        }
    }

    @Override
    public void close() {
        if (closeServer()) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shutdownInProgress) {
                // The JVM is exiting; the hook is running or about to.
            }
        }
    }

    private void closeFromShutdownHook() {
        try {
            closeServer();
        } catch (RuntimeException e) {
            LOG.warn("Could not stop the embedded PostgreSQL on port {} at JVM exit", port, e);
        }
    }

    /** Stops the server and deletes its default data directory; {@code false} if already closed. */
    private synchronized boolean closeServer() {
        if (closed) {
            return false;
        }
        closed = true;
        RuntimeException failure = null;
        try {
            stopServer(false);
        } catch (RuntimeException e) {
            failure = e;
        }
        if (deleteOnClose && failure == null) {
            try {
                FileTrees.deleteRecursively(dataDirectory);
            } catch (IOException e) {
                LOG.warn("Could not delete the data directory {}", dataDirectory, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        LOG.info("Embedded PostgreSQL on port {} closed", port);
        return true;
    }

    private void run(String program, List<String> arguments) {
        List<String> command = new ArrayList<>();
        if (useUnshare()) {
            command.addAll(Arrays.asList("unshare", "-U"));
        }
        command.add(installation.resolve("bin").resolve(PgBinaries.isWindows() ? program + ".exe" : program)
                .toString());
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("LC_ALL", "C");
        builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
        String output;
        int exitCode;
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(program + " did not finish within " + PROCESS_TIMEOUT_SECONDS
                        + " s: " + command);
            }
            exitCode = process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + command, e);
        }
        if (exitCode != 0) {
            throw new IllegalStateException(program + " failed with exit code " + exitCode + ": " + command
                    + "\n" + output.strip() + serverLogTail());
        }
        LOG.debug("{} finished: {}\n{}", program, command, output);
    }

    private String serverLogTail() {
        Path log = dataDirectory.resolve(LOG_FILE);
        if (!Files.isRegularFile(log)) {
            return "";
        }
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            List<String> all = lines.toList();
            return "\n--- last lines of " + log + " ---\n"
                    + String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "\n(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    private static boolean useUnshare() {
        return "Linux".equals(PgBinaries.operatingSystem()) && LinuxUtils.isUnshareAvailable();
    }

    @Override
    public String host() {
        return "localhost";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String username() {
        return SUPERUSER;
    }

    @Override
    public String password() {
        return "";
    }

    @Override
    public String database() {
        return "postgres";
    }
}
