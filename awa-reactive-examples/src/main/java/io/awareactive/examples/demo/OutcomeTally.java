package io.awareactive.examples.demo;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.PruneEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Counts the prune outcomes the engine publishes, per ring and label, and remembers who blocked and when prunes
 * resumed. Fed from the outcome stream's thread, read by the demo's printing thread: thread-safe.
 */
final class OutcomeTally {

    /** Outcome labels in the order the demo prints them. */
    static final List<String> LABELS = List.of("pruned", "blocked", "skipped_active", "backed_off", "already_pruned",
            "noop", "error");

    /** Short forms of the labels for the live line. */
    static String shortLabel(String label) {
        return switch (label) {
            case "skipped_active" -> "skipped";
            case "backed_off" -> "backoff";
            case "already_pruned" -> "already";
            default -> label;
        };
    }

    private final Map<Ring, Map<String, Long>> counts = new EnumMap<>(Ring.class);
    private final Map<String, Long> blockedCauses = new LinkedHashMap<>();
    private final Map<Integer, String> blockers = new LinkedHashMap<>();
    private final AtomicReference<@Nullable Instant> contentionEnded = new AtomicReference<>();
    private @Nullable Instant firstQueuePruneAfterContention;

    OutcomeTally() {
        for (Ring ring : Ring.values()) {
            Map<String, Long> perLabel = new LinkedHashMap<>();
            LABELS.forEach(label -> perLabel.put(label, 0L));
            counts.put(ring, perLabel);
        }
    }

    /**
     * Records one event.
     *
     * @return the descriptions of blockers not seen before (to print once each)
     */
    synchronized List<String> record(PruneEvent event) {
        counts.get(event.ring()).merge(event.outcome().label(), 1L, Long::sum);
        if (event.outcome() instanceof PruneOutcome.Blocked blocked) {
            blockedCauses.merge(event.ring().label() + " " + blocked.cause().label(), 1L, Long::sum);
            // Name the holder whose transaction is oldest: short-lived holders (claimers) come and go, the oldest
            // one is what kept the prune from its lock.
            List<String> fresh = new ArrayList<>();
            event.blockers().stream()
                    .max(Comparator.comparing(holder -> holder.transactionAge() == null ? Duration.ZERO
                            : holder.transactionAge()))
                    .filter(holder -> !blockers.containsKey(holder.pid()))
                    .ifPresent(holder -> {
                        String description = describe(holder);
                        blockers.put(holder.pid(), description);
                        fresh.add(event.ring().label() + " slot " + blocked.slot() + " " + blocked.cause().label()
                                + ": the oldest lock holder is " + description);
                    });
            return fresh;
        }
        Instant ended = contentionEnded.get();
        if (event.ring() == Ring.QUEUE && event.outcome() instanceof PruneOutcome.Pruned && ended != null
                && firstQueuePruneAfterContention == null && !event.at().isBefore(ended)) {
            firstQueuePruneAfterContention = event.at();
        }
        return List.of();
    }

    /** Marks the moment the contending reader let go. */
    void contentionEnded(Instant at) {
        contentionEnded.set(at);
    }

    synchronized long count(Ring ring, String label) {
        return counts.get(ring).getOrDefault(label, 0L);
    }

    synchronized Map<Ring, Map<String, Long>> snapshot() {
        Map<Ring, Map<String, Long>> copy = new EnumMap<>(Ring.class);
        counts.forEach((ring, perLabel) -> copy.put(ring, Map.copyOf(perLabel)));
        return copy;
    }

    synchronized Map<String, Long> blockedCauses() {
        return new LinkedHashMap<>(blockedCauses);
    }

    synchronized List<String> blockers() {
        return List.copyOf(blockers.values());
    }

    synchronized @Nullable Instant firstQueuePruneAfterContention() {
        return firstQueuePruneAfterContention;
    }

    @Nullable Instant contentionEndedAt() {
        return contentionEnded.get();
    }

    static String describe(LockHolder holder) {
        StringBuilder text = new StringBuilder("pid ").append(holder.pid());
        if (holder.applicationName() != null && !holder.applicationName().isEmpty()) {
            text.append(" (").append(holder.applicationName()).append(')');
        }
        if (holder.state() != null) {
            text.append(", ").append(holder.state());
        }
        if (holder.transactionAge() != null) {
            text.append(", transaction ").append(DemoOptions.format(holder.transactionAge())).append(" old");
        }
        if (holder.query() != null && !holder.query().isBlank()) {
            text.append(": ").append(holder.query().strip().replaceAll("\\s+", " "));
        }
        return text.toString();
    }
}
