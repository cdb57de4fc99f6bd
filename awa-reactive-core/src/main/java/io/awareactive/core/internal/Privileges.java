package io.awareactive.core.internal;

import io.r2dbc.spi.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The grants of design §3.1 for an application and a maintenance role, issued in one transaction by the schema
 * owner. Role names are validated before any SQL and quoted anyway.
 */
public final class Privileges {

    private static final Pattern ROLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final ConnectionFactory factory;
    private final Schema schema;

    /**
     * Creates the grant issuer.
     *
     * @param factory connections of the schema owner
     * @param schema the installation
     */
    public Privileges(ConnectionFactory factory, Schema schema) {
        this.factory = factory;
        this.schema = schema;
    }

    /**
     * Validates a role name: 1 to 63 bytes of {@code [A-Za-z_][A-Za-z0-9_]*}, not {@code pg_*} and not
     * {@code public}.
     *
     * @param role the name
     * @return the name
     * @throws IllegalArgumentException when the name breaks the rule
     */
    public static String requireRoleName(@Nullable String role) {
        if (role == null || role.getBytes(StandardCharsets.UTF_8).length > 63 || !ROLE_NAME.matcher(role).matches()
                || role.toLowerCase(java.util.Locale.ROOT).startsWith("pg_") || role.equalsIgnoreCase("public")) {
            throw new IllegalArgumentException("role must be an identifier matching [A-Za-z_][A-Za-z0-9_]* of 1 to 63"
                    + " bytes, not pg_* or public, was " + (role == null ? "null" : "\"" + role + "\""));
        }
        return role;
    }

    /**
     * Grants the application rights: schema usage, DML on every table, usage and update on every sequence, execute
     * on the functions, and the same sequence rights on lane sequences {@code create_lane} creates later.
     *
     * @param role a validated role name
     * @param truncate also grant {@code TRUNCATE} on every table (the maintenance role)
     * @return completion
     */
    public Mono<Void> grant(String role, boolean truncate) {
        String s = schema.quoted();
        String r = '"' + role + '"';
        List<String> sql = new ArrayList<>(List.of(
                "GRANT USAGE ON SCHEMA " + s + " TO " + r,
                "GRANT SELECT, INSERT, UPDATE, DELETE" + (truncate ? ", TRUNCATE" : "") + " ON ALL TABLES IN SCHEMA "
                        + s + " TO " + r,
                "GRANT USAGE, UPDATE ON ALL SEQUENCES IN SCHEMA " + s + " TO " + r,
                "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA " + s + " TO " + r,
                // create_lane (SECURITY DEFINER, run as the owner) creates each new lane's sequences.
                "ALTER DEFAULT PRIVILEGES IN SCHEMA " + s + " GRANT USAGE, UPDATE ON SEQUENCES TO " + r));
        return Db.inTransaction(factory, c -> Flux.fromIterable(sql).concatMap(each -> Db.execute(c, each)).then());
    }
}
