package io.awareactive.examples.samples;

import io.awareactive.core.MigrationScript;
import io.awareactive.core.QueueStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import liquibase.Scope;
import liquibase.analytics.configuration.AnalyticsArgs;
import liquibase.command.CommandScope;
import liquibase.command.core.ChangelogSyncCommandStep;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.DirectoryResourceAccessor;

/**
 * Applies the schema steps with Liquibase: the snippets of docs/schema-migrations.md, as compiled source
 * ({@code DocSamplesUnitTests} keeps the page in step with the text between the tag comments, and
 * {@code LiquibaseMigrationsIntegrationTests} runs them).
 *
 * <p>The changelog is written from {@link QueueStorage#migrationScripts()}, one changeSet per script, next to the
 * script files: a new library version adds its changeSets by itself, and changeSets already applied stay the same
 * (a step never changes). Include it from your master changelog, or run it on its own.
 */
public final class LiquibaseMigrations {

    /** The changelog's file name, in the folder of the scripts. */
    public static final String CHANGELOG = "awa-reactive.changelog.xml";

    private LiquibaseMigrations() {
    }

    /**
     * Writes the scripts (as {@link MigrationFiles#write}) and a changelog with one changeSet per script,
     * {@value #CHANGELOG}, into {@code folder}.
     *
     * @param scripts the scripts, usually {@code storage.migrationScripts()}
     * @param folder where to write them; created when missing
     * @return the changelog file
     * @throws UncheckedIOException when a file cannot be written
     */
    public static Path writeChangelog(List<MigrationScript> scripts, Path folder) {
        MigrationFiles.write(scripts, folder);
        StringBuilder changeSets = new StringBuilder();
        for (MigrationScript script : scripts) {
            // Descriptions and file names are lower-case words (SchemaSteps checks them): nothing to escape in XML.
            // tag::changeset[]
            changeSets.append("""
                        <changeSet id="awa-reactive-%d" author="awa-reactive" runInTransaction="true">
                            <comment>%s</comment>
                            <sqlFile path="%s" relativeToChangelogFile="true" encoding="UTF-8"
                                     splitStatements="false" stripComments="false"/>
                        </changeSet>
                    """.formatted(script.version(), script.description(), script.fileName()));
            // end::changeset[]
        }
        // logicalFilePath: the changeSets' identity in DATABASECHANGELOG does not depend on where the file lies.
        String changelog = """
                <?xml version="1.0" encoding="UTF-8"?>
                <databaseChangeLog xmlns="http://www.liquibase.org/xml/ns/dbchangelog"
                        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                        xsi:schemaLocation="http://www.liquibase.org/xml/ns/dbchangelog
                            http://www.liquibase.org/xml/ns/dbchangelog/dbchangelog-latest.xsd"
                        logicalFilePath="awa-reactive">
                %s</databaseChangeLog>
                """.formatted(changeSets);
        try {
            return Files.writeString(folder.resolve(CHANGELOG), changelog, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the changelog to " + folder, e);
        }
    }

    /**
     * Runs Liquibase's {@code update} with {@code changelog}: applies the changeSets its DATABASECHANGELOG lacks,
     * each in its own transaction. Blocks: call it at startup or in a deployment step, never on a Reactor thread.
     *
     * @param jdbc a connection of the role that owns the awa schema; left open
     * @param appSchema the application's schema: Liquibase's default schema, where DATABASECHANGELOG lives
     * @param root the folder that holds {@code changelog}
     * @param changelog the changelog, relative to {@code root}: {@value #CHANGELOG}, or a master changelog that
     *     includes it
     */
    public static void update(Connection jdbc, String appSchema, Path root, String changelog) {
        run(UpdateCommandStep.COMMAND_NAME, jdbc, appSchema, root, changelog);
    }

    /**
     * Hands a schema that {@link QueueStorage#install()} created over to Liquibase: brings it to this library's
     * latest version, writes the changelog into {@code folder} and records every changeSet as applied without
     * running it (Liquibase's {@code changelog-sync}).
     *
     * @param storage the storage of the installed schema
     * @param jdbc a connection of the role that owns the awa schema; left open
     * @param appSchema the application's schema, where DATABASECHANGELOG lives
     * @param folder where to write the scripts and the changelog
     */
    public static void takeOver(QueueStorage storage, Connection jdbc, String appSchema, Path folder) {
        // tag::liquibase-sync[]
        storage.install().block();                          // at this library's latest version: nothing pending
        writeChangelog(storage.migrationScripts(), folder);
        run(ChangelogSyncCommandStep.COMMAND_NAME, jdbc, appSchema, folder, CHANGELOG); // records, runs nothing
        // end::liquibase-sync[]
    }

    private static void run(String[] command, Connection jdbc, String appSchema, Path root, String changelog) {
        // tag::liquibase[]
        try (DirectoryResourceAccessor files = new DirectoryResourceAccessor(root)) {
            Database database = DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(jdbc));
            database.setDefaultSchemaName(appSchema);       // your schema: DATABASECHANGELOG lives there
            Scope.child(Map.of(Scope.Attr.resourceAccessor.name(), files,
                            AnalyticsArgs.ENABLED.getKey(), false), // no usage analytics from a deployment
                    () -> new CommandScope(command)         // update, or changelog-sync
                            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                            .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_FILE_ARG, changelog)
                            .execute());
        } catch (Exception e) {
            throw new IllegalStateException("Liquibase " + String.join(" ", command) + " of " + changelog
                    + " failed", e);
        }
        // end::liquibase[]
    }
}
