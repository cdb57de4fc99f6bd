package io.awareactive.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.awareactive.core.JobRequest;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.PruneEvent;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Logging has one owner: core returns a failed prune as an outcome and logs nothing, the engine logs it at most once a
 * minute per ring (docs/operations.md, Logging), however many ticks fail.
 */
@AwaPostgresTest
final class FailureLoggingIntegrationTests {

    private static final Duration WAIT = Reliability.WAIT;
    private static final int FAILED_TICKS = 40;

    private final TestDatabase db;

    FailureLoggingIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @Test
    void shouldLogAPruneFailingEveryTickOnceAMinute() {
        QueueStorageConfig owner = Reliability.installed(db, db.connectionFactory());
        String app = db.newRole();
        QueueStorage.create(owner).grantApplicationRole(app).block(WAIT);
        // The application role may lock ring children but not TRUNCATE them: every queue prune fails with 42501.
        QueueStorageConfig withoutTruncate = owner.mutate().connectionFactory(db.connectionFactoryAs(app)).build();
        QueueStorage storage = QueueStorage.create(withoutTruncate);
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        storage.claim("q", 1, "w").flatMap(storage::complete).blockLast(WAIT);
        // The owner reclaims the lease slot holding the job's claimed run, which the queue slot would wait for.
        QueueStorage ownerStorage = QueueStorage.create(owner);
        assertThat(ownerStorage.ringOperations().rotate(Ring.LEASE).block(WAIT))
                .isInstanceOf(RotateOutcome.Rotated.class);
        assertThat(ownerStorage.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);

        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        Logger library = (Logger) LoggerFactory.getLogger("io.awareactive");
        lines.start();
        library.addAppender(lines);
        List<PruneEvent> events = new CopyOnWriteArrayList<>();
        RingMaintenance engine = RingMaintenance.create(QueueStorage.create(withoutTruncate), Reliability.engine()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ofMillis(50))).build());
        try {
            engine.outcomes().subscribe(events::add);
            engine.start().block(WAIT);
            await().atMost(WAIT).until(() -> failedQueuePrunes(events) >= FAILED_TICKS);
        } finally {
            Reliability.stopQuietly(engine);
            library.detachAppender(lines);
        }

        assertThat(events).filteredOn(e -> e.outcome() instanceof PruneOutcome.Failed)
                .allSatisfy(e -> assertThat(((PruneOutcome.Failed) e.outcome()).sqlState()).isEqualTo("42501"));
        List<String> pruneErrors;
        synchronized (lines) { // AppenderBase.doAppend appends under this monitor
            pruneErrors = lines.list.stream().filter(e -> e.getLevel() == Level.ERROR)
                    .map(ILoggingEvent::getFormattedMessage)
                    .filter(message -> message.startsWith("prune of the queue ring"))
                    .toList();
        }
        assertThat(pruneErrors).hasSize(1);
        assertThat(pruneErrors.get(0)).contains("42501");
    }

    private static long failedQueuePrunes(List<PruneEvent> events) {
        return events.stream().filter(e -> e.ring() == Ring.QUEUE && e.outcome() instanceof PruneOutcome.Failed)
                .count();
    }
}
