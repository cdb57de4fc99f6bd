package io.awareactive.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Maintenance tasks are data: each task is described once, in {@link MaintenanceTask}, and the configuration, the
 * engine, its meters and {@link ManualMaintenance} derive everything from {@link MaintenanceTask#values()}. These
 * checks fail when a task is named anywhere else in the module's code, so adding a task stays one place plus its
 * test (docs/architecture.md, "Adding a maintenance task").
 */
final class MaintenanceTaskUnitTests {

    private static final Path MAIN = Path.of("src/main/java").toAbsolutePath();
    private static final Path DEFINITION = MAIN.resolve("io/awareactive/maintenance/MaintenanceTask.java");
    /** A string literal (kept, so a comment marker inside one is not a comment), a block comment or a line comment. */
    private static final Pattern LITERAL_OR_COMMENT =
            Pattern.compile("\"(?:\\\\.|[^\"\\\\])*\"|/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    @Test
    void shouldListEveryTaskConstantInValuesOnceWithADistinctLabel() {
        Map<String, MaintenanceTask<?>> constants = constants();

        assertThat(MaintenanceTask.values()).containsExactlyElementsOf(constants.values());
        assertThat(MaintenanceTask.values()).extracting(MaintenanceTask::label).doesNotHaveDuplicates()
                .allMatch(label -> label.matches("[a-z][a-z_]*"));
        assertThat(MaintenanceTask.values()).extracting(MaintenanceTask::label).containsExactly("ring_queue",
                "ring_lease", "ring_claim", "rollup", "promote", "rescue", "dlq_purge");
    }

    @Test
    void shouldDescribeTheDeadLetterPurgeInOnePlace() {
        MaintenanceTask<TaskOptions.Batch> purge = MaintenanceTask.DLQ_PURGE;

        assertThat(purge.label()).isEqualTo("dlq_purge");
        assertThat(purge.defaults()).isEqualTo(new TaskOptions.Batch(Duration.ofSeconds(60), 500));
        assertThat(RingMaintenanceConfig.builder().build().task(purge)).isEqualTo(purge.defaults());
        // Its ring work is called from its definition only.
        assertThat(filesNaming(Pattern.compile("\\b(DLQ_PURGE|dlqPurge|purgeFailedJobs)\\b|\"dlq_purge\"")))
                .containsExactly(DEFINITION);
    }

    @Test
    void shouldNameNoTaskOutsideItsDefinition() {
        List<String> offences = new ArrayList<>();
        for (Map.Entry<String, MaintenanceTask<?>> task : constants().entrySet()) {
            Pattern named = Pattern.compile("\\b" + task.getKey() + "\\b|\"" + task.getValue().label() + "\"");
            for (Path file : filesNaming(named)) {
                if (!file.equals(DEFINITION)) {
                    offences.add(MAIN.relativize(file) + " names " + task.getKey());
                }
            }
        }
        assertThat(offences).as("task names outside MaintenanceTask.java").isEmpty();
    }

    @Test
    void shouldIgnoreCommentsButNotCode() {
        String source = "/** RESCUE in Javadoc */ int a; // PROMOTE here\n String s = \"// not a comment\"; x(ROLLUP);";

        String code = code(source);

        assertThat(code).doesNotContain("RESCUE").doesNotContain("PROMOTE").contains("ROLLUP")
                .contains("\"// not a comment\"");
    }

    private static Map<String, MaintenanceTask<?>> constants() {
        Map<String, MaintenanceTask<?>> constants = new LinkedHashMap<>();
        for (Field field : MaintenanceTask.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (field.getType() == MaintenanceTask.class && Modifier.isPublic(modifiers)
                    && Modifier.isStatic(modifiers)) {
                try {
                    constants.put(field.getName(), (MaintenanceTask<?>) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        assertThat(constants).isNotEmpty();
        return constants;
    }

    /** The main source files whose code (comments removed) matches {@code pattern}. */
    private static List<Path> filesNaming(Pattern pattern) {
        try (Stream<Path> files = Files.walk(MAIN)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> pattern.matcher(code(read(p))).find())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String code(String source) {
        Matcher m = LITERAL_OR_COMMENT.matcher(source);
        StringBuilder code = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(code, Matcher.quoteReplacement(m.group().startsWith("\"") ? m.group() : " "));
        }
        return m.appendTail(code).toString();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
