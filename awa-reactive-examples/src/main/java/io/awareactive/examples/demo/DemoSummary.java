package io.awareactive.examples.demo;

import io.awareactive.core.QueueCounts;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.RingCursor;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a demo run did: jobs, ring cursors, prune outcomes per ring, blocked causes and blockers, the metrics endpoint.
 *
 * @param ran how long producers and workers ran
 * @param enqueued jobs the producers enqueued
 * @param completed jobs the workers' handlers finished
 * @param producerErrors failed enqueue batches
 * @param counts the demo queue's counts at the end
 * @param cursors each ring's final slot and generation
 * @param outcomes prune outcome counts per ring and label
 * @param blockedCauses blocked prunes per "ring cause"
 * @param blockers the sessions blocker diagnostics named
 * @param resumedAfter time from the contending reader letting go to the next pruned queue slot
 * @param metricsUrl the scrape URL
 * @param scrapes scrapes answered
 */
record DemoSummary(Duration ran, long enqueued, long completed, long producerErrors, QueueCounts counts,
        Map<Ring, RingCursor> cursors, Map<Ring, Map<String, Long>> outcomes, Map<String, Long> blockedCauses,
        List<String> blockers, @Nullable Duration resumedAfter, String metricsUrl, long scrapes) {

    long count(Ring ring, String label) {
        return outcomes.get(ring).getOrDefault(label, 0L);
    }

    /** The summary table and notes, as printed at the end of the run. */
    String render() {
        StringBuilder text = new StringBuilder("\n");
        text.append(String.format(Locale.ROOT, "Summary after %.1fs: %d jobs enqueued, %d completed "
                        + "(queue %s: %d completed, %d available, %d running%s)%n",
                ran.toMillis() / 1000.0, enqueued, completed, counts.queue(), counts.completed(), counts.available(),
                counts.running(), producerErrors == 0 ? "" : "; " + producerErrors + " enqueue batches failed"));
        text.append(String.format(Locale.ROOT, "%n%-6s %10s %11s", "ring", "slot/gen", "rotations"));
        for (String label : OutcomeTally.LABELS) {
            text.append(String.format(Locale.ROOT, " %" + Math.max(6, label.length()) + "s", label));
        }
        text.append('\n');
        for (Ring ring : Ring.values()) {
            RingCursor cursor = cursors.get(ring);
            text.append(String.format(Locale.ROOT, "%-6s %10s %11d", ring.label(),
                    cursor.slot() + "/" + cursor.generation(), cursor.generation()));
            for (String label : OutcomeTally.LABELS) {
                text.append(String.format(Locale.ROOT, " %" + Math.max(6, label.length()) + "d", count(ring, label)));
            }
            text.append('\n');
        }
        text.append('\n');
        if (blockedCauses.isEmpty()) {
            text.append("Blocked prunes: none\n");
        } else {
            text.append("Blocked prunes by cause: ");
            text.append(String.join(", ", blockedCauses.entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue()).toList()));
            text.append('\n');
        }
        blockers.forEach(blocker -> text.append("  blocker: ").append(blocker).append('\n'));
        if (resumedAfter != null) {
            text.append(String.format(Locale.ROOT, "Queue prunes resumed %.1fs after the contending reader let go.%n",
                    resumedAfter.toMillis() / 1000.0));
        }
        text.append("Metrics endpoint ").append(metricsUrl).append(" answered ").append(scrapes)
                .append(scrapes == 1 ? " scrape" : " scrapes").append(".\n");
        return text.toString();
    }
}
