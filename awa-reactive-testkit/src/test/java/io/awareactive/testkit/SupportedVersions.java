package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PostgreSQL majors the tests accept: the embedded server runs the major the build selected ({@code -Dpg=N},
 * the root pom's profiles; 17 by default), an external server any supported major.
 */
final class SupportedVersions {

    /** The oldest and newest majors awa-reactive supports. */
    static final int OLDEST = 14;
    static final int NEWEST = 18;

    private SupportedVersions() {
    }

    /** The major of the embedded binaries this build runs. */
    static String embeddedMajor() {
        return System.getProperty("awa.test.postgres.major", "17");
    }

    /** Asserts that {@code version} ({@code SHOW server_version}) is what {@code server} should run. */
    static void assertExpected(PostgresServer server, String version) {
        int major = Integer.parseInt(version.split("[.\\s]")[0]);
        if (server instanceof ExternalPostgresServer) {
            assertThat(major).as("server_version %s", version).isBetween(OLDEST, NEWEST);
        } else {
            assertThat(Integer.toString(major)).as("server_version %s", version).isEqualTo(embeddedMajor());
        }
    }
}
