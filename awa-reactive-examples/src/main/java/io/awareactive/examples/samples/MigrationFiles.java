package io.awareactive.examples.samples;

import io.awareactive.core.MigrationScript;
import io.awareactive.core.QueueStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@link QueueStorage#migrationScripts()} as files, the form a migration tool reads: the snippet of
 * docs/schema-migrations.md that {@link FlywayMigrations} and {@link LiquibaseMigrations} build on
 * ({@code DocSamplesUnitTests} keeps the page in step with the text between the tag comments).
 */
public final class MigrationFiles {

    private MigrationFiles() {
    }

    /**
     * Writes each script as {@code folder/V<version>__<description>.sql}, replacing a file of that name. The text is
     * written exactly as rendered, so a tool's own checksum of a file is the same on every export.
     *
     * @param scripts the scripts, usually {@code storage.migrationScripts()}
     * @param folder where to write them; created when missing
     * @return the files written, in version order
     * @throws UncheckedIOException when a file cannot be written
     */
    public static List<Path> write(List<MigrationScript> scripts, Path folder) {
        try {
            // tag::export[]
            List<Path> files = new ArrayList<>();
            Files.createDirectories(folder);
            for (MigrationScript script : scripts) {         // version order: V1__rings.sql, V2__..., ...
                files.add(Files.writeString(folder.resolve(script.fileName()), script.sql(), StandardCharsets.UTF_8));
            }
            // end::export[]
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the migration scripts to " + folder, e);
        }
    }
}
