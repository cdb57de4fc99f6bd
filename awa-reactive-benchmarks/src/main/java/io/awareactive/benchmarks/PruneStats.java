package io.awareactive.benchmarks;

import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Prune outcomes counted per ring, label and blocked cause, plus the lock time of pruned attempts. Thread-safe.
 */
final class PruneStats {

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final LongAdder prunedLockMicros = new LongAdder();
    private final AtomicLong maxLockMicros = new AtomicLong();

    void record(Ring ring, PruneOutcome outcome) {
        increment(ring.label() + "." + outcome.label());
        increment(ring.label() + ".events");
        if (outcome instanceof PruneOutcome.Blocked blocked) {
            increment(ring.label() + ".blocked." + blocked.cause().label());
        }
        if (outcome instanceof PruneOutcome.Pruned pruned && ring == Ring.QUEUE) {
            long micros = pruned.durations().lock().toNanos() / 1_000;
            prunedLockMicros.add(micros);
            maxLockMicros.accumulateAndGet(micros, Math::max);
        }
    }

    private void increment(String key) {
        counts.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    /** How many outcomes of a ring carried this label ({@code pruned}, {@code blocked}, ...). */
    long count(Ring ring, String label) {
        LongAdder adder = counts.get(ring.label() + "." + label);
        return adder == null ? 0 : adder.sum();
    }

    /** How many {@code Blocked} outcomes of a ring had this cause ({@code nowait}, {@code lock_timeout}, ...). */
    long blocked(Ring ring, String cause) {
        return count(ring, "blocked." + cause);
    }

    /**
     * Prune attempts of a ring that ran a prune transaction: every outcome but the engine's own
     * {@code already_pruned} and {@code backed_off}.
     */
    long attempts(Ring ring) {
        return count(ring, "pruned") + count(ring, "noop") + count(ring, "blocked") + count(ring, "skipped_active")
                + count(ring, "error");
    }

    /** Every event of a ring (one per ring tick that reached the prune step). */
    long events(Ring ring) {
        return count(ring, "events");
    }

    /** Mean lock phase of pruned queue slots, in milliseconds (NaN when none was pruned). */
    double meanQueueLockMillis() {
        long pruned = count(Ring.QUEUE, "pruned");
        return pruned == 0 ? Double.NaN : prunedLockMicros.sum() / 1_000.0 / pruned;
    }

    /** Longest lock phase of a pruned queue slot, in milliseconds (NaN when none was pruned). */
    double maxQueueLockMillis() {
        return count(Ring.QUEUE, "pruned") == 0 ? Double.NaN : maxLockMicros.get() / 1_000.0;
    }

    void reset() {
        counts.clear();
        prunedLockMicros.reset();
        maxLockMicros.set(0);
    }
}
