package io.awareactive.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Design §10 and §12 scenario 24: the complete meter list, registered eagerly at zero and removed on stop. */
final class MeterRegistrationUnitTests {

    private final VirtualTime time = new VirtualTime();

    private static String id(Meter meter) {
        return meter.getId().getName() + meter.getId().getTags().stream()
                .filter(t -> !t.getKey().equals("awa.schema"))
                .map(t -> t.getKey() + "=" + t.getValue())
                .collect(Collectors.joining(",", "{", "}"));
    }

    /** The meters the engine registered (not the registry's own derived SLO-bucket gauges). */
    private static List<Meter> engineMeters(SimpleMeterRegistry registry) {
        return registry.getMeters().stream().filter(m -> !m.getId().getName().endsWith(".histogram"))
                .collect(Collectors.toList());
    }

    private static Set<String> expected() {
        Set<String> ids = new TreeSet<>();
        for (String ring : List.of("queue", "lease", "claim")) {
            for (String outcome : List.of("already_pruned", "backed_off", "blocked", "error", "noop", "pruned")) {
                ids.add("awa.maintenance.prune.attempts{awa.ring=" + ring + ",awa.ring.outcome=" + outcome
                        + ",awa.ring.reason=none}");
            }
            for (String cause : List.of("lock_timeout", "nowait", "serializer_busy")) {
                ids.add("awa.maintenance.prune.blocked{awa.ring=" + ring + ",awa.ring.cause=" + cause + "}");
            }
            for (String phase : List.of("commit", "lock", "truncate")) {
                ids.add("awa.maintenance.prune.duration{awa.maintenance.phase=" + phase + ",awa.ring=" + ring + "}");
            }
            for (String outcome : List.of("rotated", "skipped_idle")) {
                ids.add("awa.maintenance.rotate.attempts{awa.ring=" + ring + ",awa.ring.blocker=none,awa.ring.outcome="
                        + outcome + "}");
            }
            for (String blocker : List.of("inflight_writes", "serializer_busy", "lost_cas")) {
                ids.add("awa.maintenance.rotate.attempts{awa.ring=" + ring + ",awa.ring.blocker=" + blocker
                        + ",awa.ring.outcome=skipped_busy}");
            }
            for (String gauge : List.of("awa.ring.current_slot", "awa.ring.generation", "awa.ring.sealed_slots")) {
                ids.add(gauge + "{awa.ring=" + ring + "}");
            }
        }
        for (String reason : List.of("queue.active_leases", "queue.unclosed_claim_refs", "queue.pending_ready",
                "lease.current", "lease.active", "claim.current", "claim.open")) {
            ids.add("awa.maintenance.prune.attempts{awa.ring=" + reason.substring(0, reason.indexOf('.'))
                    + ",awa.ring.outcome=skipped_active,awa.ring.reason=" + reason + "}");
        }
        for (String blocker : List.of("queue.ready_rows", "queue.ready_segments", "queue.claim_ranges",
                "queue.tombstones", "queue.done_rows", "queue.terminal_deltas", "lease.rows", "lease.run_rows",
                "lease.run_closure_rows", "claim.rows", "claim.closure_rows")) {
            ids.add("awa.maintenance.rotate.attempts{awa.ring=" + blocker.substring(0, blocker.indexOf('.'))
                    + ",awa.ring.blocker=" + blocker + ",awa.ring.outcome=skipped_busy}");
        }
        for (String outcome : List.of("rolled", "empty", "blocked", "skipped_mvcc_pinned", "error")) {
            ids.add("awa.maintenance.rollup.attempts{awa.ring=queue,awa.ring.outcome=" + outcome + "}");
        }
        for (String task : List.of("ring_queue", "ring_lease", "ring_claim", "promote", "rescue", "dlq_purge",
                "rollup", "fold", "trim", "sealed_slots_refresh", "election", "leader_check")) {
            ids.add("awa.maintenance.task.failures{awa.maintenance.task=" + task + "}");
        }
        for (String task : List.of("ring_queue", "ring_lease", "ring_claim", "rollup", "promote", "rescue",
                "dlq_purge")) {
            ids.add("awa.maintenance.ticks.dropped{awa.maintenance.task=" + task + "}");
        }
        ids.add("awa.maintenance.leader{}");
        return ids;
    }

    @Test
    void shouldRegisterEverySeriesAtZeroWhenTheEngineIsCreated() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RingMaintenance engine = RingMaintenance.create(time.config(registry)
                .meterTags(Tags.of("awa.schema", "virtual_time")).build(), new FakePort(), new FakePort());

        Set<String> registered = engineMeters(registry).stream().map(MeterRegistrationUnitTests::id)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(registered).isEqualTo(expected());
        assertThat(engineMeters(registry)).hasSize(expected().size());
        // SimpleMeterRegistry renders the timer's SLO buckets as extra ".histogram" gauges of its own.
        assertThat(registry.find("awa.maintenance.prune.duration.histogram").meters()).hasSize(9 * 14);
        assertThat(registry.find("awa.maintenance.prune.attempts").counters()).hasSize(25);
        assertThat(registry.find("awa.maintenance.prune.blocked").counters()).hasSize(9);
        assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTags())
                .contains(Tag.of("awa.schema", "virtual_time")));
        assertThat(registry.find("awa.maintenance.prune.attempts").counters())
                .allSatisfy(counter -> assertThat(counter.count()).isZero());
        assertThat(registry.get("awa.maintenance.leader").gauge().value()).isZero();
        assertThat(registry.get("awa.ring.generation").tag("awa.ring", "claim").gauge().value()).isNaN();

        engine.stop(Duration.ZERO).block(Duration.ofSeconds(5));
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void shouldDocumentEveryRegisteredMeterName() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FakePort fake = new FakePort();
        RingMaintenance.create(time.config(registry).build(), fake, fake);

        for (MaintenanceMeters meter : MaintenanceMeters.values()) {
            List<Meter> found = new ArrayList<>(registry.find(meter.meterName()).meters());
            assertThat(found).as(meter.meterName()).isNotEmpty().allSatisfy(m -> {
                assertThat(m.getId().getType()).isEqualTo(meter.type());
                assertThat(m.getId().getDescription()).isEqualTo(meter.description());
                assertThat(m.getId().getTags()).extracting(Tag::getKey)
                        .containsExactlyInAnyOrderElementsOf(meter.tagKeys());
            });
        }
        assertThat(engineMeters(registry)).extracting(m -> m.getId().getName()).allMatch(name -> List.of(
                MaintenanceMeters.values()).stream().anyMatch(meter -> meter.meterName().equals(name)));
    }

    @Test
    void shouldTagEveryTaskWithOneValueOnBothTaskMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FakePort fake = new FakePort();
        RingMaintenance.create(time.config(registry).build(), fake, fake);

        Set<String> dropped = tagValues(registry, "awa.maintenance.ticks.dropped");
        Set<String> failures = tagValues(registry, "awa.maintenance.task.failures");

        // Every task a tick can be dropped for is also a value of the failure counter, spelled the same way.
        assertThat(dropped).containsExactlyInAnyOrder("ring_queue", "ring_lease", "ring_claim", "rollup", "promote",
                "rescue", "dlq_purge");
        assertThat(failures).containsAll(dropped);
    }

    private static Set<String> tagValues(SimpleMeterRegistry registry, String meter) {
        return registry.find(meter).counters().stream().map(c -> c.getId().getTag("awa.maintenance.task"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void shouldScrapeWithTheDocumentedPrometheusNamesAndBoundedTagValuesOnly() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FakePort fake = new FakePort();
        RingMaintenance.create(time.config(registry).build(), fake, fake);

        String scrape = registry.scrape();

        assertThat(scrape).contains(
                "awa_maintenance_prune_attempts_total{awa_ring=\"queue\",awa_ring_outcome=\"blocked\",awa_ring_reason=\"none\"} 0.0",
                "awa_maintenance_prune_blocked_total{awa_ring=\"lease\",awa_ring_cause=\"nowait\"} 0.0",
                "awa_maintenance_prune_duration_seconds_bucket{awa_maintenance_phase=\"lock\",awa_ring=\"queue\",le=\"0.01\"} 0",
                "awa_maintenance_prune_duration_seconds_count{awa_maintenance_phase=\"commit\",awa_ring=\"claim\"} 0",
                "awa_maintenance_prune_duration_seconds_max{",
                "awa_maintenance_rotate_attempts_total{awa_ring=\"queue\",awa_ring_blocker=\"inflight_writes\",awa_ring_outcome=\"skipped_busy\"} 0.0",
                "awa_maintenance_rollup_attempts_total{awa_ring=\"queue\",awa_ring_outcome=\"skipped_mvcc_pinned\"} 0.0",
                "awa_maintenance_task_failures_total{awa_maintenance_task=\"sealed_slots_refresh\"} 0.0",
                "awa_maintenance_ticks_dropped_total{awa_maintenance_task=\"ring_claim\"} 0.0",
                "awa_ring_current_slot{awa_ring=\"queue\"} NaN",
                "awa_ring_generation{awa_ring=\"lease\"} NaN",
                "awa_ring_sealed_slots{awa_ring=\"claim\"} NaN",
                "awa_maintenance_leader 0.0");
        // Tag allow-list: every label value is one of the bounded words, never a number, SQL or message.
        Pattern allowed = Pattern.compile("[a-z_.]+|[0-9.+Inf]+");
        registry.getMeters().forEach(meter -> meter.getId().getTags().forEach(tag ->
                assertThat(tag.getValue()).matches(allowed).doesNotContainPattern("[0-9]")));
    }
}
