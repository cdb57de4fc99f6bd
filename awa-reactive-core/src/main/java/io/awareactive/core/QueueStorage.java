package io.awareactive.core;

import io.awareactive.core.internal.DeadLetters;
import io.awareactive.core.internal.Lifecycle;
import io.awareactive.core.internal.Privileges;
import io.awareactive.core.internal.Schema;
import io.awareactive.core.internal.SchemaInstaller;
import io.awareactive.core.internal.SchemaSteps;
import io.awareactive.core.internal.StorageRingOperations;
import io.awareactive.core.internal.WorkerLoop;
import io.awareactive.core.ring.RingOperations;
import io.r2dbc.spi.Connection;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The queue storage of one awa-reactive schema: installation, the job lifecycle, dead letters and counts (ring work
 * is reached through {@link #ringOperations()}).
 *
 * <p>Every method is lazy and non-blocking: nothing happens until the returned publisher is subscribed, and no
 * method blocks the subscribing thread. Instances are immutable and thread-safe; create one per schema and share
 * it. Connections come from {@link QueueStorageConfig#connectionFactory()} and are returned after each operation.
 *
 * <p><b>Job lifecycle.</b> {@link #enqueue(JobRequest)} puts a job into the current queue slot (or, with a
 * {@code runAt}, into the deferred table); {@link #claim(String, int, String)} takes a batch in priority order,
 * FIFO within a lane, giving each attempt a lease; {@link #heartbeat(Job)} keeps an attempt alive;
 * {@link #complete(Job)}, {@link #fail(Job, String)} and {@link #release(Job)} end it; {@link #cancel(long)} cancels
 * a job not yet claimed. <b>Promotion of scheduled jobs, retries with a backoff, and rescue of attempts with a stale
 * heartbeat or a passed deadline happen only while a maintenance engine runs</b> (it drives them through
 * {@link #ringOperations()}); without one, scheduled jobs and delayed retries stay in the deferred table and stuck
 * attempts keep their lease. A {@link Worker} ({@link #worker(WorkerConfig)}) runs a handler on a queue.
 */
public final class QueueStorage {

    private final QueueStorageConfig config;
    private final Schema schema;
    private final SchemaInstaller installer;
    private final List<MigrationScript> migrationScripts;
    private final Lifecycle lifecycle;
    private final DeadLetters deadLetters;
    private final Privileges privileges;
    private final RingOperations ringOperations;

    private QueueStorage(QueueStorageConfig config) {
        this.config = config;
        this.schema = new Schema(config.schema());
        Map<Ring, Integer> slotCounts = new EnumMap<>(Ring.class);
        for (Ring ring : Ring.values()) {
            slotCounts.put(ring, config.slotCount(ring));
        }
        this.installer = new SchemaInstaller(config.connectionFactory(), schema, slotCounts);
        this.migrationScripts = SchemaSteps.render(schema, slotCounts);
        this.lifecycle = new Lifecycle(config.connectionFactory(), schema, config);
        this.deadLetters = new DeadLetters(config.connectionFactory(), schema, config);
        this.privileges = new Privileges(config.connectionFactory(), schema);
        this.ringOperations = new StorageRingOperations(config, schema, installer, lifecycle, deadLetters);
    }

    /**
     * Creates the storage. Does no I/O.
     *
     * @param config the configuration
     * @return the storage
     * @throws IllegalArgumentException when {@code config} is null
     */
    public static QueueStorage create(QueueStorageConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        return new QueueStorage(config);
    }

    /**
     * The configuration this storage was created with.
     *
     * @return the configuration
     */
    public QueueStorageConfig config() {
        return config;
    }

    /**
     * Installs the schema at this library's latest version, or upgrades an older one in place: the missing version
     * steps ({@link #migrationScripts()}) run in order, each in its own transaction, and each records itself in
     * {@code awa_reactive_schema_version}. Idempotent (at the latest version it only checks the schema) and
     * serialised across concurrent installers (two installing at once end with one correct schema and no error).
     * Stop workers and maintenance of the previous library version before upgrading ({@code docs/operations.md},
     * Upgrading).
     *
     * @return completion; errors with {@link AwaReactiveException}, changing nothing, when the schema holds tables
     *     awa-reactive did not create, is at a version newer than this library's, records a step whose checksum
     *     differs from this library's copy (the message names the step), or was installed with other slot counts
     *     (the message names both values)
     */
    public Mono<Void> install() {
        return installer.install();
    }

    /**
     * The schema version steps rendered for this storage's schema and slot counts, for users who apply DDL with
     * their own migration tool instead of {@link #install()} ({@code docs/schema-migrations.md}). Run them in order,
     * each in one transaction, as a role that may create the schema; each script records its own row in
     * {@code awa_reactive_schema_version}, so {@link #verifyInstalled()} and a later {@link #install()} see the
     * same version as your tool. Does no I/O.
     *
     * @return every step from version 1 to the latest, in order
     */
    public List<MigrationScript> migrationScripts() {
        return migrationScripts;
    }

    /**
     * Grants an application role what it needs to enqueue (to new queues too), claim, heartbeat and end jobs, and
     * nothing more (design §3.1): {@code USAGE} on the schema; {@code SELECT, INSERT, UPDATE, DELETE} on every table
     * (no {@code TRUNCATE}, no DDL); {@code USAGE, UPDATE} on every sequence; {@code EXECUTE} on the functions; and,
     * through {@code ALTER DEFAULT PRIVILEGES}, {@code USAGE, UPDATE} on the lane sequences that {@code create_lane}
     * creates later. Run it on a storage whose connections log in as the schema owner (the role that ran
     * {@link #install()}), after installing. Idempotent; one transaction.
     *
     * @param role an existing role: 1 to 63 bytes of {@code [A-Za-z_][A-Za-z0-9_]*}, not {@code pg_*} or
     *     {@code public} (quoted in the SQL, so case is kept)
     * @return completion; a database failure (unknown role, not the owner) is an error signal, nothing granted
     * @throws IllegalArgumentException at call time, before any SQL, for a bad role name
     */
    public Mono<Void> grantApplicationRole(String role) {
        String checked = Privileges.requireRoleName(role);
        return Mono.defer(() -> privileges.grant(checked, false));
    }

    /**
     * Grants a maintenance role (the engine's) the application rights of {@link #grantApplicationRole(String)}
     * plus {@code TRUNCATE} on every table, which also allows the prune's {@code LOCK TABLE}. Membership in
     * {@code pg_read_all_stats} (or {@code pg_monitor}) is not granted here, since only a superuser or a role with
     * its admin option may grant it: run {@code GRANT pg_read_all_stats TO <role>} as such. Without it the engine
     * warns at start, blocker diagnostics carry only pid, application name and {@code backend_xmin}, and the
     * rollup's horizon check falls back to xid ages ({@code mvccPinMinXids}). Run it as the schema owner;
     * idempotent; one transaction.
     *
     * @param role an existing role, as for {@link #grantApplicationRole(String)}
     * @return completion; a database failure is an error signal, nothing granted
     * @throws IllegalArgumentException at call time, before any SQL, for a bad role name
     */
    public Mono<Void> grantMaintenanceRole(String role) {
        String checked = Privileges.requireRoleName(role);
        return Mono.defer(() -> privileges.grant(checked, true));
    }

    /**
     * Checks, changing nothing, that the schema is installed at this library's latest version, with unchanged steps
     * and the configured slot counts: the check for services whose DDL is applied by a migration tool.
     *
     * @return completion; errors with {@link AwaReactiveException} otherwise (an older schema: the message says to
     *     run {@link #install()} or the missing {@link #migrationScripts()})
     */
    public Mono<Void> verifyInstalled() {
        return installer.verify();
    }

    /**
     * The ring work of this storage (rotation, prune, rollup, promotion, rescue, dead-letter purge) for a
     * maintenance engine: {@code RingMaintenance.create(storage, config)} drives the schema through it, on this
     * storage's connections and under its {@link QueueStorageConfig#pruneLockTimeout() prune lock timeout}.
     * Applications do not need it; tests may call it to run one operation directly. Does no I/O.
     *
     * @return the operations, one instance per storage
     */
    public RingOperations ringOperations() {
        return ringOperations;
    }

    // ------------------------------------------------------------------------------------------- job lifecycle

    /**
     * Enqueues one job in its own transaction. An immediate job goes into the current queue slot (the slot read
     * from the ledger inside the same INSERT), under its lane's advisory lock from reserving its position until
     * commit; a scheduled one ({@link JobRequest#runAt()}) into the deferred table, from where a running maintenance
     * engine promotes it once due. Workers of the queue are notified (one {@code NOTIFY} per transaction and queue).
     * A new lane (queue, priority, shard) is first created by {@code create_lane} in its own short transaction.
     *
     * @param request the job
     * @return the server-assigned job id
     * @throws IllegalArgumentException at call time, nothing written, when {@code request} is null or its arguments
     *     exceed {@link QueueStorageConfig#maxArgsBytes()}
     */
    public Mono<Long> enqueue(JobRequest request) {
        List<JobRequest> batch = List.of(lifecycle.checkRequest(request));
        return Mono.defer(() -> lifecycle.enqueue(batch)).map(ids -> ids.get(0));
    }

    /**
     * Enqueues jobs in batches of up to {@value #ENQUEUE_BATCH} requests, each batch one transaction of a few
     * round trips (one per lane, plus one for all scheduled jobs). Each request is checked as it arrives; a bad one
     * ends the stream with an {@link IllegalArgumentException} before its batch is written (earlier batches stay
     * committed).
     *
     * @param requests the jobs
     * @return the job ids, in input order
     * @throws IllegalArgumentException at call time when {@code requests} is null
     */
    public Flux<Long> enqueueAll(Publisher<JobRequest> requests) {
        if (requests == null) {
            throw new IllegalArgumentException("requests must not be null");
        }
        return Flux.from(requests)
                .map(lifecycle::checkRequest)
                .buffer(ENQUEUE_BATCH)
                .concatMap(lifecycle::enqueue)
                .concatMapIterable(ids -> ids);
    }

    /** The largest batch of {@link #enqueueAll(Publisher)}. */
    public static final int ENQUEUE_BATCH = 500;

    /**
     * Enqueues one job inside the caller's transaction: the job commits or rolls back with the caller's own
     * writes, and its {@code NOTIFY} is delivered at the caller's commit. The caller must have begun the
     * transaction on {@code connection}; nothing here begins, commits or closes it. The job's lane lock is held
     * until the caller ends the transaction, so keep it short: the lane's later jobs cannot be enqueued meanwhile.
     * A new lane is created beforehand on a connection of this storage (never inside the caller's transaction), so
     * the storage's factory must be able to hand out a connection while the caller holds one.
     *
     * @param connection the caller's connection, inside a transaction
     * @param request the job
     * @return the server-assigned job id
     * @throws IllegalArgumentException at call time, nothing written, when an argument is null or the job's
     *     arguments exceed {@link QueueStorageConfig#maxArgsBytes()}
     */
    public Mono<Long> enqueue(Connection connection, JobRequest request) {
        if (connection == null) {
            throw new IllegalArgumentException("connection must not be null");
        }
        List<JobRequest> batch = List.of(lifecycle.checkRequest(request));
        return Mono.defer(() -> lifecycle.enqueue(connection, batch)).map(ids -> ids.get(0));
    }

    /**
     * Claims up to {@code maxBatch} jobs of a queue in one statement and one commit: lanes in priority order (1
     * first), FIFO within a lane; a lane being claimed by someone else is skipped, never waited for (a try-lock on
     * its claim head), so two claimers never receive the same attempt. Each run of jobs taken from one lane gets one
     * lease row in the current lease slot, holding its attempts until they end. A claimed lane's cursor moves past
     * this claim at the lane's next claim (moving it inside this one could skip the jobs if the claim rolled back).
     *
     * <p>Claims of one queue through this storage share statements: while
     * {@link QueueStorageConfig#maxStatementsInFlight()} of them run, a further claim waits, and when one ends the
     * claims that waited are sent as one claim of their summed batch sizes (up to 1,000 jobs, under the first one's
     * worker id), whose jobs are dealt out in arrival order; this claim gets at most {@code maxBatch} of them and no
     * other claim gets the same. A failed shared statement claimed nothing and fails each claim that shared it. A
     * claim cancelled before its jobs arrive claims nothing more, and jobs claimed for it meanwhile are released.
     * Attempts claimed together share their lease run, so a heartbeat of one keeps the others from going stale: end
     * every attempt (complete, fail or release) or give it a timeout.
     *
     * @param queue the queue
     * @param maxBatch the most jobs, 1 to 1,000
     * @param workerId recorded on the leases
     * @return the claimed attempts (none when nothing is available)
     * @throws IllegalArgumentException at call time for a bad queue name, batch size or blank worker id
     */
    public Flux<Job> claim(String queue, int maxBatch, String workerId) {
        JobRequest.requireQueue(queue);
        if (maxBatch < 1 || maxBatch > Lifecycle.MAX_CLAIM_BATCH) {
            throw new IllegalArgumentException("maxBatch must be between 1 and " + Lifecycle.MAX_CLAIM_BATCH + ", was "
                    + maxBatch);
        }
        if (workerId == null || workerId.isBlank()) {
            throw new IllegalArgumentException("workerId must not be blank, was "
                    + (workerId == null ? "null" : "\"" + workerId + "\""));
        }
        return Flux.defer(() -> lifecycle.claim(queue, maxBatch, workerId, null));
    }

    /**
     * Refreshes a live attempt's heartbeat ({@code deadline} never moves).
     *
     * @param job the attempt
     * @return true when the attempt is still live; false when its lease is gone (rescued or ended): abandon it
     * @throws IllegalArgumentException when {@code job} is null
     */
    public Mono<Boolean> heartbeat(Job job) {
        requireJob(job);
        return heartbeat(List.of(job)).hasElements();
    }

    /**
     * Refreshes the heartbeats of several attempts: one UPDATE per lease slot.
     *
     * @param jobs the attempts
     * @return the ids of the attempts still live; a missing id means that attempt was rescued or ended
     * @throws IllegalArgumentException when {@code jobs} is null or holds null
     */
    public Flux<Long> heartbeat(Collection<Job> jobs) {
        if (jobs == null) {
            throw new IllegalArgumentException("jobs must not be null");
        }
        List<Job> copy = List.copyOf(jobs);
        return Flux.defer(() -> lifecycle.heartbeat(copy));
    }

    /**
     * Completes an attempt, in one transaction: under its claimed run's lock, when the attempt is still open, writes
     * the run's closure (its place completed) into the run's lease slot and a count delta into the job's original
     * queue slot. An attempt claimed before schema step 18 has a lease instead: it is deleted (the race guard) and a
     * completed done row written (before step 7 its receipt is closed too). The transaction may be shared with other
     * completions, as {@link #completeAll(Collection)} describes.
     *
     * @param job the attempt
     * @return {@link AttemptResult#COMPLETED}, or {@link AttemptResult#LOST} when the attempt was no longer live
     *     (nothing written)
     * @throws IllegalArgumentException when {@code job} is null
     */
    public Mono<AttemptResult> complete(Job job) {
        requireJob(job);
        // The batch path with one attempt: its statements are planned once per session, end_attempt's per call.
        return Mono.defer(() -> lifecycle.completeAll(List.of(job))).map(results -> results.get(0));
    }

    /**
     * Completes several attempts with one statement and one commit per {@value #COMPLETE_BATCH} attempts (group
     * commit): each is ended exactly as {@link #complete(Job)} ends it, and an attempt that is no longer live is
     * {@link AttemptResult#LOST} without affecting the others. A {@link Worker} batches its completions this way by
     * itself ({@link WorkerConfig#ackBatchSize()}). Completions through this storage also share statements: while
     * {@link QueueStorageConfig#maxStatementsInFlight()} completion statements run, further ones wait, and when one
     * ends those that waited are sent as one statement (up to 1,000 attempts), each caller getting its own results;
     * a failed shared statement wrote nothing and fails each completion that shared it.
     *
     * @param jobs the attempts; duplicates are allowed (all but the first end {@link AttemptResult#LOST})
     * @return one result per job, in the order given; an empty list for no jobs (no SQL). A database failure is an
     *     error signal: then the batch that failed wrote nothing, batches before it stay committed
     * @throws IllegalArgumentException when {@code jobs} is null or holds null
     */
    public Mono<List<AttemptResult>> completeAll(Collection<Job> jobs) {
        if (jobs == null) {
            throw new IllegalArgumentException("jobs must not be null");
        }
        jobs.forEach(QueueStorage::requireJob);
        List<Job> copy = List.copyOf(jobs);
        return Flux.range(0, (copy.size() + COMPLETE_BATCH - 1) / COMPLETE_BATCH)
                .concatMap(batch -> lifecycle.completeAll(copy.subList(batch * COMPLETE_BATCH,
                        Math.min(copy.size(), (batch + 1) * COMPLETE_BATCH))))
                .<AttemptResult>concatMapIterable(results -> results)
                .collectList();
    }

    /** The most attempts {@link #completeAll(Collection)} ends in one statement and one commit. */
    public static final int COMPLETE_BATCH = Lifecycle.MAX_COMPLETE_BATCH;

    /**
     * Fails an attempt. While attempts remain, the job is retried after {@code min(base * factor^(attempt - 1),
     * max) * (1 +- jitter)} through the deferred table (promoted by a running maintenance engine), or at once into
     * the current queue slot when the delay is zero; otherwise it fails terminally (a failed done row with the
     * error, and a dead-letter row unless {@link QueueStorageConfig#deadLetterRetention()} is zero).
     *
     * @param job the attempt
     * @param error what went wrong (stored, up to 8,192 characters)
     * @return {@link AttemptResult#RETRY_SCHEDULED}, {@link AttemptResult#FAILED}, or {@link AttemptResult#LOST}
     *     when the attempt was no longer live (nothing written)
     * @throws IllegalArgumentException when an argument is null
     */
    public Mono<AttemptResult> fail(Job job, String error) {
        requireJob(job);
        if (error == null) {
            throw new IllegalArgumentException("error must not be null");
        }
        return Mono.defer(() -> lifecycle.end(job, Lifecycle.Outcome.FAILED, error));
    }

    /**
     * Releases an attempt without consuming it: the job is ready again at once in the current queue slot, with the
     * same attempt number.
     *
     * @param job the attempt
     * @return {@link AttemptResult#RELEASED}, or {@link AttemptResult#LOST} when the attempt was no longer live
     * @throws IllegalArgumentException when {@code job} is null
     */
    public Mono<AttemptResult> release(Job job) {
        requireJob(job);
        return Mono.defer(() -> lifecycle.end(job, Lifecycle.Outcome.RELEASED, null));
    }

    private static void requireJob(Job job) {
        if (job == null) {
            throw new IllegalArgumentException("job must not be null");
        }
    }

    /**
     * Cancels a job that has not been claimed: a scheduled one is removed from the deferred table, a ready one is
     * tombstoned (claimers skip it) under its lane's claim head; either gets a cancelled done row and count delta.
     *
     * @param jobId the job id
     * @return {@link CancelResult#CANCELLED}; {@link CancelResult#NOT_CANCELLABLE} when it was claimed, finished or
     *     cancelled already; {@link CancelResult#NOT_FOUND} for an unknown (or pruned) id; nothing is written then
     */
    public Mono<CancelResult> cancel(long jobId) {
        return Mono.defer(() -> lifecycle.cancel(jobId));
    }

    /**
     * A job's state by id: a point read that tries the deferred table, then the queue slots newest-first, naming
     * each child (never a ring-parent scan), then the dead-letter table. In a slot, a done row means the job
     * finished; otherwise the job's live ready row counts: running while claimed and its attempt open, completed once
     * its run's closure holds it (no done row since schema step 19). A row a move or cancel tombstoned never counts, so
     * after a {@linkplain #move(long, String, int) move} the status shows the job where it now waits, even when the
     * ring wrapped meanwhile and reused the source row's slot number. A finished job's ring history lasts about one
     * queue-ring lap; a terminally failed one stays readable ({@link JobState#FAILED}) while its dead-letter row
     * exists.
     *
     * @param jobId the job id
     * @return the status, or empty for an unknown (or pruned) id
     */
    public Mono<JobStatus> status(long jobId) {
        return Mono.defer(() -> lifecycle.status(jobId));
    }

    /**
     * Moves a job that no worker has claimed to another queue and/or priority, keeping its id, kind, arguments,
     * attempt number, max attempts and timeout; one transaction. A scheduled job (in the deferred table) stays
     * scheduled, with its {@code runAt}, in the new lane. An available job's ready row is tombstoned (claimers skip
     * it, as after a cancel) and the job is enqueued into the current queue slot of the target lane, behind the
     * jobs already there. A job already in that queue and priority is left as it is.
     *
     * <p>A claim and a move of the same job never both succeed: the move locks the source lane's claim head, which
     * every claimer of the lane holds while it claims, and re-reads the job under it. A target lane that does not
     * exist yet is created first, in its own short transaction, as for an enqueue. The move waits for the target
     * lane's lock while a producer's transaction holds it.
     *
     * @param jobId the job id
     * @param queue the target queue: 1 to 63 characters of {@code [a-z0-9_.-]}
     * @param priority the target priority: 1 (highest) to 4
     * @return the job's status after the move ({@link JobState#SCHEDULED} or {@link JobState#AVAILABLE}); errors
     *     with {@link JobStateException}, nothing written, when the job is unknown (or its history was pruned), a
     *     worker has claimed it ({@link JobStateException#state()} {@link JobState#RUNNING}) or it has finished
     * @throws IllegalArgumentException at call time, before any SQL, for a bad job id, queue name or priority
     */
    public Mono<JobStatus> move(long jobId, String queue, int priority) {
        requireJobId(jobId);
        JobRequest.requireQueue(queue);
        requirePriority(priority);
        return Mono.defer(() -> lifecycle.move(jobId, queue, priority));
    }

    // --------------------------------------------------------------------------------------- dead-letter table

    /**
     * The first page of a queue's terminally failed jobs, newest first. A terminal failure (no attempts left, by
     * {@link #fail(Job, String)} or rescue) writes a row to the dead-letter table unless
     * {@link QueueStorageConfig#deadLetterRetention()} is zero; the table lives outside the rings, so the row
     * outlives prune until it is retried, discarded or purged after the retention.
     *
     * @param queue the queue
     * @param limit the page size, 1 to 1,000
     * @return up to {@code limit} failed jobs, by failure time then job id, descending
     * @throws IllegalArgumentException at call time for a bad queue name or limit
     */
    public Flux<FailedJob> failedJobs(String queue, int limit) {
        JobRequest.requireQueue(queue);
        requireLimit(limit);
        return Flux.defer(() -> deadLetters.list(queue, limit, null));
    }

    /**
     * The next page of a queue's failed jobs: those strictly older than {@code after} in the listing order
     * (keyset paging, stable while rows are added or removed).
     *
     * @param queue the queue
     * @param limit the page size, 1 to 1,000
     * @param after the last job of the previous page
     * @return up to {@code limit} failed jobs following {@code after}
     * @throws IllegalArgumentException at call time for a bad queue name or limit, or a null {@code after}
     */
    public Flux<FailedJob> failedJobs(String queue, int limit, FailedJob after) {
        JobRequest.requireQueue(queue);
        requireLimit(limit);
        if (after == null) {
            throw new IllegalArgumentException("after must not be null");
        }
        return Flux.defer(() -> deadLetters.list(queue, limit, after));
    }

    /**
     * One failed job from the dead-letter table.
     *
     * @param jobId the failed job's id
     * @return the failed job, or empty when the table holds no row for it
     * @throws IllegalArgumentException at call time for a job id below 1
     */
    public Mono<FailedJob> failedJob(long jobId) {
        requireJobId(jobId);
        return Mono.defer(() -> deadLetters.get(jobId));
    }

    /**
     * Retries a failed job: enqueues it as a NEW job (a new id, attempt 1 of the same max attempts, same queue,
     * priority, kind, arguments and timeout) and deletes its dead-letter row, in one transaction. The old id keeps
     * its failed history in the ring until pruned.
     *
     * @param jobId the failed job's id
     * @return the new job id; errors with {@link JobStateException}, nothing written, when the table holds no row
     *     for the id (a concurrent retry or discard of the same row leaves exactly one of them successful)
     * @throws IllegalArgumentException at call time for a job id below 1
     */
    public Mono<Long> retryFailedJob(long jobId) {
        requireJobId(jobId);
        return Mono.defer(() -> deadLetters.retry(jobId));
    }

    /**
     * Retries every failed job of a queue that failed up to this call, as {@link #retryFailedJob(long)} does, oldest
     * first, in transactions of {@value #FAILED_JOBS_BATCH} jobs. Concurrent bulk calls never retry a job twice. Jobs
     * failing during the call may or may not be included.
     *
     * @param queue the queue
     * @return how many jobs were re-enqueued
     * @throws IllegalArgumentException at call time for a bad queue name
     */
    public Mono<Long> retryFailedJobs(String queue) {
        JobRequest.requireQueue(queue);
        return Mono.defer(() -> deadLetters.retryAll(queue));
    }

    /**
     * The most rows one transaction of {@link #retryFailedJobs(String)} or {@link #discardFailedJobs(String)} handles.
     */
    public static final int FAILED_JOBS_BATCH = 500;

    /**
     * Discards a failed job: deletes its dead-letter row.
     *
     * @param jobId the failed job's id
     * @return completion; errors with {@link JobStateException}, nothing written, when the table holds no row for
     *     the id
     * @throws IllegalArgumentException at call time for a job id below 1
     */
    public Mono<Void> discardFailedJob(long jobId) {
        requireJobId(jobId);
        return Mono.defer(() -> deadLetters.discard(jobId));
    }

    /**
     * Discards every failed job of a queue that failed up to this call, in transactions of
     * {@value #FAILED_JOBS_BATCH} rows.
     *
     * @param queue the queue
     * @return how many rows were deleted
     * @throws IllegalArgumentException at call time for a bad queue name
     */
    public Mono<Long> discardFailedJobs(String queue) {
        JobRequest.requireQueue(queue);
        return Mono.defer(() -> deadLetters.discardAll(queue));
    }

    private static void requireJobId(long jobId) {
        if (jobId < 1) {
            throw new IllegalArgumentException("jobId must be greater than 0, was " + jobId);
        }
    }

    private static void requirePriority(int priority) {
        if (priority < JobRequest.HIGHEST_PRIORITY || priority > JobRequest.LOWEST_PRIORITY) {
            throw new IllegalArgumentException("priority must be between 1 and 4, was " + priority);
        }
    }

    private static void requireLimit(int limit) {
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be between 1 and 1000, was " + limit);
        }
    }

    /**
     * Per-queue counts in one statement, never reading ready or done rows: available from the lanes' sequences
     * minus tombstones past the cursor (approximate while work is in flight), running from the lease tallies (open
     * attempts), scheduled from the deferred table, terminal counts exactly from the count tables.
     *
     * <p>The statement probes, per lane, the claim-range, segment and tombstone children of every queue slot by
     * index, and sums the count deltas not yet folded (one per completion statement, so its time grows with the
     * completions of the last ring lap). It locks every one of those children while it runs, and a queue prune that
     * finds its slot's children locked is blocked until its next tick. Poll it for dashboards (a few calls a second
     * at most), not per job: at about 190 calls a second against a ring turning every 250 ms, five prunes in six
     * were blocked (docs/operations.md, "Polling counts").
     *
     * @param queue the queue
     * @return the counts (zeros for an unknown queue)
     * @throws IllegalArgumentException at call time for a bad queue name
     */
    public Mono<QueueCounts> counts(String queue) {
        JobRequest.requireQueue(queue);
        return Mono.defer(() -> lifecycle.counts(queue));
    }

    /**
     * A worker for {@code queue} with default settings ({@link WorkerConfig}); call {@link Worker#start()}.
     *
     * @param queue the queue
     * @param handler runs one attempt; its {@code Mono} completing completes the attempt, an error fails it
     * @return the worker, not started
     * @throws IllegalArgumentException for a bad queue name or a null handler
     */
    public Worker worker(String queue, Function<Job, Mono<?>> handler) {
        return worker(WorkerConfig.builder(queue, handler).build());
    }

    /**
     * A worker configured by {@code config}; call {@link Worker#start()}.
     *
     * @param config the worker configuration
     * @return the worker, not started
     * @throws IllegalArgumentException when {@code config} is null
     */
    public Worker worker(WorkerConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        return new WorkerLoop(lifecycle, config, this.config.connectionFactory(), schema.notifyChannel(),
                this.config.heartbeatInterval());
    }
}
