package io.awareactive.spring.boot;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.PruneEvent;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A prune outcome as JSON, the data of each server-sent event of the outcome stream ({@code awa.web.*}): the ring, the
 * outcome label, and the outcome's own data where it has any (null otherwise). Immutable.
 *
 * @param ring {@code queue}, {@code lease} or {@code claim}
 * @param outcome the metric label: {@code pruned}, {@code blocked}, {@code skipped_active}, ...
 * @param slot the target slot, when the outcome has one
 * @param generation the pruned generation, for {@code pruned} and {@code already_pruned}
 * @param reason the skip reason of {@code skipped_active}
 * @param cause the cause of {@code blocked}
 * @param sqlState the SQLSTATE of {@code error}
 * @param at when the engine decided the outcome
 * @param blockers who held the conflicting locks of a {@code blocked} prune (blocker diagnostics on)
 */
public record PruneOutcomeView(String ring, String outcome, @Nullable Integer slot, @Nullable Long generation,
        @Nullable String reason, @Nullable String cause, @Nullable String sqlState, Instant at,
        List<Blocker> blockers) {

    /**
     * A session holding a conflicting lock.
     *
     * @param pid its backend pid
     * @param applicationName its application name
     * @param state its state
     * @param query its current or last query
     */
    public record Blocker(int pid, @Nullable String applicationName, @Nullable String state, @Nullable String query) {
        /**
         * The view of a lock holder.
         *
         * @param holder the holder
         * @return its view
         */
        public static Blocker of(LockHolder holder) {
            return new Blocker(holder.pid(), holder.applicationName(), holder.state(), holder.query());
        }
    }

    /**
     * The view of an event.
     *
     * @param event the event
     * @return its view
     */
    public static PruneOutcomeView of(PruneEvent event) {
        Integer slot = null;
        Long generation = null;
        String reason = null;
        String cause = null;
        String sqlState = null;
        PruneOutcome outcome = event.outcome();
        if (outcome instanceof PruneOutcome.Pruned p) {
            slot = p.slot();
            generation = p.generation();
        } else if (outcome instanceof PruneOutcome.Blocked b) {
            slot = b.slot();
            cause = b.cause().label();
        } else if (outcome instanceof PruneOutcome.SkippedActive s) {
            slot = s.slot();
            reason = s.reason().label();
        } else if (outcome instanceof PruneOutcome.AlreadyPruned a) {
            slot = a.slot();
            generation = a.generation();
        } else if (outcome instanceof PruneOutcome.Failed f) {
            slot = f.slot();
            sqlState = f.sqlState();
        }
        return new PruneOutcomeView(event.ring().label(), event.outcome().label(), slot, generation, reason, cause,
                sqlState, event.at(), event.blockers().stream().map(Blocker::of).toList());
    }
}
