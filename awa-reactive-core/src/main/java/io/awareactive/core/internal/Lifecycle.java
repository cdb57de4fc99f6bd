package io.awareactive.core.internal;

import io.awareactive.core.AttemptResult;
import io.awareactive.core.CancelResult;
import io.awareactive.core.Job;
import io.awareactive.core.JobRequest;
import io.awareactive.core.JobState;
import io.awareactive.core.JobStateException;
import io.awareactive.core.JobStatus;
import io.awareactive.core.QueueCounts;
import io.awareactive.core.QueueStorageConfig;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The job lifecycle (design §4): enqueue, claim, heartbeat, attempt ends, cancel, promotion, rescue, status and
 * counts. Each step is one round trip to a server-side function (schema step files under
 * {@code io/awareactive/core/schema/}) or one statement, except enqueue, which first makes sure its lanes exist
 * ({@code create_lane}, in its own short transaction, never inside the producer's), and a move that spent its source
 * row, which advances that lane's cursor after its commit in a separate short transaction. Concurrent claims of a
 * queue, and concurrent completions, share statements once enough of them run ({@link SharedStatements}).
 */
public final class Lifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);
    /** Longest stored error text, in characters. */
    static final int MAX_ERROR_CHARS = 8192;
    /** Tries of the after-commit cursor advance of a move; the next claimer repairs a lane whose advance failed. */
    static final int ADVANCE_TRIES = 3;

    private final ConnectionFactory factory;
    private final Schema schema;
    private final QueueStorageConfig config;
    private final long maintenanceTimeoutMillis;
    private final Set<Lane> knownLanes = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> shardCounts = new ConcurrentHashMap<>();
    private final Map<ClaimKey, SharedStatements<ClaimRequest, List<Job>>> sharedClaims = new ConcurrentHashMap<>();
    private final SharedStatements<List<Job>, List<AttemptResult>> sharedCompletions;

    /**
     * Creates the lifecycle of one schema.
     *
     * @param factory pooled connections
     * @param schema the schema
     * @param config the storage configuration
     */
    public Lifecycle(ConnectionFactory factory, Schema schema, QueueStorageConfig config) {
        this.factory = factory;
        this.schema = schema;
        this.config = config;
        this.maintenanceTimeoutMillis = Math.max(config.effectivePruneLockTimeout().toMillis(), 100);
        // A completion cancelled while its statement ran committed with the others: its results have no reader.
        this.sharedCompletions = new SharedStatements<>(this::completeTogether, List::size, MAX_COMPLETE_BATCH,
                config.maxStatementsInFlight(), results -> { });
    }

    /** A lane: the unit of ordering. */
    record Lane(String queue, int priority, int shard) implements Comparable<Lane> {
        private static final Comparator<Lane> ORDER = Comparator.comparing(Lane::queue)
                .thenComparingInt(Lane::priority).thenComparingInt(Lane::shard);

        @Override
        public int compareTo(Lane other) {
            return ORDER.compare(this, other);
        }
    }

    // ------------------------------------------------------------------ enqueue

    /**
     * Checks what depends on the configuration (the argument size), before any SQL.
     *
     * @param request the request
     * @return the request
     * @throws IllegalArgumentException when the arguments exceed {@code maxArgsBytes}
     */
    public JobRequest checkRequest(JobRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("request must not be null");
        }
        int bytes = request.args().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > config.maxArgsBytes()) {
            throw new IllegalArgumentException("args must be at most maxArgsBytes (" + config.maxArgsBytes()
                    + ") bytes, was " + bytes + " bytes");
        }
        return request;
    }

    /**
     * Enqueues a batch in its own transaction: a single statement when the batch is all scheduled or all ready in one
     * lane (the usual case: one queue and priority), else one statement per lane and one for the scheduled jobs.
     *
     * @param batch checked requests
     * @return the job ids, in input order
     */
    public Mono<List<Long>> enqueue(List<JobRequest> batch) {
        return assignLanes(batch).map(lanes -> new Writes(batch, lanes)).flatMap(writes -> writes.statements() == 1
                // One statement is a transaction of its own: no BEGIN and COMMIT round trips.
                ? Db.withConnection(factory, c -> write(c, writes))
                : Db.inTransaction(factory, c -> write(c, writes)));
    }

    /**
     * Enqueues a batch inside the caller's transaction on the caller's connection (lanes are created beforehand on
     * a connection of this storage, in their own transaction).
     *
     * @param connection the caller's connection
     * @param batch checked requests
     * @return the job ids, in input order
     */
    public Mono<List<Long>> enqueue(Connection connection, List<JobRequest> batch) {
        return assignLanes(batch).flatMap(lanes -> write(connection, new Writes(batch, lanes)));
    }

    /** Picks each request's lane (a random shard of its queue) and makes sure every lane exists. */
    private Mono<List<Lane>> assignLanes(List<JobRequest> batch) {
        return Flux.fromIterable(batch.stream().map(JobRequest::queue).distinct().toList())
                .concatMap(queue -> shards(queue).map(n -> Map.entry(queue, n)))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .flatMap(shards -> {
                    List<Lane> lanes = new ArrayList<>(batch.size());
                    Map<String, Integer> chosen = new LinkedHashMap<>();
                    for (JobRequest r : batch) {
                        // One shard per queue and batch keeps a batch's jobs in few segments.
                        int shard = chosen.computeIfAbsent(r.queue(),
                                q -> ThreadLocalRandom.current().nextInt(shards.get(q)));
                        lanes.add(new Lane(r.queue(), r.priority(), shard));
                    }
                    return Flux.fromIterable(lanes.stream().distinct().sorted().toList())
                            .concatMap(this::ensureLane)
                            .then(Mono.just(lanes));
                });
    }

    private Mono<Integer> shards(String queue) {
        Integer known = shardCounts.get(queue);
        if (known != null) {
            return Mono.just(known);
        }
        return Db.withConnection(factory, c -> Db.query(c, "SELECT enqueue_shards FROM "
                                + schema.table(Table.QUEUE_META) + " WHERE queue = $1",
                        row -> Db.get(row, 0, Integer.class), queue)
                        .next()
                        .defaultIfEmpty(1))
                .doOnNext(n -> shardCounts.put(queue, n));
    }

    private Mono<Void> ensureLane(Lane lane) {
        if (knownLanes.contains(lane)) {
            return Mono.empty();
        }
        // create_lane runs DDL: always in its own short transaction, never inside a producer's.
        return Db.withConnection(factory, c -> Db.query(c, "SELECT " + schema.function(SqlFunction.CREATE_LANE)
                        + "($1, $2::smallint, $3)", row -> 1, lane.queue(), lane.priority(), lane.shard()).then())
                .doOnSuccess(done -> knownLanes.add(lane));
    }

    /**
     * What a batch writes: its ready jobs grouped by lane (in one global lane order) and its scheduled jobs, each
     * group as positions in the batch.
     */
    private record Writes(List<JobRequest> batch, List<Lane> lanes, Map<Lane, List<Integer>> immediate,
            List<Integer> scheduled) {

        Writes(List<JobRequest> batch, List<Lane> lanes) {
            this(batch, lanes, new TreeMap<>(), new ArrayList<>());
            for (int i = 0; i < batch.size(); i++) {
                if (batch.get(i).runAt() == null) {
                    immediate.computeIfAbsent(lanes.get(i), l -> new ArrayList<>()).add(i);
                } else {
                    scheduled.add(i);
                }
            }
        }

        /** One statement per lane with ready jobs, and one for the scheduled jobs. */
        int statements() {
            return immediate.size() + (scheduled.isEmpty() ? 0 : 1);
        }
    }

    private Mono<List<Long>> write(Connection c, Writes writes) {
        List<JobRequest> batch = writes.batch();
        List<Lane> lanes = writes.lanes();
        Map<Lane, List<Integer>> immediate = writes.immediate();
        List<Integer> scheduled = writes.scheduled();
        Long[] ids = new Long[batch.size()];
        // Lanes in one global order, so two producers never wait on each other's lane locks in a cycle.
        Mono<Void> ready = Flux.fromIterable(immediate.entrySet())
                .concatMap(e -> enqueueLane(c, e.getKey(), e.getValue().stream().map(batch::get).toList())
                        .doOnNext(idByOrd -> {
                            for (int k = 0; k < e.getValue().size(); k++) {
                                ids[e.getValue().get(k)] = idByOrd.get(k);
                            }
                        }))
                .then();
        Mono<Void> deferred = scheduled.isEmpty() ? Mono.empty()
                : insertDeferred(c, scheduled.stream().map(batch::get).toList(),
                        scheduled.stream().map(lanes::get).toList())
                        .doOnNext(idByOrd -> {
                            for (int k = 0; k < scheduled.size(); k++) {
                                ids[scheduled.get(k)] = idByOrd.get(k);
                            }
                        })
                        .then();
        return ready.then(deferred).then(Mono.fromSupplier(() -> List.of(ids)));
    }

    private Mono<List<Long>> enqueueLane(Connection c, Lane lane, List<JobRequest> jobs) {
        String sql = "SELECT o_ord, o_job_id FROM " + schema.function(SqlFunction.ENQUEUE_LANE)
                + "($1, $2::smallint, $3, NULL, $4::text[], $5::text[]::jsonb[], $6::int[], $7::int[], $8::bigint[])";
        return Db.query(c, sql, row -> Db.get(row, 1, Long.class), lane.queue(), lane.priority(), lane.shard(),
                        jobs.stream().map(JobRequest::kind).toArray(String[]::new),
                        jobs.stream().map(JobRequest::args).toArray(String[]::new),
                        jobs.stream().map(j -> 1).toArray(Integer[]::new),
                        jobs.stream().map(JobRequest::maxAttempts).toArray(Integer[]::new),
                        jobs.stream().map(j -> timeoutMillis(j.timeout())).toArray(Long[]::new))
                .collectList();
    }

    private Mono<List<Long>> insertDeferred(Connection c, List<JobRequest> jobs, List<Lane> lanes) {
        String sql = "WITH input AS (SELECT nextval('" + schema.table(Table.JOB_ID_SEQ) + "') AS job_id, u.*"
                + " FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::text[], $6::int[], $7::bigint[],"
                + " $8::bigint[]) WITH ORDINALITY AS u(queue, priority, shard, kind, args, max_attempts, timeout,"
                + " run_at_us, ord)), ins AS (INSERT INTO " + schema.table(Table.DEFERRED_JOBS) + " (job_id, queue,"
                + " priority, enqueue_shard, kind, args, attempt, max_attempts, timeout_ms, run_at)"
                + " SELECT job_id, queue, priority, shard, kind, args::jsonb, 1, max_attempts, nullif(timeout, 0),"
                + " timestamptz 'epoch' + run_at_us * interval '1 microsecond' FROM input)"
                + " SELECT job_id FROM input ORDER BY ord";
        return Db.query(c, sql, row -> Db.get(row, 0, Long.class),
                        jobs.stream().map(JobRequest::queue).toArray(String[]::new),
                        lanes.stream().map(Lane::priority).toArray(Integer[]::new),
                        lanes.stream().map(Lane::shard).toArray(Integer[]::new),
                        jobs.stream().map(JobRequest::kind).toArray(String[]::new),
                        jobs.stream().map(JobRequest::args).toArray(String[]::new),
                        jobs.stream().map(JobRequest::maxAttempts).toArray(Integer[]::new),
                        jobs.stream().map(j -> timeoutMillis(j.timeout())).toArray(Long[]::new),
                        jobs.stream().map(j -> epochMicros(j.runAt())).toArray(Long[]::new))
                .collectList();
    }

    private static long timeoutMillis(@Nullable Duration timeout) {
        return timeout == null ? 0 : timeout.toMillis();
    }

    private static long epochMicros(@Nullable Instant at) {
        return at == null ? 0 : ChronoUnit.MICROS.between(Instant.EPOCH, at);
    }

    // ------------------------------------------------------------------ claim

    /** The claims that may share a statement: one queue, one default timeout. */
    private record ClaimKey(String queue, @Nullable Duration defaultTimeout) {
    }

    /** One claim: up to {@code maxBatch} jobs for {@code workerId}. */
    private record ClaimRequest(int maxBatch, String workerId) {
    }

    /**
     * Claims up to {@code max} jobs, sharing a statement with the concurrent claims of the same queue and default
     * timeout once {@link QueueStorageConfig#maxStatementsInFlight()} statements run ({@link SharedStatements}).
     *
     * @param queue the queue
     * @param max the batch size
     * @param workerId the claimer
     * @param defaultTimeout the deadline for jobs without their own timeout, or null
     * @return the claimed jobs, in claim order
     */
    public Flux<Job> claim(String queue, int max, String workerId, @Nullable Duration defaultTimeout) {
        return sharedClaims.computeIfAbsent(new ClaimKey(queue, defaultTimeout), key -> new SharedStatements<>(
                        claims -> claimTogether(queue, claims, defaultTimeout), ClaimRequest::maxBatch,
                        MAX_CLAIM_BATCH, config.maxStatementsInFlight(), this::giveBack))
                .run(new ClaimRequest(max, workerId))
                .flatMapIterable(jobs -> jobs);
    }

    /** The most jobs one claim statement takes: the claim function's limit. */
    public static final int MAX_CLAIM_BATCH = 1000;

    /**
     * Claims for several claims in one statement, under the first one's worker id, and deals the jobs out in order:
     * each claim its batch size, until the jobs run out.
     */
    private Mono<List<List<Job>>> claimTogether(String queue, List<ClaimRequest> claims,
            @Nullable Duration defaultTimeout) {
        List<Integer> sizes = claims.stream().map(ClaimRequest::maxBatch).toList();
        int total = sizes.stream().mapToInt(Integer::intValue).sum();
        return claimStatement(queue, total, claims.get(0).workerId(), defaultTimeout)
                .map(jobs -> dealOut(jobs, sizes));
    }

    /** Splits {@code items} in order into consecutive shares of the given sizes, cut short where the items run out. */
    private static <T> List<List<T>> dealOut(List<T> items, List<Integer> sizes) {
        List<List<T>> shares = new ArrayList<>(sizes.size());
        int from = 0;
        for (int size : sizes) {
            int to = Math.min(items.size(), from + size);
            shares.add(List.copyOf(items.subList(from, to)));
            from = to;
        }
        return shares;
    }

    /**
     * Claims up to {@code max} jobs in one statement in autocommit, so one round trip and one commit. The claimed
     * lanes' cursors lag by this claim until each lane's next claim moves them past its committed range (schema step
     * 4).
     */
    private Mono<List<Job>> claimStatement(String queue, int max, String workerId, @Nullable Duration defaultTimeout) {
        Object timeout = defaultTimeout == null ? Db.nullOf(Long.class) : (Object) defaultTimeout.toMillis();
        String sql = "SELECT * FROM " + schema.function(SqlFunction.CLAIM_JOBS) + "($1, $2, $3, $4)";
        return Db.withConnection(factory, c -> Db.query(c, sql, row -> mapClaimedJob(queue, row), queue, max,
                        workerId, timeout)
                .collectList());
    }

    /**
     * Releases the jobs a shared claim statement took for a claim cancelled meanwhile (ready again at once, same
     * attempt); one that fails stays leased until rescue takes it back.
     */
    private void giveBack(List<Job> jobs) {
        Flux.fromIterable(jobs)
                .concatMap(job -> end(job, Outcome.RELEASED, null).onErrorResume(error -> {
                    LOG.debug("job {}, claimed for a cancelled claim, was not released; rescue takes it back",
                            job.id(), error);
                    return Mono.empty();
                }))
                .subscribe();
    }

    private static Job mapClaimedJob(String queue, Readable row) {
        Long timeoutMs = row.get(7, Long.class);
        return new Job(Db.get(row, 0, Long.class), queue, Db.get(row, 2, String.class), Db.get(row, 3, String.class),
                Db.get(row, 4, Short.class), Db.get(row, 5, Integer.class), Db.get(row, 6, Integer.class),
                timeoutMs == null ? null : Duration.ofMillis(timeoutMs), row.get(14, Instant.class),
                Db.get(row, 1, Long.class), Db.get(row, 8, Integer.class), Db.get(row, 9, Long.class),
                Db.get(row, 10, Integer.class), Db.get(row, 11, Integer.class), Db.get(row, 12, Integer.class),
                Db.get(row, 13, Long.class));
    }

    /**
     * After a move that spent its source row committed, moves that lane's cursor past the row in a separate short
     * transaction (the lane's claim head locked), up to {@value #ADVANCE_TRIES} tries. A failure only leaves the
     * cursor lagging: the next claimer skips the committed range and repairs it.
     */
    private Mono<Void> advanceMovedCursor(String queue, int priority, int shard, long spentNext) {
        // One statement, so one short transaction of its own; the function sets its lock timeout first.
        String sql = "SELECT " + schema.function(SqlFunction.ADVANCE_CLAIM_CURSORS)
                + "($1, $2::smallint[], $3::int[], $4::bigint[], $5)";
        return Db.withConnection(factory, c -> Db.query(c, sql, row -> 1, queue, new Integer[] {priority},
                        new Integer[] {shard}, new Long[] {spentNext}, maintenanceTimeoutMillis + "ms")
                        .then(Mono.just(true)))
                .retry(ADVANCE_TRIES - 1)
                .onErrorResume(error -> {
                    LOG.debug("cursor advance of queue {} after a move failed {} times; the next claimer repairs it",
                            queue, ADVANCE_TRIES, error);
                    return Mono.empty();
                })
                .then();
    }

    // ------------------------------------------------------------------ attempts

    /**
     * Refreshes the heartbeat of live attempts: per lease slot, one UPDATE of the claimed runs' rows (schema step 18:
     * one row per run) and one of the leases (attempts claimed before it), each in the slot's own child. An attempt of
     * a run is live while its place is neither in the run's ended list nor in a closure of the run (schema step 19:
     * in the same lease slot).
     *
     * @param jobs the attempts
     * @return the ids of the attempts still live
     */
    public Flux<Long> heartbeat(Collection<Job> jobs) {
        if (jobs.isEmpty()) {
            return Flux.empty();
        }
        Map<Integer, List<Job>> bySlot = jobs.stream().collect(Collectors.groupingBy(Job::leaseSlot, TreeMap::new,
                Collectors.toList()));
        return Db.withConnection(factory, c -> Flux.fromIterable(bySlot.entrySet())
                .concatMap(e -> {
                    // Attempts of claimed runs have negative run leases (schema step 18), leases positive ones.
                    Map<Boolean, List<Job>> ofRuns = e.getValue().stream()
                            .collect(Collectors.partitioningBy(job -> job.runLease() < 0));
                    return heartbeatRuns(c, e.getKey(), ofRuns.get(true))
                            .concatWith(heartbeatLeases(c, e.getKey(), ofRuns.get(false)));
                })
                .collectList()).flatMapMany(Flux::fromIterable);
    }

    private Flux<Long> heartbeatRuns(Connection c, int leaseSlot, List<Job> jobs) {
        if (jobs.isEmpty()) {
            return Flux.empty();
        }
        // The run of an attempt is -runLease / 1024 and its place in the run -runLease % 1024 (schema step 18).
        return Db.query(c, "WITH u AS (UPDATE " + schema.child(Table.LEASE_RUNS, leaseSlot)
                        + " SET heartbeat_at = clock_timestamp() WHERE lease_slot = $1"
                        + " AND run_id = ANY (SELECT DISTINCT (-r) >> 10 FROM unnest($3::bigint[]) r)"
                        + " RETURNING run_id, job_ids, ended)"
                        + " SELECT x.job_id FROM u"
                        + " CROSS JOIN LATERAL unnest(u.job_ids) WITH ORDINALITY AS x (job_id, n)"
                        + " WHERE (x.job_id, -(u.run_id * 1024 + x.n - 1)) IN"
                        + " (SELECT * FROM unnest($2::bigint[], $3::bigint[]))"
                        + " AND (x.n - 1)::int <> ALL (u.ended) AND NOT EXISTS (SELECT 1 FROM "
                        + schema.child(Table.LEASE_RUN_CLOSURES, leaseSlot) + " k WHERE k.lease_slot = $1"
                        + " AND k.run_id = u.run_id AND (x.n - 1)::int = ANY (k.places))",
                row -> Db.get(row, 0, Long.class), leaseSlot, jobs.stream().map(Job::id).toArray(Long[]::new),
                jobs.stream().map(Job::runLease).toArray(Long[]::new));
    }

    private Flux<Long> heartbeatLeases(Connection c, int leaseSlot, List<Job> jobs) {
        if (jobs.isEmpty()) {
            return Flux.empty();
        }
        return Db.query(c, "UPDATE " + schema.child(Table.LEASES, leaseSlot)
                        + " SET heartbeat_at = clock_timestamp() WHERE lease_slot = $1 AND (job_id, run_lease)"
                        + " IN (SELECT * FROM unnest($2::bigint[], $3::bigint[])) RETURNING job_id",
                row -> Db.get(row, 0, Long.class), leaseSlot, jobs.stream().map(Job::id).toArray(Long[]::new),
                jobs.stream().map(Job::runLease).toArray(Long[]::new));
    }

    /** How an attempt ends other than by completing ({@link #completeAll} completes). */
    public enum Outcome {
        /** Failure: retry while attempts remain. */
        FAILED("failed"),
        /** Give the attempt back without consuming it. */
        RELEASED("released");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }
    }

    /**
     * Fails or releases an attempt in one statement (one transaction): the lease delete is the race guard.
     *
     * @param job the attempt
     * @param outcome how it ended
     * @param error the error text for a failure
     * @return what happened
     */
    public Mono<AttemptResult> end(Job job, Outcome outcome, @Nullable String error) {
        String sql = "SELECT " + schema.function(SqlFunction.END_ATTEMPT) + "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
        Object errorBind = error == null ? Db.nullOf(String.class) : truncate(error);
        return Db.withConnection(factory, c -> Db.queryOne(c, sql, row -> Db.get(row, 0, String.class),
                        job.leaseSlot(), job.id(), job.runLease(), outcome.label, errorBind,
                        (double) config.retryBackoffBase().toMillis(), config.retryBackoffFactor(),
                        (double) config.retryBackoffMax().toMillis(), jitterFactor(),
                        !config.deadLetterRetention().isZero()))
                .map(Lifecycle::attemptResult);
    }

    /**
     * Completes a batch of attempts in one statement and one transaction (group commit), the lease delete being
     * each attempt's race guard; the statement is shared with the batches of other callers that waited for one in
     * flight once {@link QueueStorageConfig#maxStatementsInFlight()} run ({@link SharedStatements}).
     *
     * @param jobs the attempts, at most {@link #MAX_COMPLETE_BATCH}
     * @return one result per job, in the order given: {@link AttemptResult#COMPLETED} or {@link AttemptResult#LOST}
     */
    public Mono<List<AttemptResult>> completeAll(List<Job> jobs) {
        if (jobs.isEmpty()) {
            return Mono.just(List.of());
        }
        return sharedCompletions.run(jobs);
    }

    /** Completes the attempts of several callers in one statement, and answers each caller its results. */
    private Mono<List<List<AttemptResult>>> completeTogether(List<List<Job>> batches) {
        List<Job> all = batches.stream().flatMap(List::stream).toList();
        return completeStatement(all).map(results -> dealOut(results, batches.stream().map(List::size).toList()));
    }

    private Mono<List<AttemptResult>> completeStatement(List<Job> jobs) {
        String sql = "SELECT o_ord, o_result FROM " + schema.function(SqlFunction.COMPLETE_ATTEMPTS)
                + "($1::int[], $2::bigint[], $3::bigint[])";
        return Db.withConnection(factory, c -> Db.query(c, sql,
                        row -> Map.entry(Db.get(row, 0, Integer.class), attemptResult(Db.get(row, 1, String.class))),
                        jobs.stream().map(Job::leaseSlot).toArray(Integer[]::new),
                        jobs.stream().map(Job::id).toArray(Long[]::new),
                        jobs.stream().map(Job::runLease).toArray(Long[]::new))
                .collectList())
                .map(rows -> {
                    AttemptResult[] results = new AttemptResult[jobs.size()];
                    rows.forEach(row -> results[row.getKey() - 1] = row.getValue());
                    return List.of(results);
                });
    }

    /** The most attempts one {@link #completeAll} statement ends; larger batches are split by callers. */
    public static final int MAX_COMPLETE_BATCH = 1000;

    private static AttemptResult attemptResult(String label) {
        return switch (label) {
            case "completed" -> AttemptResult.COMPLETED;
            case "retried" -> AttemptResult.RETRY_SCHEDULED;
            case "failed" -> AttemptResult.FAILED;
            case "released" -> AttemptResult.RELEASED;
            case "lost" -> AttemptResult.LOST;
            default -> throw new IllegalStateException("unexpected end_attempt result " + label);
        };
    }

    /** A factor in [1 - jitter, 1 + jitter] (ThreadLocalRandom: never blocks, unlike SecureRandom). */
    private double jitterFactor() {
        double jitter = config.retryBackoffJitter();
        return jitter == 0 ? 1 : 1 + jitter * (2 * ThreadLocalRandom.current().nextDouble() - 1);
    }

    private static String truncate(String error) {
        return error.length() <= MAX_ERROR_CHARS ? error : error.substring(0, MAX_ERROR_CHARS);
    }

    // ------------------------------------------------------------------ cancel, maintenance, reads

    /**
     * Cancels a job not yet claimed.
     *
     * @param jobId the job id
     * @return what happened
     */
    public Mono<CancelResult> cancel(long jobId) {
        String sql = "SELECT " + schema.function(SqlFunction.CANCEL_JOB) + "($1)";
        return Db.withConnection(factory, c -> Db.queryOne(c, sql, row -> Db.get(row, 0, String.class), jobId))
                .map(label -> switch (label) {
                    case "cancelled" -> CancelResult.CANCELLED;
                    case "not_cancellable" -> CancelResult.NOT_CANCELLABLE;
                    default -> CancelResult.NOT_FOUND;
                });
    }

    /**
     * Moves a job no worker has claimed to (queue, priority), keeping its id, arguments and attempt: one
     * {@code move_job} statement, so one transaction. A target lane that does not exist yet is created only once
     * the move is known to go ahead ({@code no_lane}), in its own short transaction as for an enqueue, and the
     * move is called again. When the move spent its source row, the source lane's cursor advances after the
     * commit, as after a claim.
     *
     * @param jobId the job id
     * @param queue the target queue (validated)
     * @param priority the target priority (validated)
     * @return the job's status after the move; errors with {@link JobStateException} when the job is unknown,
     *     claimed or finished (nothing written)
     */
    public Mono<JobStatus> move(long jobId, String queue, int priority) {
        String sql = "SELECT * FROM " + schema.function(SqlFunction.MOVE_JOB) + "($1, $2, $3::smallint, $4)";
        return shards(queue).map(n -> new Lane(queue, priority, ThreadLocalRandom.current().nextInt(n)))
                .flatMap(lane -> {
                    Mono<MoveRow> call = Db.withConnection(factory, c -> Db.queryOne(c, sql,
                            row -> moveRow(jobId, row), jobId, queue, priority, lane.shard()));
                    return call.flatMap(row -> row.result().equals("no_lane")
                            ? ensureLane(lane).then(call) : Mono.just(row));
                })
                .flatMap(row -> {
                    Mono<Void> advance = row.spentNext() == null ? Mono.empty()
                            : advanceMovedCursor(row.sourceQueue(), row.sourcePriority(), row.sourceShard(),
                                    row.spentNext());
                    return advance.then(moveResult(jobId, row));
                });
    }

    /** A row of {@code move_job}; the status columns are null for 'not_found' and 'no_lane'. */
    private record MoveRow(String result, @Nullable JobStatus status, @Nullable String sourceQueue,
            int sourcePriority, int sourceShard, @Nullable Long spentNext) {
    }

    private static MoveRow moveRow(long jobId, Readable row) {
        String result = Db.get(row, 0, String.class);
        String state = row.get(1, String.class);
        JobStatus status = state == null ? null : new JobStatus(jobId, JobState.valueOf(state.toUpperCase(Locale.ROOT)),
                Db.get(row, 2, String.class), Db.get(row, 3, String.class), Db.get(row, 4, Short.class),
                Db.get(row, 5, Integer.class), Db.get(row, 6, Integer.class), row.get(7, Instant.class),
                row.get(8, String.class));
        Short sourcePriority = row.get(10, Short.class);
        Integer sourceShard = row.get(11, Integer.class);
        return new MoveRow(result, status, row.get(9, String.class), sourcePriority == null ? 0 : sourcePriority,
                sourceShard == null ? 0 : sourceShard, row.get(12, Long.class));
    }

    private static Mono<JobStatus> moveResult(long jobId, MoveRow row) {
        JobStatus status = row.status();
        if (status == null) {
            if (!row.result().equals("not_found")) {
                return Mono.error(new IllegalStateException("move_job returned " + row.result() + " for job " + jobId
                        + " after its target lane was created"));
            }
            return Mono.error(new JobStateException(jobId, null, "job " + jobId + " cannot be moved: it is not in"
                    + " the deferred table or the queue ring (unknown, or its history was pruned)"));
        }
        return switch (row.result()) {
            case "moved" -> Mono.just(status);
            case "claimed" -> Mono.error(new JobStateException(jobId, status.state(), "job " + jobId
                    + " cannot be moved: a worker has claimed it; only a scheduled or available job can be moved"));
            default -> Mono.error(new JobStateException(jobId, status.state(), "job " + jobId
                    + " cannot be moved: it has finished (" + status.state().label() + ")"));
        };
    }

    /**
     * Moves due deferred jobs into the current queue slot, in one autocommit statement under its own
     * transaction-local lock timeout of max(T, 100 ms).
     *
     * @param maxJobs the batch size
     * @return how many moved
     */
    public Mono<Integer> promote(int maxJobs) {
        return Db.withConnection(factory, c -> Db.callUnderLockTimeout(c, maintenanceTimeoutMillis,
                schema.function(SqlFunction.PROMOTE_JOBS) + "($1)", row -> Db.get(row, 0, Integer.class), maxJobs));
    }

    /**
     * Retries or fails attempts with a stale heartbeat or a passed deadline, in one autocommit statement under a
     * transaction-local lock timeout of max(T, 100 ms).
     *
     * @param maxJobs the batch size
     * @return how many were rescued
     */
    public Mono<Integer> rescue(int maxJobs) {
        return Db.withConnection(factory, c -> Db.callUnderLockTimeout(c, maintenanceTimeoutMillis,
                schema.function(SqlFunction.RESCUE_JOBS) + "($1, $2, $3, $4, $5, $6, $7)",
                row -> Db.get(row, 0, Integer.class), maxJobs, config.leaseStaleAfter().toMillis(),
                (double) config.retryBackoffBase().toMillis(), config.retryBackoffFactor(),
                (double) config.retryBackoffMax().toMillis(), config.retryBackoffJitter(),
                !config.deadLetterRetention().isZero()));
    }

    /**
     * A job's state by id: one server-side point read.
     *
     * @param jobId the job id
     * @return the status, or empty when unknown
     */
    public Mono<io.awareactive.core.JobStatus> status(long jobId) {
        String sql = "SELECT * FROM " + schema.function(SqlFunction.JOB_STATUS) + "($1)";
        return Db.withConnection(factory, c -> Db.queryOne(c, sql, row -> new io.awareactive.core.JobStatus(jobId,
                io.awareactive.core.JobState.valueOf(Db.get(row, 0, String.class).toUpperCase(java.util.Locale.ROOT)),
                Db.get(row, 1, String.class), Db.get(row, 2, String.class), Db.get(row, 3, Short.class),
                Db.get(row, 4, Integer.class), Db.get(row, 5, Integer.class), row.get(6, Instant.class),
                row.get(7, String.class)), jobId));
    }

    /**
     * Per-queue counts in one statement, never reading ready or done rows (design §4).
     *
     * @param queue the queue
     * @return the counts
     */
    public Mono<QueueCounts> counts(String queue) {
        // A lane's claim sequence may lag by its last claim, so its cursor is the largest of: the sequence; the end
        // of its highest committed claim range; the start of its oldest live segment (everything below lay in pruned
        // slots, which held only claimed rows), or, with no live segment, the enqueue sequence. Index probes per lane
        // and slot.
        String lane = "queue = l.queue AND priority = l.priority AND enqueue_shard = l.enqueue_shard";
        String sql = "WITH lanes AS (SELECT l.priority, l.enqueue_shard, l.e,"
                + " greatest(pg_sequence_last_value(l.claim_seq),"
                + " (SELECT max(next_lane_seq) - 1 FROM " + schema.table(Table.READY_CLAIM_RANGES)
                + " WHERE " + lane + "),"
                + " coalesce((SELECT first_lane_seq - 1 FROM " + schema.table(Table.READY_SEGMENTS)
                + " WHERE " + lane + " ORDER BY next_lane_seq LIMIT 1), l.e)) AS c"
                + " FROM (SELECT *, pg_sequence_last_value(enqueue_seq) AS e FROM " + schema.table(Table.QUEUE_LANES)
                + " WHERE queue = $1) l),"
                + " terminal AS (SELECT x.state, sum(x.n)::bigint AS n FROM ("
                + "SELECT state, count AS n FROM " + schema.table(Table.QUEUE_TERMINAL_ROLLUPS) + " WHERE queue = $1"
                + " UNION ALL SELECT state, count FROM " + schema.table(Table.QUEUE_TERMINAL_ROLLUP_DELTAS)
                + " WHERE queue = $1"
                + " UNION ALL SELECT state, count FROM " + schema.table(Table.QUEUE_TERMINAL_LIVE_COUNTS)
                + " WHERE queue = $1"
                + " UNION ALL SELECT state, delta FROM " + schema.table(Table.QUEUE_TERMINAL_COUNT_DELTAS)
                + " WHERE queue = $1) x GROUP BY x.state)"
                + " SELECT greatest(coalesce((SELECT sum(greatest(e - c, 0)) FROM lanes), 0)"
                + " - (SELECT count(*) FROM " + schema.table(Table.READY_TOMBSTONES) + " t JOIN lanes l"
                + " ON t.priority = l.priority AND t.enqueue_shard = l.enqueue_shard"
                + " WHERE t.queue = $1 AND t.lane_seq > l.c), 0)::bigint,"
                + " (SELECT coalesce(sum(live), 0)::bigint FROM " + schema.table(Table.LEASE_TALLIES)
                + " WHERE queue = $1),"
                + " (SELECT count(*) FROM " + schema.table(Table.DEFERRED_JOBS) + " WHERE queue = $1),"
                + " coalesce((SELECT n FROM terminal WHERE state = 'completed'), 0),"
                + " coalesce((SELECT n FROM terminal WHERE state = 'failed'), 0),"
                + " coalesce((SELECT n FROM terminal WHERE state = 'cancelled'), 0)";
        return Db.withConnection(factory, c -> Db.queryOne(c, sql, row -> new QueueCounts(queue,
                Db.get(row, 0, Long.class), Db.get(row, 1, Long.class), Db.get(row, 2, Long.class),
                Db.get(row, 3, Long.class), Db.get(row, 4, Long.class), Db.get(row, 5, Long.class)), queue));
    }
}
