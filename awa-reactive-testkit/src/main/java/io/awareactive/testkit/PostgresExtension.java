package io.awareactive.testkit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving each test class a {@link TestDatabase} on one PostgreSQL server per test run.
 * Usually applied through {@link AwaPostgresTest}.
 *
 * <ul>
 *   <li>The server comes from {@link PostgresProviders#fromEnvironment()} (embedded PostgreSQL 17 unless
 *       configured otherwise). It is started lazily, once, and kept in the root extension context store: it
 *       is closed when the JUnit run ends (JUnit 5.13 and later close {@link AutoCloseable} store values),
 *       and by a JVM shutdown hook as a safety net.</li>
 *   <li>Parameters of type {@link TestDatabase} are resolved in constructors and in {@code @BeforeAll},
 *       {@code @BeforeEach} and test methods. Every resolution within one test class (and its
 *       {@code @Nested} classes) returns the same instance, kept in the class's extension context store.
 *       When the class finishes, the schemas, databases and roles it handed out are dropped.</li>
 * </ul>
 */
public final class PostgresExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(
            PostgresExtension.class);
    private static final String SERVER_KEY = "server";
    private static final String DATABASE_KEY = "testDatabase";

    /** Creates the extension; JUnit does this for {@code @ExtendWith}. */
    public PostgresExtension() {
    }

    /**
     * Starts the server if needed and creates the test class's {@link TestDatabase}, so that a server that
     * cannot start fails the class before any test runs.
     *
     * @param context the test class's context
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        testDatabase(context);
    }

    /**
     * Tells whether the parameter is a {@link TestDatabase}.
     *
     * @param parameterContext the parameter
     * @param extensionContext the current context
     * @return {@code true} for parameters of type {@link TestDatabase}
     */
    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == TestDatabase.class;
    }

    /**
     * Returns the test class's {@link TestDatabase}.
     *
     * @param parameterContext the parameter
     * @param extensionContext the current context
     * @return the test class's {@link TestDatabase}
     * @throws ParameterResolutionException if the server cannot be started
     */
    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        try {
            return testDatabase(extensionContext);
        } catch (RuntimeException e) {
            throw new ParameterResolutionException("Cannot provide a TestDatabase: " + e.getMessage(), e);
        }
    }

    private static TestDatabase testDatabase(ExtensionContext context) {
        ExtensionContext classContext = classContext(context);
        return classContext.getStore(NAMESPACE)
                .getOrComputeIfAbsent(DATABASE_KEY, key -> new ClassDatabase(TestDatabase.of(server(classContext),
                        classContext.getRequiredTestClass().getSimpleName())), ClassDatabase.class)
                .database();
    }

    /** The context of the innermost test class around {@code context}. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

    private static PostgresServer server(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(SERVER_KEY, key -> SharedServer.start(), SharedServer.class)
                .server();
    }

    /** The run's server, closed with the root store (and at JVM exit at the latest). */
    private static final class SharedServer implements AutoCloseable {

        private final PostgresServer server;
        private final Thread shutdownHook;

        private SharedServer(PostgresServer server) {
            this.server = server;
            this.shutdownHook = new Thread(server::close, "awa-postgres-test-server-shutdown");
        }

        static SharedServer start() {
            SharedServer shared = new SharedServer(PostgresProviders.fromEnvironment());
            Runtime.getRuntime().addShutdownHook(shared.shutdownHook);
            return shared;
        }

        PostgresServer server() {
            return server;
        }

        @Override
        public void close() {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shutdownInProgress) {
                // The JVM is exiting; the hook closes the server.
                return;
            }
            server.close();
        }
    }

    /** A test class's database, cleaned up when the class's store is closed. */
    private static final class ClassDatabase implements AutoCloseable {

        private final TestDatabase database;

        ClassDatabase(TestDatabase database) {
            this.database = database;
        }

        TestDatabase database() {
            return database;
        }

        @Override
        public void close() {
            database.dropCreatedObjects();
        }
    }
}
