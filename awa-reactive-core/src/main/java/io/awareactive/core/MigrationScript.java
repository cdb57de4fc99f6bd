package io.awareactive.core;

import java.util.Objects;

/**
 * One schema version step rendered for one installation: plain SQL for a migration tool of your own (Flyway,
 * Liquibase, {@code psql}). Run the scripts in version order, each in one transaction; each ends by recording its
 * row in {@code awa_reactive_schema_version}, exactly as {@link QueueStorage#install()} would, so the installer,
 * {@link QueueStorage#verifyInstalled()} and your tool agree on the version. See {@code docs/schema-migrations.md}.
 *
 * @param version the step's version, from 1
 * @param description what the step does, for example {@code rings}
 * @param fileName the step's file name, {@code V<version>__<description>.sql}, which Flyway also accepts
 * @param checksum the SHA-256 checksum (lower-case hex) of the step's file as shipped, before the schema name and
 *     slot counts were filled in; recorded in the version table
 * @param sql the statements, with the schema name and slot counts filled in; one script, several statements
 */
public record MigrationScript(int version, String description, String fileName, String checksum, String sql) {

    /**
     * Creates a script.
     *
     * @param version the step's version, from 1
     * @param description what the step does
     * @param fileName the step's file name
     * @param checksum the checksum of the step's file
     * @param sql the rendered statements
     * @throws IllegalArgumentException when {@code version} is below 1
     * @throws NullPointerException when any text is null
     */
    public MigrationScript {
        if (version < 1) {
            throw new IllegalArgumentException("version must be at least 1, was " + version);
        }
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(fileName, "fileName");
        Objects.requireNonNull(checksum, "checksum");
        Objects.requireNonNull(sql, "sql");
    }
}
