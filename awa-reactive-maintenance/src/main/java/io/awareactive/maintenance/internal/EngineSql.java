package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.StartupWarning;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The engine's own SQL, beside the ring work it drives through {@code RingOperations}: the leader lock, the blocker
 * lookup of a blocked prune and the startup diagnostics. {@link PostgresEngineSql} is the real implementation; tests
 * of the loop's own scheduling (virtual time) substitute a fake. Every method is lazy and non-blocking.
 */
public interface EngineSql {

    /**
     * One election attempt.
     *
     * @return the leadership when won; empty when another instance leads; an error when the attempt failed
     */
    Mono<Leadership> tryLead();

    /**
     * The sessions holding locks that conflict with a prune of the slot.
     *
     * @param ring the ring
     * @param slot the slot
     * @return the holders
     */
    Mono<List<LockHolder>> blockers(Ring ring, int slot);

    /**
     * The startup diagnostics (§9 of the design): never errors.
     *
     * @param lockTimeout the effective prune lock timeout
     * @return the warnings, possibly empty
     */
    Mono<List<StartupWarning>> diagnose(Duration lockTimeout);

    /** A won leadership: the held leader lock. */
    interface Leadership {

        /**
         * Checks the leader connection ({@code SELECT 1}).
         *
         * @return completion; an error when the connection failed
         */
        Mono<Void> check();

        /**
         * Unlocks and closes the leader connection; never errors (closing frees the lock anyway).
         *
         * @return completion
         */
        Mono<Void> release();
    }
}
