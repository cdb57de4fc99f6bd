package io.awareactive.maintenance.internal;

import io.awareactive.core.Ring;
import io.awareactive.core.internal.Schema;
import io.awareactive.core.ring.RingOperations;
import io.awareactive.maintenance.LockHolder;
import io.awareactive.maintenance.StartupWarning;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The real {@link EngineSql}: the leader lock on its own physical connection, and the blocker and diagnostics
 * queries on the storage's (pooled) connections, so ring work and these reads share one pool and a failed prune
 * never costs leadership.
 */
public final class PostgresEngineSql implements EngineSql {

    private final LeaderLock leaderLock;
    private final BlockerQuery blockerQuery;
    private final ConnectionFactory storageFactory;

    /**
     * Creates the queries; does no I/O.
     *
     * @param leaderConnectionFactory the non-pooling factory of the leader connection
     * @param ring the storage's ring operations (their schema and connection factory are used)
     */
    public PostgresEngineSql(ConnectionFactory leaderConnectionFactory, RingOperations ring) {
        Schema schema = new Schema(ring.schema());
        this.storageFactory = ring.connectionFactory();
        this.leaderLock = new LeaderLock(leaderConnectionFactory, schema.leaderKey());
        this.blockerQuery = new BlockerQuery(storageFactory, schema);
    }

    @Override
    public Mono<Leadership> tryLead() {
        return leaderLock.tryLead();
    }

    @Override
    public Mono<List<LockHolder>> blockers(Ring ring, int slot) {
        return blockerQuery.holders(ring, slot);
    }

    @Override
    public Mono<List<StartupWarning>> diagnose(Duration lockTimeout) {
        return Diagnostics.run(storageFactory, lockTimeout);
    }
}
