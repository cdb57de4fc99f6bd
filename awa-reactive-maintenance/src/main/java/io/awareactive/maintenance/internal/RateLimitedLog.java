package io.awareactive.maintenance.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Lets one log line per key through per interval, so a persistent failure cannot flood (blocking) appenders. */
final class RateLimitedLog {

    private final Clock clock;
    private final Duration every;
    private final Map<String, Instant> last = new ConcurrentHashMap<>();

    RateLimitedLog(Clock clock, Duration every) {
        this.clock = clock;
        this.every = every;
    }

    /** Whether a line for {@code key} may be logged now; records the permit. */
    boolean permit(String key) {
        Instant now = clock.instant();
        boolean[] granted = {false};
        last.compute(key, (k, previous) -> {
            if (previous == null || !now.isBefore(previous.plus(every))) {
                granted[0] = true;
                return now;
            }
            return previous;
        });
        return granted[0];
    }
}
