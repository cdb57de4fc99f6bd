package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.spi.R2dbcException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Rescue reads a lease slot only when a lease in it can be stale (schema step 15): when the slot's tallies count a
 * live lease and the slot was opened before the staleness horizon or a tallied deadline has passed. Each check holds
 * {@code ACCESS EXCLUSIVE} on the lease slot's child while rescue runs: a rescue that reads the child fails with
 * 55P03 at its lock timeout (100 ms), one that does not returns.
 */
@AwaPostgresTest
final class RescueIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String READ_THE_SLOT = "read the slot (55P03)";

    private final TestDatabase db;
    private String schema;

    RescueIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        Fixtures.installed(db.connectionFactory(), schema);
    }

    /** A storage whose rescue takes back attempts without a heartbeat for {@code staleAfter}. */
    private QueueStorage storage(Duration staleAfter) {
        return QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, b -> b
                .heartbeatInterval(staleAfter.dividedBy(3)).leaseStaleAfter(staleAfter)
                .retryBackoffBase(Duration.ZERO)));
    }

    private Job claimOne(QueueStorage s) {
        List<Job> jobs = s.claim("q", 1, "w").collectList().block(WAIT);
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    /** What a rescue does while another session holds the lease child of {@code slot}: rescued N, or 55P03. */
    private String rescueWhileTheSlotIsLocked(QueueStorage s, int slot) {
        try (Connection holder = db.openJdbc(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("LOCK TABLE \"" + schema + "\".leases_" + slot + " IN ACCESS EXCLUSIVE MODE");
            try {
                return "rescued " + s.ringOperations().rescue(10).block(WAIT);
            } catch (R2dbcException e) {
                assertThat(e.getSqlState()).isEqualTo("55P03");
                return READ_THE_SLOT;
            } finally {
                holder.rollback();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the lease slot was opened (its ledger row written) more than {@code age} ago. */
    private boolean openedBefore(int slot, Duration age) {
        return db.queryLong("SELECT count(*) FROM \"" + schema + "\".lease_ring_rotations WHERE slot = " + slot
                + " AND rotated_at < clock_timestamp() - interval '" + age.toMillis() + " milliseconds'") > 0;
    }

    @Test
    void shouldNotReadASlotOpenedWithinTheHorizonWhoseLeasesHaveNoPassedDeadline() {
        QueueStorage s = storage(Duration.ofHours(1));
        s.enqueue(JobRequest.builder("q", "k").timeout(Duration.ofHours(1)).build()).block(WAIT);
        s.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        Job withDeadline = claimOne(s);
        Job withoutDeadline = claimOne(s);

        // Up to step 14 rescue scanned the leases parent, and this call failed with 55P03.
        assertThat(rescueWhileTheSlotIsLocked(s, withDeadline.leaseSlot())).isEqualTo("rescued 0");

        assertThat(s.heartbeat(List.of(withDeadline, withoutDeadline)).collectList().block(WAIT))
                .containsExactlyInAnyOrder(withDeadline.id(), withoutDeadline.id());
    }

    @Test
    void shouldReadASlotOnceItWasOpenedBeforeTheHorizonAndRescueItsStaleLease() {
        Duration staleAfter = Duration.ofSeconds(1);
        QueueStorage s = storage(staleAfter);
        long id = s.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        Job stale = claimOne(s);

        await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> openedBefore(stale.leaseSlot(), staleAfter));
        assertThat(rescueWhileTheSlotIsLocked(s, stale.leaseSlot())).isEqualTo(READ_THE_SLOT);

        // The slot was opened before the claim: its lease turns stale a little later.
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> s.ringOperations().rescue(10).block(WAIT) == 1);
        assertThat(s.heartbeat(stale).block(WAIT)).isFalse();
        Job retry = claimOne(s);
        assertThat(retry.id()).isEqualTo(id);
        assertThat(retry.attempt()).isEqualTo(2);
    }

    @Test
    void shouldReadASlotOpenedWithinTheHorizonOnceATalliedDeadlineHasPassed() {
        QueueStorage s = storage(Duration.ofHours(1));
        long id = s.enqueue(JobRequest.builder("q", "k").maxAttempts(1).timeout(Duration.ofMillis(200)).build())
                .block(WAIT);
        Job job = claimOne(s);

        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> Instant.now().isAfter(job.deadline()));
        assertThat(rescueWhileTheSlotIsLocked(s, job.leaseSlot())).isEqualTo(READ_THE_SLOT);

        assertThat(s.ringOperations().rescue(10).block(WAIT)).isEqualTo(1);
        assertThat(s.status(id).block(WAIT)).satisfies(status -> {
            assertThat(status.state()).isEqualTo(JobState.FAILED);
            assertThat(status.error()).isEqualTo("rescued: deadline passed");
        });
    }

    @Test
    void shouldNotReadAnOldSlotOnceEveryLeaseInItHasEnded() {
        Duration staleAfter = Duration.ofSeconds(1);
        QueueStorage s = storage(staleAfter);
        s.enqueueAll(Flux.range(0, 3).map(i -> JobRequest.builder("q", "k").timeout(Duration.ofMillis(100)).build()))
                .blockLast(WAIT);
        // Claimed in two statements and ended three ways, each tallied by its own statement.
        List<Job> first = s.claim("q", 2, "w").collectList().block(WAIT);
        Job last = claimOne(s);
        assertThat(s.completeAll(first).block(WAIT)).containsOnly(AttemptResult.COMPLETED);
        assertThat(s.release(last).block(WAIT)).isEqualTo(AttemptResult.RELEASED);
        Job again = claimOne(s);
        assertThat(s.fail(again, "boom").block(WAIT)).isEqualTo(AttemptResult.RETRY_SCHEDULED);

        await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> openedBefore(last.leaseSlot(), staleAfter)
                        && Instant.now().isAfter(again.deadline()));
        assertThat(rescueWhileTheSlotIsLocked(s, last.leaseSlot())).isEqualTo("rescued 0");
    }
}
