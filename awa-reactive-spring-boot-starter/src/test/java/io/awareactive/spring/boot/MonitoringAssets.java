package io.awareactive.spring.boot;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The PromQL of the shipped Grafana dashboard ({@code docs/grafana/awa-reactive.json}) and Prometheus rules
 * ({@code docs/prometheus/awa-reactive-rules.yml}), and a check of every metric, label and label value they use
 * against a Prometheus scrape.
 */
final class MonitoringAssets {

    static final Path DOCS = Path.of("").toAbsolutePath().getParent().resolve("docs");
    static final Path DASHBOARD = DOCS.resolve("grafana/awa-reactive.json");
    static final Path RULES = DOCS.resolve("prometheus/awa-reactive-rules.yml");
    /** Labels Prometheus adds to every series of a target when it scrapes: never in the scrape itself. */
    static final Set<String> TARGET_LABELS = Set.of("instance", "job");

    private static final Pattern METRIC = Pattern.compile("\\b(awa_[a-z0-9_]+)\\b");
    private static final Pattern SELECTOR = Pattern.compile("\\{([^{}]*)}");
    private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
    private static final Pattern GROUPING =
            Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^()]*)\\)");
    private static final Pattern TEMPLATE_LABEL = Pattern.compile("\\{\\{\\s*(?:\\$labels\\.)?(\\w+)\\s*}}");
    private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+\\S+.*$");
    private static final Pattern SCRAPED_LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /**
     * One PromQL expression and the texts that name its labels ({@code legendFormat}, alert annotations).
     *
     * @param where the panel or alert
     * @param expr the expression
     * @param templates legend and annotation texts
     */
    record Query(String where, String expr, List<String> templates) {

        /** The metric names the expression reads. */
        Set<String> metrics() {
            String stripped = GROUPING.matcher(SELECTOR.matcher(expr).replaceAll("{}")).replaceAll("");
            Set<String> metrics = new LinkedHashSet<>();
            Matcher m = METRIC.matcher(stripped);
            while (m.find()) {
                metrics.add(m.group(1));
            }
            return metrics;
        }

        /** Every label name the expression or its templates use. */
        Set<String> labels() {
            Set<String> labels = new LinkedHashSet<>(matchers().keySet());
            Matcher grouping = GROUPING.matcher(expr);
            while (grouping.find()) {
                for (String label : grouping.group(1).split(",")) {
                    if (!label.isBlank()) {
                        labels.add(label.strip());
                    }
                }
            }
            for (String template : templates) {
                Matcher m = TEMPLATE_LABEL.matcher(template);
                while (m.find()) {
                    if (!m.group(1).equals("value")) {
                        labels.add(m.group(1));
                    }
                }
            }
            return labels;
        }

        /** The equality matchers ({@code label="value"}) of the expression's selectors. */
        Map<String, Set<String>> equalities() {
            Map<String, Set<String>> equalities = new LinkedHashMap<>();
            Matcher selector = SELECTOR.matcher(expr);
            while (selector.find()) {
                Matcher m = MATCHER.matcher(selector.group(1));
                while (m.find()) {
                    if (m.group(2).equals("=")) {
                        equalities.computeIfAbsent(m.group(1), k -> new LinkedHashSet<>()).add(m.group(3));
                    }
                }
            }
            return equalities;
        }

        private Map<String, String> matchers() {
            Map<String, String> matchers = new LinkedHashMap<>();
            Matcher selector = SELECTOR.matcher(expr);
            while (selector.find()) {
                Matcher m = MATCHER.matcher(selector.group(1));
                while (m.find()) {
                    matchers.put(m.group(1), m.group(3));
                }
            }
            return matchers;
        }
    }

    private MonitoringAssets() {
    }

    /** The dashboard's queries, one per panel target. */
    static List<Query> dashboardQueries() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
        List<Query> queries = new ArrayList<>();
        collectPanels(dashboard.get("panels"), queries);
        return queries;
    }

    private static void collectPanels(JsonNode panels, List<Query> queries) {
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(new Query("panel \"" + panel.get("title").asString() + "\"",
                        target.get("expr").asString(), List.of(target.path("legendFormat").asString(""))));
            }
            if (panel.has("panels")) {
                collectPanels(panel.get("panels"), queries);
            }
        }
    }

    /** The rule file's alerts: name, expression, {@code for}, labels and annotations. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rules() throws IOException {
        try (Reader reader = Files.newBufferedReader(RULES, StandardCharsets.UTF_8)) {
            Map<String, Object> file = new Yaml().load(reader);
            List<Map<String, Object>> rules = new ArrayList<>();
            for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
                rules.addAll((List<Map<String, Object>>) group.get("rules"));
            }
            return rules;
        }
    }

    /** The rules' queries, one per alert, with its annotations as templates. */
    @SuppressWarnings("unchecked")
    static List<Query> ruleQueries() throws IOException {
        List<Query> queries = new ArrayList<>();
        for (Map<String, Object> rule : rules()) {
            Map<String, Object> annotations = (Map<String, Object>) rule.getOrDefault("annotations", Map.of());
            queries.add(new Query("alert " + rule.get("alert"), (String) rule.get("expr"),
                    annotations.values().stream().map(String::valueOf).toList()));
        }
        return queries;
    }

    /** The series of a Prometheus text scrape: metric name to the label sets of its series. */
    static Map<String, List<Map<String, String>>> parseScrape(String scrape) {
        Map<String, List<Map<String, String>>> series = new HashMap<>();
        for (String line : scrape.split("\n")) {
            Matcher m = SERIES.matcher(line.strip());
            if (line.startsWith("#") || !m.matches()) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            if (m.group(2) != null) {
                Matcher label = SCRAPED_LABEL.matcher(m.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            }
            series.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(labels);
        }
        return series;
    }

    /**
     * What the queries use that the scrape lacks: a metric name, a label no series of the query's metrics has, or a
     * matched label value none of them has.
     */
    static List<String> problems(List<Query> queries, String scrape) {
        Map<String, List<Map<String, String>>> series = parseScrape(scrape);
        List<String> problems = new ArrayList<>();
        for (Query query : queries) {
            Set<String> metrics = query.metrics();
            if (metrics.isEmpty()) {
                problems.add(query.where() + ": reads no awa_* metric: " + query.expr());
            }
            List<Map<String, String>> querySeries = new ArrayList<>();
            for (String metric : metrics) {
                List<Map<String, String>> found = series.get(metric);
                if (found == null) {
                    problems.add(query.where() + ": metric " + metric + " is not in the scrape");
                } else {
                    querySeries.addAll(found);
                }
            }
            for (String label : query.labels()) {
                if (!TARGET_LABELS.contains(label) && querySeries.stream().noneMatch(s -> s.containsKey(label))) {
                    problems.add(query.where() + ": label " + label + " is on no series of " + metrics);
                }
            }
            query.equalities().forEach((label, values) -> values.forEach(value -> {
                if (querySeries.stream().noneMatch(s -> value.equals(s.get(label)))) {
                    problems.add(query.where() + ": no series of " + metrics + " has " + label + "=\"" + value + "\"");
                }
            }));
        }
        return problems;
    }
}
