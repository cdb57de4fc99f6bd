/**
 * Test support for awa-reactive: a real PostgreSQL for every test.
 *
 * <p>Annotate a JUnit 5 test class with {@link io.awareactive.testkit.AwaPostgresTest} and declare a
 * {@link io.awareactive.testkit.TestDatabase} parameter (constructor, {@code @BeforeAll},
 * {@code @BeforeEach} or test method). One PostgreSQL server is started lazily per test JVM
 * (embedded by default, see {@link io.awareactive.testkit.PostgresProviders}) and every test class
 * gets its own schema name.
 */
@org.jspecify.annotations.NullMarked
package io.awareactive.testkit;
