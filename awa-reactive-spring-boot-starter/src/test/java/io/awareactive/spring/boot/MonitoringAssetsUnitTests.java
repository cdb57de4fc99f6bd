package io.awareactive.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.spring.boot.MonitoringAssets.Query;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shipped dashboard is valid JSON and the rules valid YAML with what operators need; the name check finds the
 * metrics, labels and values a query uses, and reports those a scrape lacks. The check against a real scrape is in
 * {@link AwaApplicationIntegrationTests}.
 */
final class MonitoringAssetsUnitTests {

    @Test
    void shouldChartEveryTopicOfTheDashboard() throws Exception {
        List<String> metrics = MonitoringAssets.dashboardQueries().stream()
                .flatMap(query -> query.metrics().stream()).toList();

        assertThat(metrics).contains("awa_maintenance_prune_attempts_total", "awa_maintenance_prune_blocked_total",
                "awa_ring_sealed_slots", "awa_maintenance_prune_duration_seconds_bucket",
                "awa_maintenance_rotate_attempts_total", "awa_maintenance_leader",
                "awa_worker_job_duration_seconds_count", "awa_worker_job_duration_seconds_bucket",
                "awa_worker_claim_duration_seconds_bucket");
    }

    @Test
    void shouldShipEachAlertWithADurationAndASummarySayingWhatToDo() throws Exception {
        List<Map<String, Object>> rules = MonitoringAssets.rules();

        assertThat(rules).extracting(rule -> rule.get("alert")).containsExactlyInAnyOrder("AwaRingNotRecycling",
                "AwaRingPruneBlocked", "AwaRingPruneErrors", "AwaMaintenanceNoLeader", "AwaMaintenanceTaskFailing",
                "AwaMaintenanceTicksDropped");
        assertThat(rules).allSatisfy(rule -> {
            assertThat(rule.get("for")).as("for: of %s", rule.get("alert")).isNotNull();
            assertThat(((Map<?, ?>) rule.get("annotations")).get("summary")).asString()
                    .as("summary of %s", rule.get("alert")).hasSizeGreaterThan(80);
        });
        assertThat(MonitoringAssets.ruleQueries()).filteredOn(query -> query.where().contains("NotRecycling"))
                .singleElement().satisfies(query -> assertThat(query.metrics())
                        .containsExactlyInAnyOrder("awa_maintenance_prune_attempts_total", "awa_ring_sealed_slots"));
    }

    @Test
    void shouldTellMetricsFromLabelsInAQuery() {
        Query query = new Query("test", "sum by (awa_ring, le) (rate(awa_x_total{awa_ring_outcome=\"pruned\","
                + " awa_ring_reason=~\"a|b\"}[5m])) and on (awa_ring) awa_y > 0", List.of("{{awa_ring}} {{ $labels.awa_z }}"));

        assertThat(query.metrics()).containsExactly("awa_x_total", "awa_y");
        assertThat(query.labels()).containsExactlyInAnyOrder("awa_ring_outcome", "awa_ring_reason", "awa_ring", "le",
                "awa_z");
        assertThat(query.equalities()).containsOnlyKeys("awa_ring_outcome");
    }

    @Test
    void shouldReportWhatTheScrapeLacks() {
        String scrape = String.join("\n",
                "# HELP awa_x_total x",
                "# TYPE awa_x_total counter",
                "awa_x_total{awa_ring=\"queue\",awa_ring_outcome=\"pruned\"} 3.0",
                "awa_y{awa_ring=\"queue\"} 1.0");
        List<Query> queries = List.of(
                new Query("ok", "sum by (awa_ring, instance) (awa_x_total{awa_ring_outcome=\"pruned\"})", List.of()),
                new Query("renamed", "awa_x_count", List.of()),
                new Query("label", "sum by (awa_cause) (awa_y)", List.of()),
                new Query("value", "awa_x_total{awa_ring_outcome=\"prunned\"}", List.of()),
                new Query("legend", "awa_y", List.of("{{awa_queue}}")));

        assertThat(MonitoringAssets.problems(queries, scrape)).containsExactly(
                "renamed: metric awa_x_count is not in the scrape",
                "label: label awa_cause is on no series of [awa_y]",
                "value: no series of [awa_x_total] has awa_ring_outcome=\"prunned\"",
                "legend: label awa_queue is on no series of [awa_y]");
    }
}
