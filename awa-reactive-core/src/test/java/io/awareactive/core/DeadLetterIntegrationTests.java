package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.R2dbcException;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Issue 9: terminal failures in the dead-letter table: retention past prune, paging, retry, discard, purge. */
@AwaPostgresTest
final class DeadLetterIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String NOT_THERE = " it is not in the dead-letter table (unknown, not failed terminally,"
            + " already retried or discarded, or purged after deadLetterRetention)";

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;

    DeadLetterIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
    }

    private QueueStorage storage(UnaryOperator<QueueStorageConfig.Builder> customizer) {
        return QueueStorage.create(Fixtures.config(db.connectionFactory(), schema, customizer));
    }

    private long count(String sql) {
        return db.queryLong(sql.replace("{s}", "\"" + schema + "\""));
    }

    /** Enqueues a one-attempt job and fails its attempt: a terminal failure with a dead-letter row. */
    private long failed(String queue, int priority, String args) {
        long id = storage.enqueue(JobRequest.builder(queue, "send-mail").args(args).priority(priority).maxAttempts(1)
                .timeout(Duration.ofSeconds(30)).build()).block(WAIT);
        Job job = storage.claim(queue, 1, "w").single().block(WAIT);
        assertThat(job.id()).isEqualTo(id);
        assertThat(storage.fail(job, "boom " + args).block(WAIT)).isEqualTo(AttemptResult.FAILED);
        return id;
    }

    private List<Long> ids(Flux<FailedJob> jobs) {
        return jobs.map(FailedJob::jobId).collectList().block(WAIT);
    }

    @Test
    void shouldKeepAFailedJobListedAfterItsRingSlotWasPruned() {
        long id = failed("q", 3, "{\"n\": 1}");
        assertThat(count("SELECT count(*) FROM {s}.done_entries_0 WHERE job_id = " + id)).isEqualTo(1);

        assertThat(storage.ringOperations().rotate(Ring.QUEUE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(1, 1));
        // The lease slot holding the claimed run goes first: a queue slot outlives the claimed runs of its rows.
        assertThat(storage.ringOperations().rotate(Ring.LEASE).block(WAIT)).isEqualTo(new RotateOutcome.Rotated(1, 1));
        assertThat(storage.ringOperations().prune(Ring.LEASE).block(WAIT)).isInstanceOf(PruneOutcome.Pruned.class);
        assertThat(storage.ringOperations().prune(Ring.QUEUE).block(WAIT)).isInstanceOfSatisfying(PruneOutcome.Pruned.class,
                pruned -> assertThat(pruned.slot()).isZero());
        assertThat(count("SELECT count(*) FROM {s}.done_entries")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.ready_entries")).isZero();

        List<FailedJob> listed = storage.failedJobs("q", 10).collectList().block(WAIT);
        assertThat(listed).singleElement().satisfies(job -> {
            assertThat(job.jobId()).isEqualTo(id);
            assertThat(job.queue()).isEqualTo("q");
            assertThat(job.priority()).isEqualTo(3);
            assertThat(job.kind()).isEqualTo("send-mail");
            assertThat(job.args()).isEqualTo("{\"n\": 1}");
            assertThat(job.attempts()).isEqualTo(1);
            assertThat(job.maxAttempts()).isEqualTo(1);
            assertThat(job.timeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(job.lastError()).isEqualTo("boom {\"n\": 1}");
        });
        assertThat(storage.failedJob(id).block(WAIT)).isEqualTo(listed.get(0));
        // The point read falls back to the dead-letter table once the ring history is gone.
        assertThat(storage.status(id).block(WAIT)).satisfies(status -> {
            assertThat(status.state()).isEqualTo(JobState.FAILED);
            assertThat(status.queue()).isEqualTo("q");
            assertThat(status.error()).isEqualTo("boom {\"n\": 1}");
        });
    }

    @Test
    void shouldPurgeOnlyRowsPastTheRetentionInBatches() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(failed("q", 2, "{\"i\": " + i + "}"));
        }
        // Three of them failed two hours ago (retention 72 h by default, 1 h here).
        db.execute("UPDATE \"" + schema + "\".dead_letter_jobs SET failed_at = failed_at - interval '2 hours'"
                + " WHERE job_id IN (" + ids.get(0) + ", " + ids.get(2) + ", " + ids.get(4) + ")");
        QueueStorage hourly = storage(b -> b.deadLetterRetention(Duration.ofHours(1)));

        assertThat(hourly.ringOperations().purgeFailedJobs(2).block(WAIT)).isEqualTo(3);
        assertThat(ids(storage.failedJobs("q", 10))).containsExactly(ids.get(3), ids.get(1));
        assertThat(hourly.ringOperations().purgeFailedJobs(2).block(WAIT)).isZero();

        // A zero retention keeps nothing.
        assertThat(storage(b -> b.deadLetterRetention(Duration.ZERO)).ringOperations().purgeFailedJobs(500).block(WAIT))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM {s}.dead_letter_jobs")).isZero();
    }

    @Test
    void shouldBoundThePurgesLockWaitByItsOwnTransactionLocalTimeout() throws Exception {
        failed("q", 2, "{}");
        db.execute("UPDATE \"" + schema + "\".dead_letter_jobs SET failed_at = failed_at - interval '100 hours'");
        ConnectionPool pool = Fixtures.pool(db, 1);
        try {
            QueueStorage pooled = QueueStorage.create(Fixtures.config(pool, schema, b -> b));
            try (Connection holder = db.openJdbc()) {
                holder.setAutoCommit(false);
                try (Statement statement = holder.createStatement()) {
                    statement.execute("LOCK TABLE \"" + schema + "\".dead_letter_jobs IN EXCLUSIVE MODE");
                }
                long start = System.nanoTime();
                assertThatThrownBy(() -> pooled.ringOperations().purgeFailedJobs(500).block(WAIT))
                        .isInstanceOfSatisfying(R2dbcException.class,
                                error -> assertThat(error.getSqlState()).isEqualTo("55P03"));
                // max(T, 100 ms) with the default T of 10 ms: about 100 ms, far from the 30 s test wait.
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(100),
                        Duration.ofSeconds(10));
                holder.rollback();
            }
            // Transaction-local: the pooled connection is back at the server default.
            String lockTimeout = Mono.usingWhen(pool.create(), c -> Flux.from(c.createStatement("SHOW lock_timeout")
                    .execute()).concatMap(result -> result.map((row, meta) -> row.get(0, String.class))).next(),
                    io.r2dbc.spi.Connection::close).block(WAIT);
            assertThat(lockTimeout).isEqualTo("0");
            assertThat(pooled.ringOperations().purgeFailedJobs(500).block(WAIT)).isEqualTo(1);
        } finally {
            pool.disposeLater().block(WAIT);
        }
    }

    @Test
    void shouldListAQueuesFailedJobsNewestFirstInPages() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(failed("q", 1 + i % 4, "{\"i\": " + i + "}"));
        }
        long other = failed("other", 2, "{}");

        assertThat(pages(3)).containsExactly(List.of(ids.get(4), ids.get(3), ids.get(2)),
                List.of(ids.get(1), ids.get(0)));
        assertThat(ids(storage.failedJobs("other", 10))).containsExactly(other);

        // Rows failing at the same instant still page completely, by job id.
        db.execute("UPDATE \"" + schema + "\".dead_letter_jobs SET failed_at = timestamptz '2030-01-01 12:00:00+00'");
        assertThat(pages(2)).containsExactly(List.of(ids.get(4), ids.get(3)), List.of(ids.get(2), ids.get(1)),
                List.of(ids.get(0)));
    }

    /** Every page of queue q's failed jobs, following each page's last job. */
    private List<List<Long>> pages(int size) {
        List<List<Long>> pages = new ArrayList<>();
        List<FailedJob> page = storage.failedJobs("q", size).collectList().block(WAIT);
        while (!page.isEmpty()) {
            pages.add(page.stream().map(FailedJob::jobId).toList());
            page = storage.failedJobs("q", size, page.get(page.size() - 1)).collectList().block(WAIT);
        }
        return pages;
    }

    @Test
    void shouldRetryAFailedJobAsANewJobWithAFreshAttemptCount() {
        QueueStorage retrying = storage(b -> b.retryBackoffBase(Duration.ZERO));
        long id = retrying.enqueue(JobRequest.builder("q", "resize").args("{\"w\": 64}").priority(3).maxAttempts(2)
                .timeout(Duration.ofSeconds(20)).build()).block(WAIT);
        assertThat(retrying.fail(retrying.claim("q", 1, "w").single().block(WAIT), "first").block(WAIT))
                .isEqualTo(AttemptResult.RETRY_SCHEDULED);
        assertThat(retrying.fail(retrying.claim("q", 1, "w").single().block(WAIT), "second").block(WAIT))
                .isEqualTo(AttemptResult.FAILED);
        assertThat(retrying.failedJob(id).block(WAIT).attempts()).isEqualTo(2);

        long newId = retrying.retryFailedJob(id).block(WAIT);

        assertThat(newId).isGreaterThan(id);
        assertThat(retrying.failedJob(id).blockOptional(WAIT)).isEmpty();
        assertThat(count("SELECT count(*) FROM {s}.dead_letter_jobs")).isZero();
        assertThat(retrying.status(newId).block(WAIT).state()).isEqualTo(JobState.AVAILABLE);
        Job again = retrying.claim("q", 1, "w").single().block(WAIT);
        assertThat(again.id()).isEqualTo(newId);
        assertThat(again.attempt()).isEqualTo(1);
        assertThat(again.maxAttempts()).isEqualTo(2);
        assertThat(again.priority()).isEqualTo(3);
        assertThat(again.kind()).isEqualTo("resize");
        assertThat(again.args()).isEqualTo("{\"w\": 64}");
        assertThat(again.timeout()).isEqualTo(Duration.ofSeconds(20));
        // The old id keeps its failed history in the ring.
        assertThat(retrying.status(id).block(WAIT).state()).isEqualTo(JobState.FAILED);
        assertThat(retrying.complete(again).block(WAIT)).isEqualTo(AttemptResult.COMPLETED);
        assertThat(retrying.counts("q").block(WAIT)).isEqualTo(new QueueCounts("q", 0, 0, 0, 1, 1, 0));
    }

    @Test
    void shouldRetryEveryFailedJobOfAQueueInBatchesAndNoOther() {
        long high = failed("q", 1, "{\"p\": 1}");
        long low = failed("q", 4, "{\"p\": 4}");
        long other = failed("other", 2, "{}");
        // 1,001 more rows in lane (q, 2, 0), written as a terminal failure writes them: three batches of 500.
        db.execute("SELECT \"" + schema + "\".create_lane('q', 2::smallint, 0)",
                "INSERT INTO \"" + schema + "\".dead_letter_jobs (job_id, queue, priority, enqueue_shard, kind, args,"
                        + " attempts, max_attempts, last_error) SELECT nextval('\"" + schema + "\".job_id_seq'), 'q',"
                        + " 2, 0, 'bulk', jsonb_build_object('i', i), 3, 3, 'boom' FROM generate_series(1, 1001) i");

        assertThat(storage.retryFailedJobs("q").block(WAIT)).isEqualTo(1003);

        assertThat(ids(storage.failedJobs("q", 10))).isEmpty();
        assertThat(ids(storage.failedJobs("other", 10))).containsExactly(other);
        assertThat(storage.counts("q").block(WAIT).available()).isEqualTo(1003);
        assertThat(count("SELECT count(*) FROM {s}.ready_entries WHERE job_id IN (" + high + ", " + low + ")"))
                .isEqualTo(2);
        List<Job> first = storage.claim("q", 2, "w").collectList().block(WAIT);
        assertThat(first).extracting(Job::priority).containsExactly(1, 2);
        assertThat(first).allSatisfy(job -> assertThat(job.attempt()).isEqualTo(1));
        assertThat(first.get(0).args()).isEqualTo("{\"p\": 1}");
        assertThat(first.get(1).kind()).isEqualTo("bulk");
        assertThat(first.get(1).maxAttempts()).isEqualTo(3);
        assertThat(storage.retryFailedJobs("q").block(WAIT)).isZero();
    }

    @Test
    void shouldDiscardOneFailedJobAndThenAllOfAQueue() {
        long first = failed("q", 2, "{\"i\": 1}");
        long second = failed("q", 2, "{\"i\": 2}");
        long other = failed("other", 2, "{}");

        storage.discardFailedJob(first).block(WAIT);
        assertThat(storage.failedJob(first).blockOptional(WAIT)).isEmpty();
        assertThatThrownBy(() -> storage.discardFailedJob(first).block(WAIT))
                .isInstanceOfSatisfying(JobStateException.class, error -> {
                    assertThat(error.jobId()).isEqualTo(first);
                    assertThat(error.state()).isNull();
                })
                .hasMessage("job " + first + " cannot be discarded:" + NOT_THERE);

        assertThat(storage.discardFailedJobs("q").block(WAIT)).isEqualTo(1);
        assertThat(storage.failedJob(second).blockOptional(WAIT)).isEmpty();
        assertThat(ids(storage.failedJobs("other", 10))).containsExactly(other);
        assertThat(storage.discardFailedJobs("q").block(WAIT)).isZero();
        // Discarding never touches the ring or the counts.
        assertThat(storage.counts("q").block(WAIT).failed()).isEqualTo(2);
    }

    @Test
    void shouldRefuseUnknownIdsAndBadInputChangingNothing() {
        long id = failed("q", 2, "{}");
        String before = snapshot();

        assertThatThrownBy(() -> storage.retryFailedJob(id + 1000).block(WAIT))
                .isInstanceOf(JobStateException.class)
                .hasMessage("job " + (id + 1000) + " cannot be retried:" + NOT_THERE);
        assertThatThrownBy(() -> storage.discardFailedJob(id + 1000).block(WAIT))
                .isInstanceOf(JobStateException.class)
                .hasMessage("job " + (id + 1000) + " cannot be discarded:" + NOT_THERE);
        assertThat(storage.failedJob(id + 1000).blockOptional(WAIT)).isEmpty();

        assertThatIllegalArgumentException().isThrownBy(() -> storage.failedJobs("Q!", 10))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was \"Q!\"");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.failedJobs("q", 0))
                .withMessage("limit must be between 1 and 1000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.failedJobs("q", 1001))
                .withMessage("limit must be between 1 and 1000, was 1001");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.failedJobs("q", 10, null))
                .withMessage("after must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.failedJob(0))
                .withMessage("jobId must be greater than 0, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.retryFailedJob(-1))
                .withMessage("jobId must be greater than 0, was -1");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.discardFailedJob(0))
                .withMessage("jobId must be greater than 0, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.retryFailedJobs("'; DROP TABLE x; --"))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was \"'; DROP TABLE x; --\"");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.discardFailedJobs(""))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was \"\"");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().purgeFailedJobs(0))
                .withMessage("batchSize must be between 1 and 10000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder()
                        .deadLetterRetention(Duration.ofSeconds(-1)))
                .withMessage("deadLetterRetention must not be negative, was PT-1S");

        assertThat(snapshot()).isEqualTo(before);
    }

    /** The dead-letter rows and ready rows, to prove a refused call wrote nothing. */
    private String snapshot() {
        return db.query("SELECT (SELECT string_agg(job_id || ':' || failed_at, ',' ORDER BY job_id) FROM \"" + schema
                + "\".dead_letter_jobs) || '/' || (SELECT count(*) FROM \"" + schema + "\".ready_entries)",
                rs -> rs.getString(1)).get(0);
    }

    @Test
    void shouldLetExactlyOneOfTwoConcurrentRetriesOrDiscardsOfAJobSucceed() {
        for (int round = 0; round < 10; round++) {
            // A queue per round: a job retried in an earlier round must not be claimed here.
            long id = failed("round-" + round, 2, "{\"round\": " + round + "}");
            boolean discard = round % 2 == 1;
            Mono<Object> second = discard ? storage.discardFailedJob(id).thenReturn((Object) "discarded")
                    : storage.retryFailedJob(id).map(Object.class::cast);
            List<Object> results = Flux.merge(
                            storage.retryFailedJob(id).map(Object.class::cast).onErrorResume(JobStateException.class,
                                    Mono::just).subscribeOn(Schedulers.parallel()),
                            second.onErrorResume(JobStateException.class, Mono::just)
                                    .subscribeOn(Schedulers.parallel()))
                    .collectList().block(WAIT);

            assertThat(results).filteredOn(JobStateException.class::isInstance).hasSize(1);
            assertThat(count("SELECT count(*) FROM {s}.dead_letter_jobs WHERE job_id = " + id)).isZero();
            long retried = results.stream().filter(Long.class::isInstance).count();
            assertThat(count("SELECT count(*) FROM {s}.ready_entries WHERE kind = 'send-mail' AND args->>'round' = '"
                    + round + "' AND job_id <> " + id)).isEqualTo(retried);
        }
    }
}
