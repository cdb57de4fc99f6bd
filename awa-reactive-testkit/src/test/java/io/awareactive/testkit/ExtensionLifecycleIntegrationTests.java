package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs two sample test classes through the extension (with the JUnit Platform test kit) and checks what each
 * got. The samples use this class's server as an external server, so that what they leave behind can be
 * checked after their run.
 */
@AwaPostgresTest
final class ExtensionLifecycleIntegrationTests {

    /** What each sample class was given, by class. */
    static final Map<Class<?>, List<TestDatabase>> RESOLVED = new ConcurrentHashMap<>();

    @Test
    void shouldGiveEachClassItsOwnTestDatabaseAndCleanUpAfterIt(TestDatabase database) {
        RESOLVED.clear();
        String previous = System.getProperty(PostgresProviders.URL_PROPERTY);
        System.setProperty(PostgresProviders.URL_PROPERTY, database.server().r2dbcUrl(database.server().database()));
        try {
            EngineTestKit.engine("junit-jupiter")
                    .selectors(selectClass(FirstSample.class), selectClass(SecondSample.class))
                    .execute()
                    .testEvents()
                    .assertStatistics(stats -> stats.started(4).succeeded(4).failed(0).skipped(0).aborted(0));
        } finally {
            if (previous == null) {
                System.clearProperty(PostgresProviders.URL_PROPERTY);
            } else {
                System.setProperty(PostgresProviders.URL_PROPERTY, previous);
            }
        }

        List<TestDatabase> first = RESOLVED.get(FirstSample.class);
        List<TestDatabase> second = RESOLVED.get(SecondSample.class);
        List<TestDatabase> nested = RESOLVED.get(FirstSample.Inner.class);
        // FirstSample: @BeforeAll; constructor, @BeforeEach and test method; constructor and @BeforeEach for
        // the @Nested test. SecondSample: @BeforeAll; constructor and test method, twice.
        assertThat(first).hasSize(6).allSatisfy(each -> assertThat(each).isSameAs(first.get(0)));
        assertThat(second).hasSize(5).allSatisfy(each -> assertThat(each).isSameAs(second.get(0)));
        assertThat(nested).singleElement().isSameAs(first.get(0));
        assertThat(first.get(0).schema()).startsWith("t_firstsample_").isNotEqualTo(second.get(0).schema());
        assertThat(second.get(0).schema()).startsWith("t_secondsample_");
        assertThat(first.get(0).server().port()).isEqualTo(database.server().port());

        TestDatabase firstDatabase = first.get(0);
        assertThat(database.queryLong("SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?",
                firstDatabase.schema())).as("schema dropped").isZero();
        assertThat(database.queryLong("SELECT count(*) FROM pg_database WHERE datname LIKE 'd_firstsample_%'"))
                .as("database dropped").isZero();
        assertThat(database.queryLong("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'r_firstsample_%'"))
                .as("role dropped").isZero();
    }

    private static void record(Class<?> testClass, TestDatabase database) {
        RESOLVED.computeIfAbsent(testClass, key -> new CopyOnWriteArrayList<>()).add(database);
    }

    /** Run only by the test above. */
    @AwaPostgresTest
    static final class FirstSample {

        FirstSample(TestDatabase database) {
            record(FirstSample.class, database);
        }

        @BeforeAll
        static void beforeAll(TestDatabase database) {
            record(FirstSample.class, database);
        }

        @BeforeEach
        void beforeEach(TestDatabase database) {
            record(FirstSample.class, database);
        }

        @Test
        void shouldCreateObjectsToCleanUp(TestDatabase database) {
            record(FirstSample.class, database);
            database.execute("CREATE SCHEMA " + database.schema(),
                    "CREATE TABLE " + database.schema() + ".t (id int)");
            TestDatabase other = database.newDatabase();
            other.execute("CREATE TABLE leftover (id int)");
            String role = database.newRole();
            database.execute("GRANT USAGE ON SCHEMA " + database.schema() + " TO " + role);
        }

        @Nested
        final class Inner {

            @Test
            void shouldShareTheOuterTestDatabase(TestDatabase database) {
                record(Inner.class, database);
            }
        }
    }

    /** Run only by the test above. */
    @AwaPostgresTest
    static final class SecondSample {

        SecondSample(TestDatabase database) {
            record(SecondSample.class, database);
        }

        @BeforeAll
        static void beforeAll(TestDatabase database) {
            record(SecondSample.class, database);
        }

        @Test
        void shouldRunFirst(TestDatabase database) {
            record(SecondSample.class, database);
        }

        @Test
        void shouldRunSecond(TestDatabase database) {
            record(SecondSample.class, database);
        }
    }
}
