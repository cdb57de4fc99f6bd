package io.awareactive.core.internal;

import io.awareactive.core.MigrationScript;
import io.awareactive.core.Ring;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The schema version steps: the {@code .sql} resources under {@code io/awareactive/core/schema/}, one per version,
 * and the one renderer that fills their placeholders for an installation. Read once, when the class loads (never on
 * a Reactor thread's path: {@link io.awareactive.core.QueueStorage#create} touches it).
 *
 * <p>Placeholders: {@code {{schema}}} the quoted schema, {@code {{schema_name}}} and {@code {{notify_channel}}}
 * string literals, {@code {{queue_slot_count}}}, {@code {{lease_slot_count}}}, {@code {{claim_slot_count}}}, and
 * {@code {{checksum:N}}} the checksum of step N as a string literal. Any other placeholder is a defect of the file.
 */
public final class SchemaSteps {

    /** The step files in version order: step N is element N - 1. A new step is added here and nowhere else. */
    private static final List<String> FILES = List.of(
            "V1__rings.sql",
            "V2__schema_version_checksums.sql",
            "V3__complete_attempts.sql",
            "V4__claim_in_one_statement.sql",
            "V5__lean_claim.sql",
            "V6__prune_tallies.sql",
            "V7__lean_attempts.sql",
            "V8__append_only_children_without_autovacuum.sql",
            "V9__claim_runs_from_named_children.sql",
            "V10__done_rows_without_job_id_index.sql",
            "V11__notify_enqueues_from_transaction_snapshots.sql",
            "V12__completions_without_lease_locks.sql",
            "V13__claims_in_one_statement_per_lane.sql",
            "V14__claim_heads_as_advisory_locks.sql",
            "V15__rescue_from_lease_tallies.sql",
            "V16__bounded_segment_lookups.sql",
            "V17__lease_children_vacuumed_only_when_stalled.sql",
            "V18__claim_runs_as_leases.sql",
            "V19__completions_as_run_closures.sql",
            "V20__claims_read_visited_lanes_only.sql",
            "V21__whole_completions_answered_in_one_statement.sql",
            "V22__job_lookups_planned_once_per_session.sql");

    private static final String FOLDER = "/io/awareactive/core/schema/";
    private static final Pattern FILE_NAME = Pattern.compile("V(\\d+)__([a-z0-9_]+)\\.sql");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]+)(?::(\\d+))?}}");

    /**
     * One step as shipped.
     *
     * @param version the version, from 1
     * @param description the description (the file name's words)
     * @param fileName the file name
     * @param template the file's text, placeholders unfilled, line ends {@code \n}
     * @param checksum the SHA-256 of {@code template}, lower-case hex
     */
    public record Step(int version, String description, String fileName, String template, String checksum) {
    }

    private static final List<Step> STEPS = load();

    private SchemaSteps() {
    }

    /**
     * Every step, in version order.
     *
     * @return the steps; step N at index N - 1
     */
    public static List<Step> all() {
        return STEPS;
    }

    /**
     * The latest version: the version a fresh install and an upgrade end at.
     *
     * @return the latest step's version
     */
    public static int latestVersion() {
        return STEPS.size();
    }

    /**
     * A step by version.
     *
     * @param version from 1 to {@link #latestVersion()}
     * @return the step
     */
    public static Step step(int version) {
        return STEPS.get(version - 1);
    }

    /**
     * Renders every step for one installation.
     *
     * @param schema the schema
     * @param slotCounts the slot count of every ring
     * @return the scripts, in version order
     */
    public static List<MigrationScript> render(Schema schema, Map<Ring, Integer> slotCounts) {
        return STEPS.stream().map(step -> new MigrationScript(step.version(), step.description(), step.fileName(),
                step.checksum(), render(step, schema, slotCounts))).toList();
    }

    /**
     * Fills a step's placeholders.
     *
     * @param step the step
     * @param schema the schema
     * @param slotCounts the slot count of every ring
     * @return the SQL
     * @throws IllegalStateException on a placeholder the renderer does not know (a defect of the file)
     */
    public static String render(Step step, Schema schema, Map<Ring, Integer> slotCounts) {
        Matcher m = PLACEHOLDER.matcher(step.template());
        StringBuilder sql = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sql, Matcher.quoteReplacement(value(step, m.group(1), m.group(2), schema,
                    slotCounts)));
        }
        return m.appendTail(sql).toString();
    }

    private static String value(Step step, String name, @Nullable String argument, Schema schema,
            Map<Ring, Integer> slotCounts) {
        String value = argument == null ? switch (name) {
            case "schema" -> schema.quoted();
            case "schema_name" -> literal(schema.name());
            case "notify_channel" -> literal(schema.notifyChannel());
            case "queue_slot_count" -> slotCounts.get(Ring.QUEUE).toString();
            case "lease_slot_count" -> slotCounts.get(Ring.LEASE).toString();
            case "claim_slot_count" -> slotCounts.get(Ring.CLAIM).toString();
            default -> null;
        } : name.equals("checksum") && earlierOrSame(step, Integer.parseInt(argument))
                ? literal(step(Integer.parseInt(argument)).checksum()) : null;
        if (value == null) {
            throw new IllegalStateException(step.fileName() + " has an unknown placeholder {{" + name
                    + (argument == null ? "" : ":" + argument) + "}}");
        }
        return value;
    }

    private static boolean earlierOrSame(Step step, int version) {
        return version >= 1 && version <= step.version();
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static List<Step> load() {
        List<Step> steps = new ArrayList<>();
        for (String file : FILES) {
            Matcher name = FILE_NAME.matcher(file);
            if (!name.matches() || Integer.parseInt(name.group(1)) != steps.size() + 1) {
                throw new IllegalStateException("schema step " + file + " is out of order or misnamed");
            }
            String template = read(file);
            steps.add(new Step(steps.size() + 1, name.group(2).replace('_', ' '), file, template,
                    sha256(template)));
        }
        return List.copyOf(steps);
    }

    private static String read(String file) {
        try (InputStream in = Objects.requireNonNull(SchemaSteps.class.getResourceAsStream(FOLDER + file),
                () -> "schema step " + file + " is missing from the classpath")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("\r\n", "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema step " + file, e);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
