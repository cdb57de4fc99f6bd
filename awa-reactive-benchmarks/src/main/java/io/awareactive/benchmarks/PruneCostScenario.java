package io.awareactive.benchmarks;

import io.awareactive.core.Job;
import io.awareactive.core.QueueStorage;
import io.awareactive.core.Ring;
import io.awareactive.core.ring.PruneOutcome;
import io.awareactive.core.ring.RotateOutcome;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 3, prune cost against rows: reclaiming the storage of N finished jobs. awa-reactive prunes (TRUNCATEs) the
 * queue slot holding them and the lease slot holding their claimed runs' rows and closures (since schema step 7 a job
 * leaves no receipt or closure in the claim ring, since step 18 no lease, since step 19 no done row when it completed);
 * the baseline DELETEs its N rows (its completion step) and VACUUMs the table. Each step is timed and its WAL
 * measured as the difference of {@code pg_current_wal_insert_lsn()} before and after, right after a
 * {@code CHECKPOINT} (so full-page images are included, as for the first change of a page after any checkpoint).
 *
 * <p>The slot is filled by {@link SlotFixture} with {@code INSERT ... SELECT} (running a million jobs through the
 * lifecycle would take most of an hour on this machine); both systems also hold a live backlog written after the
 * finished jobs, and autovacuum is switched off on both systems' tables so it does not run inside a measurement.
 */
final class PruneCostScenario implements Scenario {

    /** Elapsed time and WAL of one step (NaN when it did not finish). */
    record Cost(double millis, double walBytes) {

        Cost plus(Cost other) {
            return new Cost(millis + other.millis, walBytes + other.walBytes);
        }
    }

    /**
     * What reclaiming cost one system: its steps (awa-reactive: queue prune, lease prune, run lease first since schema
     * step 18; baseline: DELETE, VACUUM, in that order), the total, the total without the baseline's DELETE (its completion step), and for awa-reactive the
     * queue prune's phases (gates and count hand-off, lock, truncate, commit; NaN when it did not finish).
     */
    record Reclaim(double fillSeconds, List<Cost> steps, Cost withoutCompletion, long bytesBefore, long bytesAfter,
            double[] queuePhases) {

        Cost total() {
            return steps.stream().reduce(new Cost(0, 0), Cost::plus);
        }

        Cost step(int index) {
            return steps.get(index);
        }
    }

    /**
     * Finished jobs of the unmeasured reclaim each system runs first (unless {@code --jvm-warmup} is 0): the JIT
     * compiles the reclaim path then, not inside the first measured case (which had taken longer at 10k finished jobs
     * than at 100k).
     */
    static final int WARMUP_ROWS = 1_000;

    @Override
    public Report run(BenchContext context) {
        BenchOptions options = context.options();
        Report report = new Report(ScenarioName.PRUNE_COST);
        context.describe(report);
        if (!options.jvmWarmup().isZero()) {
            for (String system : options.systems()) {
                context.log("JVM warm-up / prune-cost / %s: %,d finished jobs, not measured", system, WARMUP_ROWS);
                reclaim(context, system, WARMUP_ROWS, new Report(ScenarioName.PRUNE_COST), "warm-up");
            }
        }
        String dataDirectory = context.database().dataDirectory();
        for (int rows : options.rows()) {
            String caseName = String.format(Locale.ROOT, "%,d finished jobs", rows);
            Reclaim awa = null;
            Reclaim baseline = null;
            for (String system : options.systems()) {
                context.log("prune-cost / %s: %s", system, caseName);
                Reclaim reclaim = reclaim(context, system, rows, report, caseName);
                if (system.equals(AwaQueue.LABEL)) {
                    awa = reclaim;
                } else {
                    baseline = reclaim;
                }
            }
            add(report, caseName, "reclaim time", "ms", awa, baseline, r -> r.total().millis());
            add(report, caseName, "reclaim WAL", "bytes", awa, baseline, r -> r.total().walBytes());
            add(report, caseName, "reclaim time without the baseline's DELETE", "ms", awa, baseline,
                    r -> r.withoutCompletion().millis());
            add(report, caseName, "reclaim WAL without the baseline's DELETE", "bytes", awa, baseline,
                    r -> r.withoutCompletion().walBytes());
            add(report, caseName, "table+index bytes before", "MiB", awa, baseline,
                    r -> r.bytesBefore() / Figures.MIB);
            add(report, caseName, "table+index bytes after", "MiB", awa, baseline, r -> r.bytesAfter() / Figures.MIB);
            add(report, caseName, "fixture fill time (not measured cost)", "s", awa, baseline, Reclaim::fillSeconds);
            add(report, caseName, "file system: truncating one file of the table+index bytes before (ftruncate)", "ms",
                    awa, baseline, r -> FileRelease.millis(dataDirectory, r.bytesBefore()));
            if (awa != null) {
                report.add(caseName, "prune queue ring (TRUNCATE)", "ms", awa.step(0).millis(), Double.NaN);
                report.add(caseName, "queue prune: gates and count hand-off", "ms", awa.queuePhases()[0], Double.NaN);
                report.add(caseName, "queue prune: lock", "ms", awa.queuePhases()[1], Double.NaN);
                report.add(caseName, "queue prune: truncate", "ms", awa.queuePhases()[2], Double.NaN);
                report.add(caseName, "queue prune: commit", "ms", awa.queuePhases()[3], Double.NaN);
                report.add(caseName, "prune lease ring (TRUNCATE)", "ms", awa.step(1).millis(), Double.NaN);
            }
            if (baseline != null) {
                report.add(caseName, "DELETE", "ms", Double.NaN, baseline.step(0).millis());
                report.add(caseName, "DELETE WAL", "bytes", Double.NaN, baseline.step(0).walBytes());
                report.add(caseName, "VACUUM", "ms", Double.NaN, baseline.step(1).millis());
                report.add(caseName, "VACUUM WAL", "bytes", Double.NaN, baseline.step(1).walBytes());
            }
            report.note(String.format(Locale.ROOT, "%s: awa-reactive fill %.1f s + reclaim %.3f s; baseline fill"
                    + " %.1f s + reclaim %.3f s", caseName, awa == null ? Double.NaN : awa.fillSeconds(),
                    awa == null ? Double.NaN : awa.total().millis() / 1000, baseline == null ? Double.NaN
                            : baseline.fillSeconds(), baseline == null ? Double.NaN
                            : baseline.total().millis() / 1000));
        }
        report.note("the baseline's DELETE is its completion step, which awa-reactive replaces by appends (and a"
                + " DELETE of a narrow lease row, not measured here); the rows 'without the baseline's DELETE'"
                + " compare TRUNCATE with VACUUM alone");
        report.note("file system: after each case, for each system, one file of its table+index bytes before is"
                + " written and synced beside the data directory, on its file system, and truncated to zero; that"
                + " truncate's time is what the file system charges for releasing those bytes, which a prune's COMMIT"
                + " does to the files its TRUNCATE replaced (for awa-reactive nearly all its bytes before are"
                + " reclaimed; for the baseline, whose reclaim releases no file, it is what releasing its table of the"
                + " same jobs would cost); empty when the data directory is not on this machine or its parent is not"
                + " writable");
        return report;
    }

    /** Fills a fresh schema of {@code system} with {@code rows} finished jobs and reclaims them. */
    private static Reclaim reclaim(BenchContext context, String system, int rows, Report report, String caseName) {
        String schema = Scenario.schema(ScenarioName.PRUNE_COST, system);
        // A prune still running at --prune-timeout is cancelled by the server (57014) and reported as such.
        Map<String, String> settings = Map.of("statement_timeout",
                context.options().pruneTimeout().toMillis() + "ms");
        try (QueueSystem<?> queue = context.open(system, schema, 0, settings)) {
            return queue instanceof AwaQueue awaQueue
                    ? awa(context, awaQueue, rows, report, caseName)
                    : baseline(context, (BaselineQueue) queue, rows);
        } finally {
            context.database().dropSchema(schema);
        }
    }

    private static void add(Report report, String caseName, String metric, String unit, @Nullable Reclaim awa,
            @Nullable Reclaim baseline, ToDoubleFunction<Reclaim> figure) {
        report.add(caseName, metric, unit, awa == null ? Double.NaN : figure.applyAsDouble(awa),
                baseline == null ? Double.NaN : figure.applyAsDouble(baseline));
    }

    private static Reclaim baseline(BenchContext context, BaselineQueue queue, int rows) {
        BenchDatabase database = context.database();
        context.install(queue, Duration.ofMinutes(1));
        String jobs = queue.jobs();
        String payload = Payload.json(context.options().payloadBytes()).replace("'", "''");
        long fillStarted = System.nanoTime();
        database.execute("ALTER TABLE " + jobs + " SET (autovacuum_enabled = false)",
                "INSERT INTO " + jobs + " (queue, priority, kind, args, state, attempt, locked_by, heartbeat_at)"
                        + " SELECT 'bench', 2, 'bench.noop', '" + payload + "'::jsonb, 'running', 1, 'bench-worker-0',"
                        + " now() FROM generate_series(1, " + rows + ")",
                "INSERT INTO " + jobs + " (queue, priority, kind, args) SELECT 'bench', 2, 'bench.noop', '"
                        + payload + "'::jsonb FROM generate_series(1, " + backlog(context) + ")",
                // Steady state before the measurement: hint bits set, visibility map and statistics current.
                "VACUUM (ANALYZE) " + jobs);
        double fillSeconds = (System.nanoTime() - fillStarted) / 1e9;
        try (Connection connection = database.jdbc()) {
            long before = bytes(database, connection, queue.schema());
            Cost delete = measure(connection, () -> execute(connection, "DELETE FROM " + jobs
                    + " WHERE state = 'running'"));
            Cost vacuum = measure(connection, () -> execute(connection, "VACUUM " + jobs));
            long after = bytes(database, connection, queue.schema());
            return new Reclaim(fillSeconds, List.of(delete, vacuum), vacuum, before, after, new double[0]);
        } catch (SQLException e) {
            throw new IllegalStateException("prune-cost baseline failed: " + e.getMessage(), e);
        }
    }

    private static Reclaim awa(BenchContext context, AwaQueue queue, int rows, Report report, String caseName) {
        BenchDatabase database = context.database();
        BenchOptions options = context.options();
        QueueStorage storage = queue.storage();
        context.install(queue, Duration.ofMinutes(2));
        long fillStarted = System.nanoTime();
        SlotFixture.disableAutovacuum(database, queue.schema());
        SlotFixture.fill(database, queue.schema(), rows, options.enqueueBatch(), options.claimBatch(),
                Payload.json(options.payloadBytes()));
        expectRotated(storage.ringOperations().rotate(Ring.QUEUE).block(), Ring.QUEUE);
        // The live backlog goes into the new current queue slot; one job of it runs through the lifecycle while the
        // lease ring rotates, as a worker's job would, and is then completed.
        queue.enqueue(backlog(context)).block(Duration.ofMinutes(1));
        Job job = queue.claim(1, "bench-worker-0").block(Duration.ofMinutes(1)).get(0);
        expectRotated(storage.ringOperations().rotate(Ring.LEASE).block(), Ring.LEASE);
        queue.complete(job).block(Duration.ofMinutes(1));
        SlotFixture.vacuumExceptLeases(database, queue.schema());
        double fillSeconds = (System.nanoTime() - fillStarted) / 1e9;
        try (Connection connection = database.jdbc()) {
            long before = bytes(database, connection, queue.schema());
            // The lease slot first: a queue slot outlives the lease slots holding the claimed runs of its jobs.
            Cost leaseRing = measure(connection, () -> expectPruned(storage.ringOperations().prune(Ring.LEASE).block(),
                    Ring.LEASE));
            PruneOutcome[] queueOutcome = new PruneOutcome[1];
            Cost queueRing = measure(connection, () -> queueOutcome[0] = storage.ringOperations().prune(Ring.QUEUE).block());
            double[] phases = {Double.NaN, Double.NaN, Double.NaN, Double.NaN};
            if (queueOutcome[0] instanceof PruneOutcome.Pruned pruned) {
                double lock = pruned.durations().lock().toNanos() / 1e6;
                double truncate = pruned.durations().truncate().toNanos() / 1e6;
                double commit = pruned.durations().commit().toNanos() / 1e6;
                phases = new double[] {queueRing.millis() - lock - truncate - commit, lock, truncate, commit};
            } else if (cancelled(queueOutcome[0])) {
                report.note(String.format(Locale.ROOT, "%s: awa-reactive's queue prune did not finish: cancelled by"
                        + " statement_timeout (--prune-timeout %s) after %.0f s; its reclaim figures are empty",
                        caseName, options.pruneTimeout(), queueRing.millis() / 1000));
                queueRing = new Cost(Double.NaN, Double.NaN);
            } else {
                throw unexpected(queueOutcome[0], Ring.QUEUE);
            }
            long after = bytes(database, connection, queue.schema());
            Cost total = queueRing.plus(leaseRing);
            return new Reclaim(fillSeconds, List.of(queueRing, leaseRing), total, before, after, phases);
        } catch (SQLException e) {
            throw new IllegalStateException("prune-cost awa-reactive failed: " + e.getMessage(), e);
        }
    }

    /** A prune cancelled by the session's statement_timeout (57014): it ran out of --prune-timeout. */
    private static boolean cancelled(PruneOutcome outcome) {
        return outcome instanceof PruneOutcome.Failed failed && "57014".equals(failed.sqlState());
    }

    private static int backlog(BenchContext context) {
        return Math.min(1000, context.options().backlog());
    }

    private static void expectRotated(RotateOutcome outcome, Ring ring) {
        if (!(outcome instanceof RotateOutcome.Rotated)) {
            throw new IllegalStateException("prune-cost fixture: rotating the " + ring.label() + " ring gave "
                    + outcome + ", expected Rotated");
        }
    }

    private static void expectPruned(PruneOutcome outcome, Ring ring) {
        if (!(outcome instanceof PruneOutcome.Pruned)) {
            throw unexpected(outcome, ring);
        }
    }

    private static IllegalStateException unexpected(PruneOutcome outcome, Ring ring) {
        return new IllegalStateException("prune-cost: pruning the " + ring.label() + " ring gave " + outcome
                + ", expected Pruned (the fixture's slot should hold only finished work)");
    }

    /** Checkpoints, then times {@code step} and measures the WAL it wrote. */
    static Cost measure(Connection connection, Runnable step) throws SQLException {
        checkpoint(connection);
        long before = walInsertBytes(connection);
        long started = System.nanoTime();
        step.run();
        double millis = (System.nanoTime() - started) / 1e6;
        long after = walInsertBytes(connection);
        return new Cost(millis, after - before);
    }

    private static void checkpoint(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CHECKPOINT");
        } catch (SQLException e) {
            // Without the right (superuser or pg_checkpoint) the measurement still holds, with fewer page images.
        }
    }

    static long walInsertBytes(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(
                        "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void execute(Connection connection, String sql) {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed: " + e.getMessage(), e);
        }
    }

    private static long bytes(BenchDatabase database, Connection connection, String schema) throws SQLException {
        Sampler.SchemaStats stats = Sampler.schemaStats(connection, schema, database.isSuperuser());
        return stats.tableBytes() + stats.indexBytes();
    }
}
