package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.ring.RingOperations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries, checked on every build (the project's equivalent of JPMS qualified exports, which the
 * embedded PostgreSQL, BlockHound and classpath-based tests make impractical):
 *
 * <ul>
 *   <li>{@code io.awareactive.core.internal} is exported to the maintenance module only, and there only the generic
 *       SQL plumbing and names ({@link #ENGINE_MAY_USE}); ring work reaches the engine through
 *       {@link RingOperations}. Examples, benchmarks and the testkit import no internal package of core or
 *       maintenance.</li>
 *   <li>The engine never uses the job API: in the maintenance module's main code only {@code RingMaintenance} and
 *       {@code ManualMaintenance} name {@code QueueStorage}, and only to call {@code ringOperations()}.</li>
 *   <li>{@code QueueStorage} holds no maintenance-only method, and the ring outcome and label types live in
 *       {@code io.awareactive.core.ring}.</li>
 * </ul>
 */
final class ModuleBoundariesUnitTests {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final String CORE_INTERNAL = "io.awareactive.core.internal.";
    private static final String MAINTENANCE_INTERNAL = "io.awareactive.maintenance.internal.";
    /** The internal classes of core the maintenance module may use: SQL plumbing, names, validation, messages. */
    static final Set<String> ENGINE_MAY_USE = Set.of("Db", "Schema", "Table", "SqlStates", "MaintenanceFailures",
            "Validation");
    private static final Set<String> MAINTENANCE_ONLY = Set.of("rotate", "prune", "rollup", "foldTerminalCounts",
            "trimLedgers", "sealedSlots", "cursor", "promote", "rescue", "purgeFailedJobs");

    @Test
    void shouldFindTheSourcesOfEveryModule() {
        for (String module : List.of("awa-reactive-maintenance", "awa-reactive-examples", "awa-reactive-benchmarks",
                "awa-reactive-testkit")) {
            assertThat(javaFiles(module + "/src/main/java")).as(module).isNotEmpty();
        }
    }

    @Test
    void shouldImportNoInternalPackageOutsideCoreAndTheEngine() {
        List<String> offences = new ArrayList<>();
        for (String module : List.of("awa-reactive-examples", "awa-reactive-benchmarks", "awa-reactive-testkit")) {
            for (Path file : javaFiles(module + "/src")) {
                imports(file).stream()
                        .filter(i -> i.startsWith(CORE_INTERNAL) || i.startsWith(MAINTENANCE_INTERNAL))
                        .forEach(i -> offences.add(ROOT.relativize(file) + " imports " + i));
            }
        }
        assertThat(offences).as("imports of internal packages").isEmpty();
    }

    @Test
    void shouldLetTheEngineUseOnlyTheExportedPlumbingOfCoreInternal() {
        List<String> offences = new ArrayList<>();
        for (Path file : javaFiles("awa-reactive-maintenance/src")) {
            for (String imported : imports(file)) {
                if (!imported.startsWith(CORE_INTERNAL)) {
                    continue;
                }
                String type = imported.substring(CORE_INTERNAL.length()).split("\\.")[0];
                if (!ENGINE_MAY_USE.contains(type)) {
                    offences.add(ROOT.relativize(file) + " imports " + imported);
                }
            }
        }
        assertThat(offences).as("maintenance imports of core.internal beyond " + ENGINE_MAY_USE).isEmpty();
    }

    @Test
    void shouldKeepTheEngineOffTheJobApi() {
        Pattern storageCall = Pattern.compile("\\bstorage\\.(\\w+)\\(");
        List<String> offences = new ArrayList<>();
        for (Path file : javaFiles("awa-reactive-maintenance/src/main/java")) {
            String name = file.getFileName().toString();
            boolean entryPoint = name.equals("RingMaintenance.java") || name.equals("ManualMaintenance.java");
            String source = code(read(file));
            if (!entryPoint && imports(file).contains("io.awareactive.core.QueueStorage")) {
                offences.add(ROOT.relativize(file) + " imports QueueStorage");
            }
            Matcher call = storageCall.matcher(source);
            while (call.find()) {
                if (!call.group(1).equals("ringOperations")) {
                    offences.add(ROOT.relativize(file) + " calls storage." + call.group(1) + "()");
                }
            }
        }
        assertThat(offences).as("the engine's uses of the job API").isEmpty();
    }

    @Test
    void shouldKeepMaintenanceMethodsOffTheJobApi() {
        Set<String> publicMethods = Arrays.stream(QueueStorage.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()))
                .map(Method::getName)
                .collect(Collectors.toSet());

        assertThat(publicMethods).doesNotContainAnyElementsOf(MAINTENANCE_ONLY).contains("ringOperations");
        Set<String> ringMethods = Arrays.stream(RingOperations.class.getMethods()).map(Method::getName)
                .collect(Collectors.toSet());
        assertThat(ringMethods).containsAll(MAINTENANCE_ONLY);
    }

    @Test
    void shouldKeepTheRingTypesOutOfTheJobApiPackage() {
        for (String type : List.of("PruneOutcome", "RotateOutcome", "RollupOutcome", "RingCursor", "BlockedCause",
                "SkipReason", "RotationBlocker", "PruneDurations")) {
            assertThat(Files.exists(ROOT.resolve("awa-reactive-core/src/main/java/io/awareactive/core/" + type
                    + ".java"))).as(type + " in io.awareactive.core").isFalse();
            assertThat(Files.exists(ROOT.resolve("awa-reactive-core/src/main/java/io/awareactive/core/ring/" + type
                    + ".java"))).as(type + " in io.awareactive.core.ring").isTrue();
        }
    }

    @Test
    void shouldParseImportsIncludingStaticOnes() {
        String source = "package a;\n\nimport static io.awareactive.core.internal.Validation.requireNonNull;\n"
                + "import io.awareactive.core.internal.Pruner;\nimport java.util.List;\n\nclass A {}\n";
        List<String> found = new ArrayList<>();
        Matcher m = IMPORT.matcher(source);
        while (m.find()) {
            found.add(m.group(1));
        }
        assertThat(found).containsExactly("io.awareactive.core.internal.Validation.requireNonNull",
                "io.awareactive.core.internal.Pruner", "java.util.List");
    }

    private static List<Path> javaFiles(String dir) {
        Path root = ROOT.resolve(dir);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> imports(Path file) {
        List<String> found = new ArrayList<>();
        Matcher m = IMPORT.matcher(read(file));
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** The source without comment lines, so a Javadoc example naming a job method is not a call. */
    private static String code(String source) {
        return source.lines().filter(line -> {
            String trimmed = line.strip();
            return !trimmed.startsWith("*") && !trimmed.startsWith("/*") && !trimmed.startsWith("//");
        }).collect(Collectors.joining("\n"));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
