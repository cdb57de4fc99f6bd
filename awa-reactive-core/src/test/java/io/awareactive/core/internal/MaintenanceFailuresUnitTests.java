package io.awareactive.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.core.ring.BlockedCause;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RollupOutcome;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcRollbackException;
import io.r2dbc.spi.R2dbcTransientResourceException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

final class MaintenanceFailuresUnitTests {

    private static final R2dbcNonTransientResourceException LOCK_TIMEOUT =
            new R2dbcNonTransientResourceException("canceling statement due to lock timeout", "55P03");

    @Test
    void shouldBlockOnLockNotAvailableWithTheRunningStepsCause() {
        assertThat(MaintenanceFailures.pruneOutcome(LOCK_TIMEOUT, 3, BlockedCause.LOCK_TIMEOUT))
                .isEqualTo(new PruneOutcome.Blocked(3, BlockedCause.LOCK_TIMEOUT));
        assertThat(MaintenanceFailures.pruneOutcome(new R2dbcNonTransientResourceException(
                        "could not obtain lock on relation", "55P03"), 0, BlockedCause.NOWAIT))
                .isEqualTo(new PruneOutcome.Blocked(0, BlockedCause.NOWAIT));
    }

    @Test
    void shouldFindAWrappedLockNotAvailableThroughTheCauseChain() {
        RuntimeException wrapped = new RuntimeException("outer", new IllegalStateException("middle", LOCK_TIMEOUT));
        assertThat(MaintenanceFailures.pruneOutcome(wrapped, 1, BlockedCause.LOCK_TIMEOUT))
                .isEqualTo(new PruneOutcome.Blocked(1, BlockedCause.LOCK_TIMEOUT));
        assertThat(MaintenanceFailures.rollupOutcome(wrapped, 2))
                .isEqualTo(new RollupOutcome.Blocked(2, BlockedCause.LOCK_TIMEOUT));
    }

    @Test
    void shouldFailOnOtherStatesOrNoStateWhateverTheExceptionClass() {
        R2dbcNonTransientResourceException connectionLost =
                new R2dbcNonTransientResourceException("connection failure", "08006");
        assertThat(MaintenanceFailures.pruneOutcome(connectionLost, 0, BlockedCause.LOCK_TIMEOUT))
                .isEqualTo(new PruneOutcome.Failed(0, "08006", connectionLost));

        R2dbcNonTransientResourceException noState = new R2dbcNonTransientResourceException("no state");
        assertThat(MaintenanceFailures.pruneOutcome(noState, 0, BlockedCause.LOCK_TIMEOUT))
                .isEqualTo(new PruneOutcome.Failed(0, null, noState));

        TimeoutException poolTimeout = new TimeoutException("pool acquire");
        assertThat(MaintenanceFailures.pruneOutcome(poolTimeout, null, BlockedCause.LOCK_TIMEOUT))
                .isEqualTo(new PruneOutcome.Failed(null, null, poolTimeout));

        // A COMMIT of an aborted transaction: never mistaken for a lock failure.
        R2dbcRollbackException rollback = new R2dbcRollbackException("rolled back", "40000");
        assertThat(MaintenanceFailures.pruneOutcome(rollback, 0, BlockedCause.LOCK_TIMEOUT))
                .isEqualTo(new PruneOutcome.Failed(0, "40000", rollback));

        R2dbcTransientResourceException deadlock = new R2dbcTransientResourceException("deadlock", "40P01");
        assertThat(MaintenanceFailures.rollupOutcome(deadlock, 1))
                .isEqualTo(new RollupOutcome.Failed(1, "40P01", deadlock));
    }

    @Test
    void shouldFailOnLockNotAvailableBeforeTheTargetIsKnown() {
        assertThat(MaintenanceFailures.pruneOutcome(LOCK_TIMEOUT, null, BlockedCause.LOCK_TIMEOUT))
                .isEqualTo(new PruneOutcome.Failed(null, "55P03", LOCK_TIMEOUT));
    }

    @Test
    void shouldPointStatementTimeoutAndDeadlockMessagesAtTheirSettings() {
        R2dbcNonTransientResourceException canceled =
                new R2dbcNonTransientResourceException("canceling statement due to statement timeout", "57014");
        assertThat(MaintenanceFailures.message("prune", "queue", 3, "57014", canceled, 10))
                .isEqualTo("prune of the queue ring, slot 3, was cancelled (SQLSTATE 57014) by statement_timeout or"
                        + " a cancel request; raise statement_timeout for the maintenance role well above the prune"
                        + " lock timeout (10 ms) and the time a prune's statements take, or set it to 0");
        assertThat(MaintenanceFailures.message("prune", "lease", 1, "40P01", canceled, 2000))
                .startsWith("prune of the lease ring, slot 1, was cancelled as a deadlock victim (SQLSTATE 40P01)")
                .contains("deadlock_timeout")
                .contains("(2000 ms)");
        assertThat(MaintenanceFailures.message("rollup", "queue", null, null, new IllegalStateException("bug"), 10))
                .isEqualTo("rollup of the queue ring, before its target slot was known, failed (SQLSTATE none):"
                        + " java.lang.IllegalStateException: bug");
    }
}
