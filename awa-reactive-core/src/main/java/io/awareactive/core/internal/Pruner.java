package io.awareactive.core.internal;

import io.awareactive.core.PruneOutcome;
import io.awareactive.core.Ring;
import io.awareactive.core.RollupOutcome;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Ring prune and terminal-count rollup. SCAFFOLD: being implemented (issue: transactional ring prune). */
public final class Pruner {

    private final ConnectionFactory connectionFactory;
    private final Schema schema;
    private final long lockTimeoutMillis;

    /**
     * Creates a pruner.
     *
     * @param connectionFactory pooled connections
     * @param schema the schema
     * @param lockTimeoutMillis the effective lock timeout, set transaction-locally first
     */
    public Pruner(ConnectionFactory connectionFactory, Schema schema, long lockTimeoutMillis) {
        this.connectionFactory = connectionFactory;
        this.schema = schema;
        this.lockTimeoutMillis = lockTimeoutMillis;
    }

    /**
     * Prunes the ring's oldest sealed slot.
     *
     * @param ring the ring
     * @return the outcome
     */
    public Mono<PruneOutcome> prune(Ring ring) {
        return Mono.error(new UnsupportedOperationException("prune " + ring + " of " + schema.name() + " via "
                + connectionFactory + " with " + lockTimeoutMillis + " ms: not implemented yet"));
    }

    /**
     * Folds sealed slots' terminal-count deltas.
     *
     * @param maxSlots the most slots
     * @param mvccPinMinAge snapshot age that pins
     * @param mvccPinMinXids xid age that pins
     * @return the outcomes
     */
    public Flux<RollupOutcome> rollup(int maxSlots, Duration mvccPinMinAge, long mvccPinMinXids) {
        return Flux.error(new UnsupportedOperationException("rollup: not implemented yet"));
    }
}
