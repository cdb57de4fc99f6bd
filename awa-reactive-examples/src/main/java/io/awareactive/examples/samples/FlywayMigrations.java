package io.awareactive.examples.samples;

import io.awareactive.core.MigrationScript;
import io.awareactive.core.QueueStorage;
import java.nio.file.Path;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.BaselineResult;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the schema steps with Flyway: the snippets of docs/schema-migrations.md, as compiled source
 * ({@code DocSamplesUnitTests} keeps the page in step with the text between the tag comments, and
 * {@code FlywayMigrationsIntegrationTests} runs them).
 *
 * <p>The awa steps get a Flyway run of their own, with its own history table in the awa schema: their versions
 * (V1, V2, ...) would otherwise collide with the application's own migrations.
 */
public final class FlywayMigrations {

    private FlywayMigrations() {
    }

    /**
     * The Flyway configuration for the awa steps in {@code folder}.
     *
     * @param schema the awa schema ({@code storage.config().schema()})
     * @param folder the folder {@link MigrationFiles#write} wrote the scripts to
     * @param jdbcUrl the database, without credentials
     * @param user a role with {@code CREATE} on the database (docs/schema-migrations.md, Privileges); it becomes the
     *     owner of the schema and its objects
     * @param password the role's password
     * @return the configuration, to load and run
     */
    public static FluentConfiguration configure(String schema, Path folder, String jdbcUrl, String user,
            String password) {
        // tag::flyway[]
        return Flyway.configure()
                .dataSource(jdbcUrl, user, password)        // the role that owns the awa schema (see Privileges)
                .locations("filesystem:" + folder)          // only awa's scripts, in a Flyway run of their own
                .schemas(schema)                            // the awa schema: created when missing, holds the history
                .table("awa_reactive_flyway_history")       // not flyway_schema_history: apart from your own
                .placeholderReplacement(false);             // the scripts are final SQL: nothing to substitute
        // end::flyway[]
    }

    /**
     * Writes the storage's scripts into {@code folder}, applies the missing ones with Flyway (each in its own
     * transaction) and checks that the library agrees. Blocks: call it at startup or in a deployment step, never on
     * a Reactor thread.
     *
     * @param storage the storage whose schema and slot counts the scripts are rendered for
     * @param folder where to write the scripts
     * @param jdbcUrl the database, without credentials
     * @param user the role that owns the awa schema
     * @param password the role's password
     * @return Flyway's result
     */
    public static MigrateResult migrate(QueueStorage storage, Path folder, String jdbcUrl, String user,
            String password) {
        // tag::flyway-migrate[]
        MigrationFiles.write(storage.migrationScripts(), folder);
        MigrateResult result = configure(storage.config().schema(), folder, jdbcUrl, user, password)
                .load()
                .migrate();                                 // applies the versions its history lacks, in order
        storage.verifyInstalled().block();                  // latest version, unchanged checksums, same slot counts
        // end::flyway-migrate[]
        return result;
    }

    /**
     * Hands a schema that {@link QueueStorage#install()} created over to Flyway: records this library's latest
     * version as Flyway's baseline and runs no script. From then on, {@link #migrate} applies only later steps.
     *
     * @param storage the storage of the installed schema
     * @param folder where to write the scripts
     * @param jdbcUrl the database, without credentials
     * @param user the role that owns the awa schema
     * @param password the role's password
     * @return Flyway's result
     */
    public static BaselineResult takeOver(QueueStorage storage, Path folder, String jdbcUrl, String user,
            String password) {
        // tag::flyway-baseline[]
        storage.install().block();                          // at this library's latest version: nothing pending
        List<MigrationScript> scripts = storage.migrationScripts();
        MigrationFiles.write(scripts, folder);
        return configure(storage.config().schema(), folder, jdbcUrl, user, password)
                .baselineVersion(String.valueOf(scripts.get(scripts.size() - 1).version()))
                .baselineDescription("awa-reactive install()")
                .load()
                .baseline();                                // records the version, runs nothing
        // end::flyway-baseline[]
    }
}
