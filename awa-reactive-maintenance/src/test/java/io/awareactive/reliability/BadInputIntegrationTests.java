package io.awareactive.reliability;

import static io.awareactive.reliability.Reliability.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awareactive.core.Job;
import io.awareactive.core.JobRequest;
import io.awareactive.core.JobState;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.maintenance.RingMaintenanceConfig;
import io.awareactive.testkit.AwaPostgresTest;
import io.awareactive.testkit.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 8, bad input and security: every public entry point given null, empty, out-of-range and hostile values
 * (quotes, semicolons, unicode, 10 kB strings, payloads beyond the limit) fails at call time with a message naming
 * the option, writes nothing and creates no object; hostile text that is legal data (a kind, an error, a worker id,
 * JSON arguments) is stored verbatim, never executed.
 */
@AwaPostgresTest
final class BadInputIntegrationTests {

    private static final String TEN_KB = "x".repeat(10 * 1024);
    /** Each would drop or create something if it ever reached the SQL text unquoted. */
    private static final List<String> HOSTILE = List.of(
            "q'; DROP TABLE victim; --",
            "q\"; CREATE TABLE injected (id int); --",
            "q); DELETE FROM victim; --",
            "awa_reactive\"; DROP SCHEMA public CASCADE; --",
            "q$$; DROP TABLE victim; $$",
            "q\\'; DROP TABLE victim; --",
            "Ωμέγα_队列_😀",
            "q\u0000",
            "",
            " ",
            TEN_KB);

    private final TestDatabase db;
    private QueueStorageConfig config;
    private QueueStorage storage;

    BadInputIntegrationTests(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void install() {
        config = Reliability.storage(db.connectionFactory(), db.newSchemaName()).maxArgsBytes(1024).build();
        storage = QueueStorage.create(config);
        storage.install().block(WAIT);
        db.execute("CREATE TABLE IF NOT EXISTS public.victim (id int)", "TRUNCATE public.victim",
                "INSERT INTO public.victim VALUES (1)");
    }

    /** A snapshot of everything an injection or a stray write could change. */
    private List<Long> footprint() {
        return List.of(
                db.queryLong("SELECT count(*) FROM pg_class"),
                db.queryLong("SELECT count(*) FROM pg_namespace"),
                db.queryLong("SELECT count(*) FROM pg_proc"),
                db.queryLong("SELECT count(*) FROM public.victim"),
                db.queryLong("SELECT count(*) FROM " + Reliability.t(config, "ready_entries")),
                db.queryLong("SELECT count(*) FROM " + Reliability.t(config, "deferred_jobs")),
                db.queryLong("SELECT count(*) FROM " + Reliability.t(config, "queue_lanes")),
                db.queryLong("SELECT count(*) FROM " + Reliability.t(config, "leases")),
                db.queryLong("SELECT count(*) FROM " + Reliability.t(config, "lease_runs")),
                db.queryLong("SELECT count(*) FROM " + Reliability.t(config, "done_entries")));
    }

    @Test
    void shouldRejectHostileSchemaNamesBeforeAnySql() {
        List<Long> before = footprint();
        for (String name : HOSTILE) {
            assertThatIllegalArgumentException().as(name.length() > 40 ? "10 kB" : name)
                    .isThrownBy(() -> QueueStorageConfig.builder().schema(name))
                    .withMessageStartingWith("schema must be a plain lower-case identifier");
        }
        for (String name : List.of("Upper", "pg_catalog", "information_schema", "1abc", "a-b", "a".repeat(64))) {
            assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().schema(name))
                    .withMessageContaining("was \"" + name + "\"");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().schema(null))
                .withMessageContaining("schema");
        assertThat(footprint()).isEqualTo(before);
    }

    @Test
    void shouldRejectHostileQueueNamesAtEveryEntryPointWritingNothing() {
        storage.enqueue(JobRequest.of("q", "k", "{}")).block(WAIT); // one lane exists, so counts() has rows to leak
        List<Long> before = footprint();
        for (String queue : HOSTILE) {
            String label = queue.length() > 40 ? "10 kB" : queue;
            assertThatIllegalArgumentException().as(label).isThrownBy(() -> JobRequest.builder(queue, "k"))
                    .withMessageStartingWith("queue must be 1 to 63 characters of [a-z0-9_.-], was ");
            assertThatIllegalArgumentException().as(label).isThrownBy(() -> storage.claim(queue, 1, "w"));
            assertThatIllegalArgumentException().as(label).isThrownBy(() -> storage.counts(queue));
            assertThatIllegalArgumentException().as(label).isThrownBy(() -> storage.worker(queue, job -> Mono.empty()));
            assertThatIllegalArgumentException().as(label).isThrownBy(() -> WorkerConfig.builder(queue,
                    job -> Mono.empty()));
        }
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder(null, "k"));
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("q", null));
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("q", " "));
        assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.builder("q", "k".repeat(256)))
                .withMessageStartingWith("kind must be 1 to 255 characters and not blank");
        assertThat(footprint()).isEqualTo(before);
    }

    @Test
    void shouldRejectOutOfRangeAndNullArgumentsAtCallTime() {
        List<Long> before = footprint();
        JobRequest.Builder builder = JobRequest.builder("q", "k");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.priority(0))
                .withMessage("priority must be between 1 and 4, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.priority(Integer.MAX_VALUE));
        assertThatIllegalArgumentException().isThrownBy(() -> builder.maxAttempts(0))
                .withMessage("maxAttempts must be at least 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.maxAttempts(Integer.MIN_VALUE));
        assertThatIllegalArgumentException().isThrownBy(() -> builder.timeout(Duration.ZERO));
        assertThatIllegalArgumentException().isThrownBy(() -> builder.timeout(Duration.ofNanos(999_999)));
        assertThatIllegalArgumentException().isThrownBy(() -> builder.timeout(null));
        assertThatIllegalArgumentException().isThrownBy(() -> builder.runAt(null));
        assertThatIllegalArgumentException().isThrownBy(() -> builder.args(null));
        for (String bad : List.of("", "{", "{'a': 1}", "{\"a\": 1}; DROP TABLE victim", "\"\\u0000\"", "NaN",
                TEN_KB)) {
            assertThatIllegalArgumentException().isThrownBy(() -> builder.args(bad))
                    .withMessageStartingWith("args must be valid JSON");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> storage.enqueue(null));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.claim("q", 0, "w"))
                .withMessage("maxBatch must be between 1 and 1000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.claim("q", 1001, "w"));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.claim("q", 1, null));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.claim("q", 1, " "))
                .withMessage("workerId must not be blank, was \" \"");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.heartbeat((Job) null));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.heartbeat((List<Job>) null));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.complete(null));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.release(null));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.fail(null, "e"));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().promote(0))
                .withMessage("maxJobs must be between 1 and 10000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.ringOperations().rescue(10_001));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> storage.ringOperations().rollup(0, Duration.ofSeconds(5), 10_000));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> storage.ringOperations().rollup(65, Duration.ofSeconds(5), 10_000));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> storage.ringOperations().rollup(4, Duration.ZERO, 10_000));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> storage.ringOperations().rollup(4, Duration.ofSeconds(5), 0));
        assertThatIllegalArgumentException().isThrownBy(() -> storage.worker(null));
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorage.create(null));
        assertThatThrownBy(() -> storage.ringOperations().rotate(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> storage.ringOperations().prune(null)).isInstanceOf(NullPointerException.class);
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().queueSlotCount(3));
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().leaseSlotCount(65));
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder().maxArgsBytes(0));
        assertThatIllegalArgumentException().isThrownBy(() -> QueueStorageConfig.builder()
                .pruneLockTimeout(Duration.ofMillis(-1)));
        assertThatIllegalArgumentException().isThrownBy(() -> RingMaintenanceConfig.builder()
                .task(MaintenanceTask.RING_QUEUE, t -> t.interval(Duration.ZERO)));
        assertThatIllegalArgumentException().isThrownBy(() -> RingMaintenance.create(null,
                RingMaintenanceConfig.builder().build()));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RingMaintenanceConfig.builder().task(MaintenanceTask.ROLLUP, r -> r.maxSlots(0)));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RingMaintenanceConfig.builder().task(MaintenanceTask.PROMOTE, null));
        // Unknown ids are answers, not errors, and write nothing.
        assertThat(storage.status(-1).blockOptional(WAIT)).isEmpty();
        assertThat(storage.status(Long.MAX_VALUE).blockOptional(WAIT)).isEmpty();
        assertThat(storage.cancel(Long.MIN_VALUE).block(WAIT)).hasToString("NOT_FOUND");
        assertThat(footprint()).isEqualTo(before);
    }

    @Test
    void shouldRejectPayloadsBeyondTheLimitBeforeAnySql() {
        List<Long> before = footprint();
        String limit = "\"" + "a".repeat(1022) + "\""; // exactly 1024 bytes
        String over = "\"" + "a".repeat(1023) + "\"";
        String unicodeOver = "\"" + "é".repeat(512) + "\""; // 1026 bytes in 514 characters
        assertThatIllegalArgumentException().isThrownBy(() -> storage.enqueue(JobRequest.of("q", "k", over)))
                .withMessage("args must be at most maxArgsBytes (1024) bytes, was 1025 bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> storage.enqueue(JobRequest.of("q", "k", unicodeOver)))
                .withMessage("args must be at most maxArgsBytes (1024) bytes, was 1026 bytes");
        assertThatThrownBy(() -> storage.enqueueAll(Flux.just(JobRequest.of("q", "k", "{}"),
                JobRequest.of("q", "k", over))).collectList().block(WAIT))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatIllegalArgumentException().isThrownBy(() -> storage.enqueueAll(null));
        assertThat(footprint()).isEqualTo(before);

        long id = storage.enqueue(JobRequest.of("q", "k", limit)).block(WAIT);
        assertThat(storage.status(id).block(WAIT).state()).isEqualTo(JobState.AVAILABLE);
    }

    @Test
    void shouldStoreHostileDataVerbatimAndNeverExecuteIt() {
        long victims = db.queryLong("SELECT count(*) FROM public.victim");
        String publicTables = "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = 'public'";
        long tables = db.queryLong(publicTables);
        String kind = "k'; DROP TABLE public.victim; -- \"; CREATE TABLE injected(i int); Ωμέγα 😀";
        String args = "[\"'); DROP TABLE public.victim; --\", \"\\\"; $$ ;\", \"队列😀\"]";
        String workerId = "w'; DROP TABLE public.victim; --" + TEN_KB;
        String error = "e'); DELETE FROM public.victim; --" + TEN_KB;

        long id = storage.enqueue(JobRequest.builder("q", kind).args(args).maxAttempts(1).build()).block(WAIT);
        Job job = storage.claim("q", 1, workerId).blockFirst(WAIT);
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.kind()).isEqualTo(kind);
        assertThat(job.args()).isEqualToIgnoringWhitespace(args);
        assertThat(db.query("SELECT worker_id FROM " + Reliability.t(config, "lease_runs"), rs -> rs.getString(1)))
                .containsExactly(workerId);
        storage.fail(job, error).block(WAIT);

        List<String> stored = db.query("SELECT kind || '|' || error FROM " + Reliability.t(config, "done_entries"),
                rs -> rs.getString(1));
        assertThat(stored).hasSize(1);
        assertThat(stored.get(0)).startsWith(kind + "|e'); DELETE FROM public.victim; --xxx");
        assertThat(db.queryLong("SELECT count(*) FROM public.victim")).isEqualTo(victims);
        assertThat(db.queryLong("SELECT count(*) FROM pg_class WHERE relname = 'injected'")).isZero();
        assertThat(db.queryLong(publicTables)).isEqualTo(tables);
    }
}
