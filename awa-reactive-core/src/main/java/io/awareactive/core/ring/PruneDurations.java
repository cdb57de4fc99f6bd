package io.awareactive.core.ring;

import java.time.Duration;

/**
 * Phase timings of a successful prune.
 *
 * @param lock from the first child {@code LOCK TABLE} until the last one returned (gates excluded)
 * @param truncate the {@code TRUNCATE} statement
 * @param commit the {@code COMMIT}, which forces a WAL flush
 */
public record PruneDurations(Duration lock, Duration truncate, Duration commit) {
}
