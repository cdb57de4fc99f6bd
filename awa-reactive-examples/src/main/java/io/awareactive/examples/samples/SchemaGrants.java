package io.awareactive.examples.samples;

import io.awareactive.core.QueueStorage;

/**
 * The grants after a schema was applied, whoever applied it: the snippet of docs/schema-migrations.md, as compiled
 * source ({@code DocSamplesUnitTests} keeps the page in step with the text between the tag comments, and
 * {@code FlywayMigrationsIntegrationTests} runs it).
 */
public final class SchemaGrants {

    private SchemaGrants() {
    }

    /**
     * Grants the application and the maintenance role their rights on the schema. Blocks: call it in a deployment
     * step, never on a Reactor thread.
     *
     * @param owner a storage whose connections log in as the schema owner (the role that applied the scripts)
     * @param applicationRole the role of the services that enqueue and work
     * @param maintenanceRole the role of the maintenance engine
     */
    public static void grant(QueueStorage owner, String applicationRole, String maintenanceRole) {
        // tag::grants[]
        owner.verifyInstalled()                                 // applied by install() or by your tool
                .then(owner.grantApplicationRole(applicationRole)) // DML, sequences, EXECUTE; no TRUNCATE, no DDL
                .then(owner.grantMaintenanceRole(maintenanceRole)) // the same plus TRUNCATE
                .block();
        // as a superuser (or a role holding its admin option): GRANT pg_read_all_stats TO <maintenance role>;
        // end::grants[]
    }
}
