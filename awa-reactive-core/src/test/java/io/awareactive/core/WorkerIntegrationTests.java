package io.awareactive.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

@AwaPostgresTest
final class WorkerIntegrationTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private String schema;
    private QueueStorage storage;
    private Worker worker;

    WorkerIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void installFreshSchema() {
        schema = db.newSchemaName();
        storage = Fixtures.installed(db.connectionFactory(), schema);
    }

    @AfterEach
    void stopWorkerAndCheckNothingBlocked() {
        if (worker != null) {
            worker.stop(Duration.ZERO).block(WAIT);
        }
    }

    private QueueStorage storage(ConnectionFactory factory, UnaryOperator<QueueStorageConfig.Builder> customizer) {
        return QueueStorage.create(Fixtures.config(factory, schema, customizer));
    }

    private Worker start(QueueStorage s, UnaryOperator<WorkerConfig.Builder> customizer,
            Function<Job, Mono<?>> handler) {
        worker = s.worker(customizer.apply(WorkerConfig.builder("q", handler).pollInterval(Duration.ofMillis(200)))
                .build());
        worker.start().block(WAIT);
        return worker;
    }

    private List<Long> enqueue(QueueStorage s, int n, UnaryOperator<JobRequest.Builder> customizer) {
        return s.enqueueAll(Flux.range(0, n).map(i -> customizer.apply(JobRequest.builder("q", "k")
                .args("{\"i\":" + i + "}")).build())).collectList().block(WAIT);
    }

    private JobStatus status(long id) {
        return storage.status(id).block(WAIT);
    }

    private long count(String sql) {
        return db.queryLong(sql.replace("{s}", "\"" + schema + "\""));
    }

    private List<Long> longs(String sql) {
        return db.query(sql.replace("{s}", "\"" + schema + "\""), rs -> rs.getLong(1));
    }

    @Test
    void shouldCompleteSucceedingJobsAndRetryFailingOnesWithinBoundedConcurrency() {
        QueueStorage s = storage(db.connectionFactory(), b -> b.retryBackoffBase(Duration.ZERO));
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        Set<Long> failedOnce = ConcurrentHashMap.newKeySet();
        List<Long> ids = enqueue(s, 30, b -> b.maxAttempts(2));

        start(s, b -> b.concurrency(3).batchSize(2), job -> Mono.defer(() -> {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            // Every third job fails its first attempt.
            boolean fail = job.id() % 3 == 0 && failedOnce.add(job.id());
            return Mono.delay(Duration.ofMillis(20))
                    .then(fail ? Mono.error(new IllegalStateException("first attempt fails")) : Mono.empty());
        }).doFinally(signal -> running.decrementAndGet()));

        await().atMost(WAIT).until(() -> s.counts("q").block(WAIT).completed() == 30);
        assertThat(maxRunning.get()).isBetween(1, 3);
        assertThat(ids).allSatisfy(id -> assertThat(status(id).state()).isEqualTo(JobState.COMPLETED));
        assertThat(failedOnce).isNotEmpty().allSatisfy(id -> assertThat(status(id).attempt()).isEqualTo(2));
        // Exactly the failed attempts were retried (re-enqueued as attempt 2, no backoff), and every job ended once.
        assertThat(longs("SELECT job_id FROM {s}.ready_entries WHERE attempt = 2"))
                .containsExactlyInAnyOrderElementsOf(failedOnce);
        assertThat(count("SELECT count(*) FROM {s}.deferred_jobs")).isZero();
        // Completed attempts are their runs' closures (schema step 19): the job and attempt at each closed place.
        String closed = "SELECT r.job_ids[p + 1] AS job_id, r.attempts[p + 1] AS attempt"
                + " FROM {s}.lease_run_closures c JOIN {s}.lease_runs r"
                + " ON r.lease_slot = c.lease_slot AND r.run_id = c.run_id CROSS JOIN unnest(c.places) p";
        assertThat(longs("SELECT job_id FROM (" + closed + ") x")).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(longs("SELECT job_id FROM (" + closed + ") x WHERE attempt = 2"))
                .containsExactlyInAnyOrderElementsOf(failedOnce);
        assertThat(count("SELECT count(*) FROM {s}.done_entries")).isZero();
    }

    @Test
    void shouldTellTheClaimListenerOfEveryClaimAndKeepWorkingWhenItThrows() {
        List<Long> ids = enqueue(storage, 25, UnaryOperator.identity());
        AtomicInteger claimedJobs = new AtomicInteger();
        AtomicInteger claims = new AtomicInteger();
        Set<Long> done = ConcurrentHashMap.newKeySet();
        Set<String> queues = ConcurrentHashMap.newKeySet();
        AtomicBoolean nonPositiveLatency = new AtomicBoolean();

        start(storage, b -> b.batchSize(5).claimListener((queue, jobs, latency) -> {
            queues.add(queue);
            nonPositiveLatency.compareAndSet(false, latency.isNegative() || latency.isZero());
            claimedJobs.addAndGet(jobs);
            if (claims.incrementAndGet() == 1) {
                throw new IllegalStateException("a broken listener");
            }
        }), job -> Mono.fromRunnable(() -> done.add(job.id())));

        await().atMost(WAIT).until(() -> done.size() == ids.size());
        assertThat(done).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(claimedJobs.get()).isEqualTo(ids.size());
        assertThat(claims.get()).isGreaterThanOrEqualTo(5);
        assertThat(queues).containsExactly("q");
        assertThat(nonPositiveLatency).isFalse();
    }

    @Test
    void shouldFailAnAttemptThatOutlastsItsTimeoutAndOneWhoseHandlerThrows() {
        long slow = storage.enqueue(JobRequest.builder("q", "slow").maxAttempts(1).build()).block(WAIT);
        long broken = storage.enqueue(JobRequest.builder("q", "broken").maxAttempts(1).build()).block(WAIT);

        start(storage, b -> b.jobTimeout(Duration.ofMillis(200)), job -> {
            if (job.kind().equals("broken")) {
                throw new IllegalArgumentException("bad arguments");
            }
            return Mono.never();
        });

        await().atMost(WAIT).until(() -> status(slow).state() == JobState.FAILED
                && status(broken).state() == JobState.FAILED);
        assertThat(status(slow).error()).isEqualTo("timed out after PT0.2S");
        assertThat(status(broken).error()).isEqualTo("java.lang.IllegalArgumentException: bad arguments");
    }

    @Test
    void shouldLetRunningAttemptsFinishWithinTheGracePeriod() {
        List<Long> ids = enqueue(storage, 4, UnaryOperator.identity());
        AtomicInteger started = new AtomicInteger();
        Worker w = start(storage, b -> b.concurrency(4), job -> Mono.fromRunnable(started::incrementAndGet)
                .then(Mono.delay(Duration.ofMillis(300))));
        await().atMost(WAIT).until(() -> started.get() == 4);

        w.stop(Duration.ofSeconds(20)).block(WAIT);

        assertThat(w.running()).isZero();
        assertThat(ids).allSatisfy(id -> assertThat(status(id).state()).isEqualTo(JobState.COMPLETED));
    }

    @Test
    void shouldReleaseAttemptsStillRunningAfterTheGracePeriodWithoutConsumingThem() {
        long id = storage.enqueue(JobRequest.builder("q", "k").maxAttempts(1).build()).block(WAIT);
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicInteger started = new AtomicInteger();
        Worker w = start(storage, UnaryOperator.identity(), job -> Mono.fromRunnable(started::incrementAndGet)
                .then(Mono.never()).doOnCancel(() -> cancelled.set(true)));
        await().atMost(WAIT).until(() -> started.get() == 1);

        w.stop(Duration.ofMillis(200)).block(WAIT);

        assertThat(cancelled).isTrue();
        assertThat(status(id)).satisfies(st -> {
            assertThat(st.state()).isEqualTo(JobState.AVAILABLE);
            assertThat(st.attempt()).isEqualTo(1);
        });
        // Released once: re-enqueued with its attempt unchanged, no terminal row; no closure since schema step 7.
        assertThat(count("SELECT count(*) FROM {s}.ready_entries WHERE job_id = " + id + " AND attempt = 1"))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM {s}.done_entries")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.lease_claim_closures")).isZero();
        assertThat(count("SELECT coalesce(sum(live), 0) FROM {s}.lease_tallies")).isZero();
        assertThat(storage.claim("q", 1, "next").single().block(WAIT).attempt()).isEqualTo(1);
    }

    @Test
    void shouldAbandonAnAttemptWhoseLeaseWasRescued() {
        QueueStorage s = storage(db.connectionFactory(), b -> b.heartbeatInterval(Duration.ofMillis(100))
                .leaseStaleAfter(Duration.ofMillis(300)).retryBackoffBase(Duration.ofHours(1)));
        long id = s.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        AtomicBoolean cancelled = new AtomicBoolean();
        Worker w = start(s, UnaryOperator.identity(), job -> Mono.never().doOnCancel(() -> cancelled.set(true)));
        await().atMost(WAIT).until(() -> w.running() == 1);
        // The worker heartbeats; age its claimed run as a stuck worker's would be, then let rescue take it (again if
        // a heartbeat refreshed the run in between).
        await().atMost(WAIT).until(() -> {
            db.execute("UPDATE \"" + schema + "\".lease_runs SET heartbeat_at = now() - interval '1 hour'");
            return s.ringOperations().rescue(10).block(WAIT) == 1;
        });

        await().atMost(WAIT).until(() -> w.running() == 0);

        assertThat(cancelled).isTrue();
        assertThat(status(id).state()).isEqualTo(JobState.SCHEDULED);
        // Rescue, not the abandoned handler, ended the attempt: one retry scheduled with rescue's error, the attempt
        // in its run's ended list, no open attempt and no terminal row left; no closure since schema step 7.
        assertThat(count("SELECT count(*) FROM {s}.deferred_jobs WHERE job_id = " + id
                + " AND attempt = 2 AND last_error LIKE 'rescued: %'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM {s}.lease_runs WHERE ended = '{0}'")).isEqualTo(1);
        assertThat(count("SELECT coalesce(sum(live), 0) FROM {s}.lease_tallies")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.done_entries")).isZero();
        assertThat(count("SELECT count(*) FROM {s}.lease_claim_closures")).isZero();
    }

    @Test
    void shouldWakeOnNotificationAndNotPollAnIdleDatabase() {
        AtomicInteger claims = new AtomicInteger();
        QueueStorage s = storage(countingClaims(db.connectionFactory(), claims), UnaryOperator.identity());
        Set<Long> done = ConcurrentHashMap.newKeySet();
        start(s, b -> b.pollInterval(Duration.ofSeconds(60)), job -> Mono.fromRunnable(() -> done.add(job.id())));

        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> claims.get() <= 1);

        long id = s.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT);
        await().atMost(Duration.ofSeconds(10)).until(() -> done.contains(id));
        assertThat(claims.get()).isBetween(2, 4);
    }

    @Test
    void shouldListenOnAConnectionOutsideThePool() {
        ConnectionPool pool = Fixtures.pool(db, 1);
        try {
            QueueStorage s = storage(pool, UnaryOperator.identity());
            Set<Long> done = ConcurrentHashMap.newKeySet();
            start(s, b -> b.pollInterval(Duration.ofSeconds(60)), job -> Mono.fromRunnable(() -> done.add(job.id())));
            assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN \"awa_jobs_" + schema
                    + "\"'")).isEqualTo(1);

            List<Long> ids = enqueue(s, 5, UnaryOperator.identity());

            await().atMost(WAIT).until(() -> done.containsAll(ids));
        } finally {
            worker.stop(Duration.ZERO).block(WAIT);
            worker = null;
            pool.disposeLater().block(WAIT);
        }
    }

    @Test
    void shouldRejectBadWorkerInput() {
        assertThatIllegalArgumentException().isThrownBy(() -> storage.worker(null, job -> Mono.empty()))
                .withMessage("queue must be 1 to 63 characters of [a-z0-9_.-], was null");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.worker("q", null))
                .withMessage("handler must not be null");
        Worker idle = storage.worker("q", job -> Mono.empty());
        assertThatIllegalArgumentException().isThrownBy(() -> idle.stop(Duration.ofSeconds(-1)))
                .withMessage("grace must not be negative, was PT-1S");
    }

    /** A factory whose connections count the claim statements they run; still PostgreSQL connections. */
    private static ConnectionFactory countingClaims(ConnectionFactory delegate, AtomicInteger claims) {
        return new ConnectionFactory() {
            @Override
            public Publisher<? extends Connection> create() {
                return Mono.from(delegate.create()).map(c -> (Connection) Proxy.newProxyInstance(
                        WorkerIntegrationTests.class.getClassLoader(), new Class<?>[] {PostgresqlConnection.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("createStatement") && args[0].toString()
                                    .contains("claim_jobs_v2")) {
                                claims.incrementAndGet();
                            }
                            try {
                                return method.invoke(c, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }));
            }

            @Override
            public ConnectionFactoryMetadata getMetadata() {
                return delegate.getMetadata();
            }
        };
    }
}
