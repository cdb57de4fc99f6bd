package io.awareactive.examples.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the code samples of the README and docs/ compiled: a fenced block preceded by
 * {@code <!-- sample: <path in this module>#<tag> -->} must equal the lines between {@code tag::<tag>[]} and
 * {@code end::<tag>[]} in that file (common indentation removed, nested tag lines dropped). In the README,
 * getting-started.md and schema-migrations.md every Java block must carry such a marker.
 */
final class DocSamplesUnitTests {

    private static final Path MODULE = Path.of("").toAbsolutePath();
    private static final Path ROOT = MODULE.getParent();
    private static final List<Path> OWN_DOCS = List.of(ROOT.resolve("README.md"),
            ROOT.resolve("docs/getting-started.md"), ROOT.resolve("docs/schema-migrations.md"));
    private static final Pattern MARKER = Pattern.compile("<!-- sample: ([^#\\s]+)#([\\w-]+) -->");
    private static final Pattern FENCE = Pattern.compile("```(\\w*)");

    /** A marked sample block in a document. */
    private record Sample(Path doc, int line, String source, String tag, String text) {
        @Override
        public String toString() {
            return ROOT.relativize(doc) + ":" + line + " (" + source + "#" + tag + ")";
        }
    }

    @Test
    void shouldFindTheDocsAndTheirSamples() {
        List<Sample> samples = samples();

        assertThat(OWN_DOCS).allMatch(Files::isRegularFile);
        assertThat(samples).extracting(Sample::tag)
                .contains("quickstart", "storage", "enqueue", "transactional", "worker", "maintenance", "shutdown",
                        "spring-boot-properties", "spring-boot-service", "handler", "endpoints", "properties",
                        "export", "flyway", "flyway-migrate",
                        "flyway-baseline", "changeset", "include", "liquibase", "liquibase-sync", "grants");
    }

    @Test
    void shouldKeepEverySampleEqualToItsSource() throws IOException {
        for (Sample sample : samples()) {
            Path source = MODULE.resolve(sample.source());
            assertThat(source).as("source of %s", sample).isRegularFile();
            assertThat(sample.text()).as("%s drifted from %s; copy the tagged lines again", sample, source)
                    .isEqualTo(tagged(Files.readString(source, StandardCharsets.UTF_8), sample.tag(), source));
        }
    }

    @Test
    void shouldMarkEveryJavaBlockOfTheReadmeAndGettingStarted() throws IOException {
        for (Path doc : OWN_DOCS) {
            List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
            boolean inBlock = false;
            for (int i = 0; i < lines.size(); i++) {
                Matcher fence = FENCE.matcher(lines.get(i).strip());
                if (!fence.matches()) {
                    continue;
                }
                if (!inBlock && fence.group(1).equals("java")) {
                    assertThat(i > 0 && MARKER.matcher(lines.get(i - 1).strip()).matches())
                            .as("%s:%d: a java block without a <!-- sample: path#tag --> marker",
                                    ROOT.relativize(doc), i + 1)
                            .isTrue();
                }
                inBlock = !inBlock;
            }
        }
    }

    @Test
    void shouldExtractTaggedLinesWithoutIndentationOrNestedTags() {
        String source = String.join("\n", "class A {", "    void m() {", "        // tag::outer[]",
                "        int a = 1;", "        // tag::inner[]", "        if (a > 0) {", "            a++;",
                "        }", "        // end::inner[]", "        // end::outer[]", "    }", "}");

        assertThat(tagged(source, "outer", Path.of("A.java")))
                .isEqualTo("int a = 1;\nif (a > 0) {\n    a++;\n}\n");
        assertThat(tagged(source, "inner", Path.of("A.java"))).isEqualTo("if (a > 0) {\n    a++;\n}\n");
    }

    /** Every marked block of the README and every page of docs/. */
    private static List<Sample> samples() {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            pages.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        List<Sample> samples = new ArrayList<>();
        for (Path doc : docs) {
            List<String> lines;
            try {
                lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < lines.size(); i++) {
                Matcher marker = MARKER.matcher(lines.get(i).strip());
                if (!marker.matches()) {
                    continue;
                }
                assertThat(i + 1 < lines.size() && FENCE.matcher(lines.get(i + 1).strip()).matches())
                        .as("%s:%d: a sample marker must be followed by a fenced block", doc, i + 1).isTrue();
                StringBuilder text = new StringBuilder();
                int j = i + 2;
                while (j < lines.size() && !lines.get(j).strip().equals("```")) {
                    text.append(lines.get(j)).append('\n');
                    j++;
                }
                samples.add(new Sample(doc, i + 1, marker.group(1), marker.group(2), text.toString()));
                i = j;
            }
        }
        return samples;
    }

    /** The lines between the tag's start and end comments, outdented, without nested tag lines. */
    static String tagged(String source, String tag, Path file) {
        List<String> lines = source.lines().toList();
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("tag::" + tag + "[]")) {
                start = i;
            } else if (lines.get(i).contains("end::" + tag + "[]")) {
                end = i;
            }
        }
        assertThat(start).as("tag::%s[] in %s", tag, file).isNotNegative();
        assertThat(end).as("end::%s[] in %s", tag, file).isGreaterThan(start);
        List<String> body = lines.subList(start + 1, end).stream()
                .filter(line -> !line.contains("tag::") && !line.contains("end::"))
                .toList();
        int indent = body.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        StringBuilder text = new StringBuilder();
        for (String line : body) {
            text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return text.toString();
    }
}
