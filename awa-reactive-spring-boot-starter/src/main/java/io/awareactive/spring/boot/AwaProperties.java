package io.awareactive.spring.boot;

import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.MaintenanceTask;
import io.awareactive.maintenance.RingMaintenanceConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code awa.*} application properties of the starter. Every default is the library's own {@code DEFAULT_*}
 * constant; durations take Spring's forms ({@code 50ms}, {@code 1s}, {@code PT1S}). Binding checks only types: every
 * value is validated by the library's builders ({@link QueueStorageConfig.Builder},
 * {@link RingMaintenanceConfig.Builder}, {@link WorkerConfig.Builder}) when the beans are created, so a bad value fails
 * the application's startup with the library's message ({@code "<option> must <rule>, was <value>"}).
 *
 * <p>Groups: the top level (schema, startup and shutdown), {@code awa.storage.*} ({@link QueueStorageConfig}),
 * {@code awa.maintenance.*} ({@link RingMaintenanceConfig}), {@code awa.worker.*} (every worker's
 * {@link WorkerConfig}) and {@code awa.web.*} (the prune-outcome stream). Mutable and not thread-safe, as Spring
 * binds it once at startup.
 */
@ConfigurationProperties(AwaProperties.PREFIX)
public class AwaProperties {

    /** The prefix of every property: {@value}. */
    public static final String PREFIX = "awa";
    /** Default of {@code awa.startup-timeout}: one minute. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofMinutes(1);
    /** Default of {@code awa.stop-grace}: ten seconds. */
    public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(10);

    /** Schema of the installation: a plain lower-case identifier, not pg_*. Defaults to awa_reactive */
    private String schema = QueueStorageConfig.DEFAULT_SCHEMA;
    /** Whether to install, upgrade or check the schema when the application starts (idempotent; the role needs CREATE on the database). When false the start only verifies the installation. Defaults to true */
    private boolean installSchema = true;
    /** Whether maintenance and the workers start with the application context; when false, start the AwaLifecycle bean yourself. Defaults to true */
    private boolean autoStartup = true;
    /** Longest wait for the schema installation, maintenance and the workers to start; a longer start fails the application. Defaults to 1m */
    private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
    /** How long running jobs, then the running maintenance task, may take to finish when the context closes (each; the rest are released). Keep the two together below spring.lifecycle.timeout-per-shutdown-phase. Defaults to 10s */
    private Duration stopGrace = DEFAULT_STOP_GRACE;

    /**
     * Schema of the installation: a plain lower-case identifier, not pg_*. Defaults to awa_reactive.
     *
     * @return the value
     */
    public String getSchema() {
        return schema;
    }

    /**
     * Sets: schema of the installation: a plain lower-case identifier, not pg_*. Defaults to awa_reactive.
     *
     * @param schema the value
     */
    public void setSchema(String schema) {
        this.schema = schema;
    }

    /**
     * Whether to install, upgrade or check the schema when the application starts (idempotent; the role needs CREATE on the database). When false the start only verifies the installation. Defaults to true.
     *
     * @return the value
     */
    public boolean isInstallSchema() {
        return installSchema;
    }

    /**
     * Sets: whether to install, upgrade or check the schema when the application starts (idempotent; the role needs CREATE on the database). When false the start only verifies the installation. Defaults to true.
     *
     * @param installSchema the value
     */
    public void setInstallSchema(boolean installSchema) {
        this.installSchema = installSchema;
    }

    /**
     * Whether maintenance and the workers start with the application context; when false, start the AwaLifecycle bean yourself. Defaults to true.
     *
     * @return the value
     */
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /**
     * Sets: whether maintenance and the workers start with the application context; when false, start the AwaLifecycle bean yourself. Defaults to true.
     *
     * @param autoStartup the value
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /**
     * Longest wait for the schema installation, maintenance and the workers to start; a longer start fails the application. Defaults to 1m.
     *
     * @return the value
     */
    public Duration getStartupTimeout() {
        return startupTimeout;
    }

    /**
     * Sets: longest wait for the schema installation, maintenance and the workers to start; a longer start fails the application. Defaults to 1m.
     *
     * @param startupTimeout the value
     */
    public void setStartupTimeout(Duration startupTimeout) {
        this.startupTimeout = startupTimeout;
    }

    /**
     * How long running jobs, then the running maintenance task, may take to finish when the context closes (each; the rest are released). Keep the two together below spring.lifecycle.timeout-per-shutdown-phase. Defaults to 10s.
     *
     * @return the value
     */
    public Duration getStopGrace() {
        return stopGrace;
    }

    /**
     * Sets: how long running jobs, then the running maintenance task, may take to finish when the context closes (each; the rest are released). Keep the two together below spring.lifecycle.timeout-per-shutdown-phase. Defaults to 10s.
     *
     * @param stopGrace the value
     */
    public void setStopGrace(Duration stopGrace) {
        this.stopGrace = stopGrace;
    }
    /** Queue storage options ({@link QueueStorageConfig}). */
    private final Storage storage = new Storage();
    /** Ring maintenance options ({@link RingMaintenanceConfig}). */
    private final Maintenance maintenance = new Maintenance();
    /** Options of every worker ({@link WorkerConfig}); a {@link QueueHandler} may change them for its queue. */
    private final Worker worker = new Worker();
    /** The prune-outcome stream. */
    private final Web web = new Web();

    /** Creates the properties with the library's defaults; Spring does, when it binds {@code awa.*}. */
    public AwaProperties() {
    }

    /**
     * The queue storage options.
     *
     * @return {@code awa.storage.*}
     */
    public Storage getStorage() {
        return storage;
    }

    /**
     * The ring maintenance options.
     *
     * @return {@code awa.maintenance.*}
     */
    public Maintenance getMaintenance() {
        return maintenance;
    }

    /**
     * The options of every worker.
     *
     * @return {@code awa.worker.*}
     */
    public Worker getWorker() {
        return worker;
    }

    /**
     * The prune-outcome stream options.
     *
     * @return {@code awa.web.*}
     */
    public Web getWeb() {
        return web;
    }

    /** {@code awa.storage.*}: the options of {@link QueueStorageConfig.Builder}, validated there. */
    public static class Storage {

        /** Slots of the queue ring, fixed at installation (must match an existing installation). Defaults to 16 */
        private int queueSlotCount = QueueStorageConfig.DEFAULT_QUEUE_SLOT_COUNT;
        /** Slots of the lease ring, fixed at installation. Defaults to 8 */
        private int leaseSlotCount = QueueStorageConfig.DEFAULT_LEASE_SLOT_COUNT;
        /** Slots of the claim ring, fixed at installation. Defaults to 8 */
        private int claimSlotCount = QueueStorageConfig.DEFAULT_CLAIM_SLOT_COUNT;
        /** How long a prune waits for each lock before it reports blocked (transaction-local). Defaults to 10ms */
        private Duration pruneLockTimeout = QueueStorageConfig.DEFAULT_PRUNE_LOCK_TIMEOUT;
        /** How often workers heartbeat their running attempts. Defaults to 5s */
        private Duration heartbeatInterval = QueueStorageConfig.DEFAULT_HEARTBEAT_INTERVAL;
        /** How old a heartbeat may get before rescue takes the attempt back. Defaults to 30s */
        private Duration leaseStaleAfter = QueueStorageConfig.DEFAULT_LEASE_STALE_AFTER;
        /** Delay before the first retry of a failed attempt. Defaults to 1s */
        private Duration retryBackoffBase = QueueStorageConfig.DEFAULT_RETRY_BACKOFF_BASE;
        /** Growth of the retry delay per attempt; at least 1. Defaults to 2.0 */
        private double retryBackoffFactor = QueueStorageConfig.DEFAULT_RETRY_BACKOFF_FACTOR;
        /** Largest retry delay. Defaults to 1h */
        private Duration retryBackoffMax = QueueStorageConfig.DEFAULT_RETRY_BACKOFF_MAX;
        /** Random share of the retry delay, at least 0 and below 1. Defaults to 0.2 */
        private double retryBackoffJitter = QueueStorageConfig.DEFAULT_RETRY_BACKOFF_JITTER;
        /** Largest job arguments, in UTF-8 bytes. Defaults to 1048576 (1 MiB) */
        private int maxArgsBytes = QueueStorageConfig.DEFAULT_MAX_ARGS_BYTES;
        /** How long failed jobs stay in the dead-letter table. Defaults to 72h */
        private Duration deadLetterRetention = QueueStorageConfig.DEFAULT_DEAD_LETTER_RETENTION;
        /** Claim statements per queue, and completion statements, running at once. Defaults to 1 */
        private int maxStatementsInFlight = QueueStorageConfig.DEFAULT_MAX_STATEMENTS_IN_FLIGHT;

        /**
         * Slots of the queue ring, fixed at installation (must match an existing installation). Defaults to 16.
         *
         * @return the value
         */
        public int getQueueSlotCount() {
            return queueSlotCount;
        }

        /**
         * Sets: slots of the queue ring, fixed at installation (must match an existing installation). Defaults to 16.
         *
         * @param queueSlotCount the value
         */
        public void setQueueSlotCount(int queueSlotCount) {
            this.queueSlotCount = queueSlotCount;
        }

        /**
         * Slots of the lease ring, fixed at installation. Defaults to 8.
         *
         * @return the value
         */
        public int getLeaseSlotCount() {
            return leaseSlotCount;
        }

        /**
         * Sets: slots of the lease ring, fixed at installation. Defaults to 8.
         *
         * @param leaseSlotCount the value
         */
        public void setLeaseSlotCount(int leaseSlotCount) {
            this.leaseSlotCount = leaseSlotCount;
        }

        /**
         * Slots of the claim ring, fixed at installation. Defaults to 8.
         *
         * @return the value
         */
        public int getClaimSlotCount() {
            return claimSlotCount;
        }

        /**
         * Sets: slots of the claim ring, fixed at installation. Defaults to 8.
         *
         * @param claimSlotCount the value
         */
        public void setClaimSlotCount(int claimSlotCount) {
            this.claimSlotCount = claimSlotCount;
        }

        /**
         * How long a prune waits for each lock before it reports blocked (transaction-local). Defaults to 10ms.
         *
         * @return the value
         */
        public Duration getPruneLockTimeout() {
            return pruneLockTimeout;
        }

        /**
         * Sets: how long a prune waits for each lock before it reports blocked (transaction-local). Defaults to 10ms.
         *
         * @param pruneLockTimeout the value
         */
        public void setPruneLockTimeout(Duration pruneLockTimeout) {
            this.pruneLockTimeout = pruneLockTimeout;
        }

        /**
         * How often workers heartbeat their running attempts. Defaults to 5s.
         *
         * @return the value
         */
        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        /**
         * Sets: how often workers heartbeat their running attempts. Defaults to 5s.
         *
         * @param heartbeatInterval the value
         */
        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        /**
         * How old a heartbeat may get before rescue takes the attempt back. Defaults to 30s.
         *
         * @return the value
         */
        public Duration getLeaseStaleAfter() {
            return leaseStaleAfter;
        }

        /**
         * Sets: how old a heartbeat may get before rescue takes the attempt back. Defaults to 30s.
         *
         * @param leaseStaleAfter the value
         */
        public void setLeaseStaleAfter(Duration leaseStaleAfter) {
            this.leaseStaleAfter = leaseStaleAfter;
        }

        /**
         * Delay before the first retry of a failed attempt. Defaults to 1s.
         *
         * @return the value
         */
        public Duration getRetryBackoffBase() {
            return retryBackoffBase;
        }

        /**
         * Sets: delay before the first retry of a failed attempt. Defaults to 1s.
         *
         * @param retryBackoffBase the value
         */
        public void setRetryBackoffBase(Duration retryBackoffBase) {
            this.retryBackoffBase = retryBackoffBase;
        }

        /**
         * Growth of the retry delay per attempt; at least 1. Defaults to 2.0.
         *
         * @return the value
         */
        public double getRetryBackoffFactor() {
            return retryBackoffFactor;
        }

        /**
         * Sets: growth of the retry delay per attempt; at least 1. Defaults to 2.0.
         *
         * @param retryBackoffFactor the value
         */
        public void setRetryBackoffFactor(double retryBackoffFactor) {
            this.retryBackoffFactor = retryBackoffFactor;
        }

        /**
         * Largest retry delay. Defaults to 1h.
         *
         * @return the value
         */
        public Duration getRetryBackoffMax() {
            return retryBackoffMax;
        }

        /**
         * Sets: largest retry delay. Defaults to 1h.
         *
         * @param retryBackoffMax the value
         */
        public void setRetryBackoffMax(Duration retryBackoffMax) {
            this.retryBackoffMax = retryBackoffMax;
        }

        /**
         * Random share of the retry delay, at least 0 and below 1. Defaults to 0.2.
         *
         * @return the value
         */
        public double getRetryBackoffJitter() {
            return retryBackoffJitter;
        }

        /**
         * Sets: random share of the retry delay, at least 0 and below 1. Defaults to 0.2.
         *
         * @param retryBackoffJitter the value
         */
        public void setRetryBackoffJitter(double retryBackoffJitter) {
            this.retryBackoffJitter = retryBackoffJitter;
        }

        /**
         * Largest job arguments, in UTF-8 bytes. Defaults to 1048576 (1 MiB).
         *
         * @return the value
         */
        public int getMaxArgsBytes() {
            return maxArgsBytes;
        }

        /**
         * Sets: largest job arguments, in UTF-8 bytes. Defaults to 1048576 (1 MiB).
         *
         * @param maxArgsBytes the value
         */
        public void setMaxArgsBytes(int maxArgsBytes) {
            this.maxArgsBytes = maxArgsBytes;
        }

        /**
         * How long failed jobs stay in the dead-letter table. Defaults to 72h.
         *
         * @return the value
         */
        public Duration getDeadLetterRetention() {
            return deadLetterRetention;
        }

        /**
         * Sets: how long failed jobs stay in the dead-letter table. Defaults to 72h.
         *
         * @param deadLetterRetention the value
         */
        public void setDeadLetterRetention(Duration deadLetterRetention) {
            this.deadLetterRetention = deadLetterRetention;
        }

        /**
         * Most claim statements per queue, and completion statements, running at once; more calls wait and share
         * one. Defaults to 1.
         *
         * @return the value
         */
        public int getMaxStatementsInFlight() {
            return maxStatementsInFlight;
        }

        /**
         * Sets: most claim statements per queue, and completion statements, running at once; more calls wait and
         * share one. Defaults to 1.
         *
         * @param maxStatementsInFlight the value
         */
        public void setMaxStatementsInFlight(int maxStatementsInFlight) {
            this.maxStatementsInFlight = maxStatementsInFlight;
        }

        /** Creates the options with the library's defaults. */
        public Storage() {
        }
    }

    /** {@code awa.maintenance.*}: the options of {@link RingMaintenanceConfig.Builder}, validated there. */
    public static class Maintenance {

        /** Whether this instance runs ring maintenance (one instance leads; run it in every instance)
                . Defaults to true */
        private boolean enabled = true;
        /** Rotate and prune interval of every ring, unless a ring's own interval is set. Defaults to 1s */
        private Duration rotateInterval = MaintenanceTask.RING_QUEUE.defaults().interval();
        /** Rotate and prune interval of the queue ring; unset: rotate-interval */
        private @Nullable Duration queueRotateInterval;
        /** Rotate and prune interval of the lease ring; unset: rotate-interval */
        private @Nullable Duration leaseRotateInterval;
        /** Rotate and prune interval of the claim ring; unset: rotate-interval */
        private @Nullable Duration claimRotateInterval;
        /** Interval of the terminal-count rollup. Defaults to 30s */
        private Duration rollupInterval = MaintenanceTask.ROLLUP.defaults().interval();
        /** Sealed queue slots one rollup folds at most. Defaults to 4 */
        private int rollupMaxSlots = MaintenanceTask.ROLLUP.defaults().maxSlots();
        /** Interval of promoting due scheduled jobs and retries. Defaults to 250ms */
        private Duration promoteInterval = MaintenanceTask.PROMOTE.defaults().interval();
        /** Jobs one promotion moves at most. Defaults to 500 */
        private int promoteBatchSize = MaintenanceTask.PROMOTE.defaults().batchSize();
        /** Interval of rescuing stale or overdue attempts. Defaults to 10s */
        private Duration rescueInterval = MaintenanceTask.RESCUE.defaults().interval();
        /** Attempts one rescue takes back at most. Defaults to 500 */
        private int rescueBatchSize = MaintenanceTask.RESCUE.defaults().batchSize();
        /** Interval of purging expired dead letters. Defaults to 60s */
        private Duration dlqPurgeInterval = MaintenanceTask.DLQ_PURGE.defaults().interval();
        /** Dead letters one purge transaction deletes at most. Defaults to 500 */
        private int dlqPurgeBatchSize = MaintenanceTask.DLQ_PURGE.defaults().batchSize();
        /** How often a follower tries to become the leader. Defaults to 10s */
        private Duration leaderElectionInterval = RingMaintenanceConfig.DEFAULT_LEADER_ELECTION_INTERVAL;
        /** How often the leader checks its connection. Defaults to 5s */
        private Duration leaderCheckInterval = RingMaintenanceConfig.DEFAULT_LEADER_CHECK_INTERVAL;
        /** Longest run of one maintenance step before it is cancelled. Defaults to 60s */
        private Duration taskTimeout = RingMaintenanceConfig.DEFAULT_TASK_TIMEOUT;
        /** Age of the oldest snapshot from which the rollup considers the MVCC horizon pinned. Defaults to 5s */
        private Duration mvccPinMinAge = MaintenanceTask.ROLLUP.defaults().mvccPinMinAge();
        /** Transaction-id age from which the rollup considers the horizon pinned when activity is not readable. Defaults to 10000 */
        private long mvccPinMinXids = MaintenanceTask.ROLLUP.defaults().mvccPinMinXids();
        /** Whether blocked prunes name the sessions holding the conflicting locks (in events and a rate-limited WARN, never in metrics). Defaults to false */
        private boolean blockerDiagnostics = false;
        /** Tags added to every maintenance and worker meter, for example awa.schema. Defaults to none */
        private Map<String, String> meterTags = new LinkedHashMap<>();

        /**
         * Whether this instance runs ring maintenance (one instance leads; run it in every instance). Defaults to true.
         *
         * @return the value
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets: whether this instance runs ring maintenance (one instance leads; run it in every instance)
                 . Defaults to true.
         *
         * @param enabled the value
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * Rotate and prune interval of every ring, unless a ring's own interval is set. Defaults to 1s.
         *
         * @return the value
         */
        public Duration getRotateInterval() {
            return rotateInterval;
        }

        /**
         * Sets: rotate and prune interval of every ring, unless a ring's own interval is set. Defaults to 1s.
         *
         * @param rotateInterval the value
         */
        public void setRotateInterval(Duration rotateInterval) {
            this.rotateInterval = rotateInterval;
        }

        /**
         * Rotate and prune interval of the queue ring; unset: rotate-interval.
         *
         * @return the value
         */
        public @Nullable Duration getQueueRotateInterval() {
            return queueRotateInterval;
        }

        /**
         * Sets: rotate and prune interval of the queue ring; unset: rotate-interval.
         *
         * @param queueRotateInterval the value
         */
        public void setQueueRotateInterval(@Nullable Duration queueRotateInterval) {
            this.queueRotateInterval = queueRotateInterval;
        }

        /**
         * Rotate and prune interval of the lease ring; unset: rotate-interval.
         *
         * @return the value
         */
        public @Nullable Duration getLeaseRotateInterval() {
            return leaseRotateInterval;
        }

        /**
         * Sets: rotate and prune interval of the lease ring; unset: rotate-interval.
         *
         * @param leaseRotateInterval the value
         */
        public void setLeaseRotateInterval(@Nullable Duration leaseRotateInterval) {
            this.leaseRotateInterval = leaseRotateInterval;
        }

        /**
         * Rotate and prune interval of the claim ring; unset: rotate-interval.
         *
         * @return the value
         */
        public @Nullable Duration getClaimRotateInterval() {
            return claimRotateInterval;
        }

        /**
         * Sets: rotate and prune interval of the claim ring; unset: rotate-interval.
         *
         * @param claimRotateInterval the value
         */
        public void setClaimRotateInterval(@Nullable Duration claimRotateInterval) {
            this.claimRotateInterval = claimRotateInterval;
        }

        /**
         * Interval of the terminal-count rollup. Defaults to 30s.
         *
         * @return the value
         */
        public Duration getRollupInterval() {
            return rollupInterval;
        }

        /**
         * Sets: interval of the terminal-count rollup. Defaults to 30s.
         *
         * @param rollupInterval the value
         */
        public void setRollupInterval(Duration rollupInterval) {
            this.rollupInterval = rollupInterval;
        }

        /**
         * Sealed queue slots one rollup folds at most. Defaults to 4.
         *
         * @return the value
         */
        public int getRollupMaxSlots() {
            return rollupMaxSlots;
        }

        /**
         * Sets: sealed queue slots one rollup folds at most. Defaults to 4.
         *
         * @param rollupMaxSlots the value
         */
        public void setRollupMaxSlots(int rollupMaxSlots) {
            this.rollupMaxSlots = rollupMaxSlots;
        }

        /**
         * Interval of promoting due scheduled jobs and retries. Defaults to 250ms.
         *
         * @return the value
         */
        public Duration getPromoteInterval() {
            return promoteInterval;
        }

        /**
         * Sets: interval of promoting due scheduled jobs and retries. Defaults to 250ms.
         *
         * @param promoteInterval the value
         */
        public void setPromoteInterval(Duration promoteInterval) {
            this.promoteInterval = promoteInterval;
        }

        /**
         * Jobs one promotion moves at most. Defaults to 500.
         *
         * @return the value
         */
        public int getPromoteBatchSize() {
            return promoteBatchSize;
        }

        /**
         * Sets: jobs one promotion moves at most. Defaults to 500.
         *
         * @param promoteBatchSize the value
         */
        public void setPromoteBatchSize(int promoteBatchSize) {
            this.promoteBatchSize = promoteBatchSize;
        }

        /**
         * Interval of rescuing stale or overdue attempts. Defaults to 10s.
         *
         * @return the value
         */
        public Duration getRescueInterval() {
            return rescueInterval;
        }

        /**
         * Sets: interval of rescuing stale or overdue attempts. Defaults to 10s.
         *
         * @param rescueInterval the value
         */
        public void setRescueInterval(Duration rescueInterval) {
            this.rescueInterval = rescueInterval;
        }

        /**
         * Attempts one rescue takes back at most. Defaults to 500.
         *
         * @return the value
         */
        public int getRescueBatchSize() {
            return rescueBatchSize;
        }

        /**
         * Sets: attempts one rescue takes back at most. Defaults to 500.
         *
         * @param rescueBatchSize the value
         */
        public void setRescueBatchSize(int rescueBatchSize) {
            this.rescueBatchSize = rescueBatchSize;
        }

        /**
         * Interval of purging expired dead letters. Defaults to 60s.
         *
         * @return the value
         */
        public Duration getDlqPurgeInterval() {
            return dlqPurgeInterval;
        }

        /**
         * Sets: interval of purging expired dead letters. Defaults to 60s.
         *
         * @param dlqPurgeInterval the value
         */
        public void setDlqPurgeInterval(Duration dlqPurgeInterval) {
            this.dlqPurgeInterval = dlqPurgeInterval;
        }

        /**
         * Dead letters one purge transaction deletes at most. Defaults to 500.
         *
         * @return the value
         */
        public int getDlqPurgeBatchSize() {
            return dlqPurgeBatchSize;
        }

        /**
         * Sets: dead letters one purge transaction deletes at most. Defaults to 500.
         *
         * @param dlqPurgeBatchSize the value
         */
        public void setDlqPurgeBatchSize(int dlqPurgeBatchSize) {
            this.dlqPurgeBatchSize = dlqPurgeBatchSize;
        }

        /**
         * How often a follower tries to become the leader. Defaults to 10s.
         *
         * @return the value
         */
        public Duration getLeaderElectionInterval() {
            return leaderElectionInterval;
        }

        /**
         * Sets: how often a follower tries to become the leader. Defaults to 10s.
         *
         * @param leaderElectionInterval the value
         */
        public void setLeaderElectionInterval(Duration leaderElectionInterval) {
            this.leaderElectionInterval = leaderElectionInterval;
        }

        /**
         * How often the leader checks its connection. Defaults to 5s.
         *
         * @return the value
         */
        public Duration getLeaderCheckInterval() {
            return leaderCheckInterval;
        }

        /**
         * Sets: how often the leader checks its connection. Defaults to 5s.
         *
         * @param leaderCheckInterval the value
         */
        public void setLeaderCheckInterval(Duration leaderCheckInterval) {
            this.leaderCheckInterval = leaderCheckInterval;
        }

        /**
         * Longest run of one maintenance step before it is cancelled. Defaults to 60s.
         *
         * @return the value
         */
        public Duration getTaskTimeout() {
            return taskTimeout;
        }

        /**
         * Sets: longest run of one maintenance step before it is cancelled. Defaults to 60s.
         *
         * @param taskTimeout the value
         */
        public void setTaskTimeout(Duration taskTimeout) {
            this.taskTimeout = taskTimeout;
        }

        /**
         * Age of the oldest snapshot from which the rollup considers the MVCC horizon pinned. Defaults to 5s.
         *
         * @return the value
         */
        public Duration getMvccPinMinAge() {
            return mvccPinMinAge;
        }

        /**
         * Sets: age of the oldest snapshot from which the rollup considers the MVCC horizon pinned. Defaults to 5s.
         *
         * @param mvccPinMinAge the value
         */
        public void setMvccPinMinAge(Duration mvccPinMinAge) {
            this.mvccPinMinAge = mvccPinMinAge;
        }

        /**
         * Transaction-id age from which the rollup considers the horizon pinned when activity is not readable. Defaults to 10000.
         *
         * @return the value
         */
        public long getMvccPinMinXids() {
            return mvccPinMinXids;
        }

        /**
         * Sets: transaction-id age from which the rollup considers the horizon pinned when activity is not readable. Defaults to 10000.
         *
         * @param mvccPinMinXids the value
         */
        public void setMvccPinMinXids(long mvccPinMinXids) {
            this.mvccPinMinXids = mvccPinMinXids;
        }

        /**
         * Whether blocked prunes name the sessions holding the conflicting locks (in events and a rate-limited WARN, never in metrics). Defaults to false.
         *
         * @return the value
         */
        public boolean isBlockerDiagnostics() {
            return blockerDiagnostics;
        }

        /**
         * Sets: whether blocked prunes name the sessions holding the conflicting locks (in events and a rate-limited WARN, never in metrics). Defaults to false.
         *
         * @param blockerDiagnostics the value
         */
        public void setBlockerDiagnostics(boolean blockerDiagnostics) {
            this.blockerDiagnostics = blockerDiagnostics;
        }

        /**
         * Tags added to every maintenance and worker meter, for example awa.schema. Defaults to none.
         *
         * @return the value
         */
        public Map<String, String> getMeterTags() {
            return meterTags;
        }

        /**
         * Sets: tags added to every maintenance and worker meter, for example awa.schema. Defaults to none.
         *
         * @param meterTags the value
         */
        public void setMeterTags(Map<String, String> meterTags) {
            this.meterTags = meterTags;
        }
        /** Creates the options with the library's defaults. */
        public Maintenance() {
        }
    }

    /** {@code awa.worker.*}: the options of {@link WorkerConfig.Builder} for every worker, validated there. */
    public static class Worker {

        /** Running attempts per worker at most, 1 to 10000. Defaults to 10 */
        private int concurrency = WorkerConfig.DEFAULT_CONCURRENCY;
        /** Largest claim batch, 1 to 1000. Defaults to 10 */
        private int batchSize = WorkerConfig.DEFAULT_BATCH_SIZE;
        /** Polling fallback of an idle worker. Defaults to 2s */
        private Duration pollInterval = WorkerConfig.DEFAULT_POLL_INTERVAL;
        /** Completions acknowledged in one statement at most. Defaults to 128 */
        private int ackBatchSize = WorkerConfig.DEFAULT_ACK_BATCH_SIZE;
        /** Longest wait for more completions to batch, at most 1s. Defaults to 1ms */
        private Duration ackMaxDelay = WorkerConfig.DEFAULT_ACK_MAX_DELAY;
        /** Timeout of an attempt when the job sets none; 0 for none. Defaults to 0 */
        private Duration jobTimeout = WorkerConfig.DEFAULT_JOB_TIMEOUT;
        /** Whether workers LISTEN for wake-ups on a dedicated connection (turn off behind a transaction-mode pooler)
                . Defaults to true */
        private boolean listen = true;

        /**
         * Running attempts per worker at most, 1 to 10000. Defaults to 10.
         *
         * @return the value
         */
        public int getConcurrency() {
            return concurrency;
        }

        /**
         * Sets: running attempts per worker at most, 1 to 10000. Defaults to 10.
         *
         * @param concurrency the value
         */
        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        /**
         * Largest claim batch, 1 to 1000. Defaults to 10.
         *
         * @return the value
         */
        public int getBatchSize() {
            return batchSize;
        }

        /**
         * Sets: largest claim batch, 1 to 1000. Defaults to 10.
         *
         * @param batchSize the value
         */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        /**
         * Polling fallback of an idle worker. Defaults to 2s.
         *
         * @return the value
         */
        public Duration getPollInterval() {
            return pollInterval;
        }

        /**
         * Sets: polling fallback of an idle worker. Defaults to 2s.
         *
         * @param pollInterval the value
         */
        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        /**
         * Completions acknowledged in one statement at most. Defaults to 128.
         *
         * @return the value
         */
        public int getAckBatchSize() {
            return ackBatchSize;
        }

        /**
         * Sets: completions acknowledged in one statement at most. Defaults to 128.
         *
         * @param ackBatchSize the value
         */
        public void setAckBatchSize(int ackBatchSize) {
            this.ackBatchSize = ackBatchSize;
        }

        /**
         * Longest wait for more completions to batch, at most 1s. Defaults to 1ms.
         *
         * @return the value
         */
        public Duration getAckMaxDelay() {
            return ackMaxDelay;
        }

        /**
         * Sets: longest wait for more completions to batch, at most 1s. Defaults to 1ms.
         *
         * @param ackMaxDelay the value
         */
        public void setAckMaxDelay(Duration ackMaxDelay) {
            this.ackMaxDelay = ackMaxDelay;
        }

        /**
         * Timeout of an attempt when the job sets none; 0 for none. Defaults to 0.
         *
         * @return the value
         */
        public Duration getJobTimeout() {
            return jobTimeout;
        }

        /**
         * Sets: timeout of an attempt when the job sets none; 0 for none. Defaults to 0.
         *
         * @param jobTimeout the value
         */
        public void setJobTimeout(Duration jobTimeout) {
            this.jobTimeout = jobTimeout;
        }

        /**
         * Whether workers LISTEN for wake-ups on a dedicated connection (turn off behind a transaction-mode pooler)
                 . Defaults to true.
         *
         * @return the value
         */
        public boolean isListen() {
            return listen;
        }

        /**
         * Sets: whether workers LISTEN for wake-ups on a dedicated connection (turn off behind a transaction-mode pooler). Defaults to true.
         *
         * @param listen the value
         */
        public void setListen(boolean listen) {
            this.listen = listen;
        }
        /** Creates the options with the library's defaults. */
        public Worker() {
        }
    }

    /** {@code awa.web.*}: the prune-outcome stream of a reactive web application. */
    public static class Web {

        /** Whether to serve prune outcomes as server-sent events at outcomes-path (a reactive web application; blockers' queries included, so keep it internal). Defaults to false */
        private boolean outcomesEnabled = false;
        /** Path of the prune-outcome stream. Defaults to /awa/outcomes */
        private String outcomesPath = "/awa/outcomes";

        /**
         * Whether to serve prune outcomes as server-sent events at outcomes-path (a reactive web application; blockers' queries included, so keep it internal). Defaults to false.
         *
         * @return the value
         */
        public boolean isOutcomesEnabled() {
            return outcomesEnabled;
        }

        /**
         * Sets: whether to serve prune outcomes as server-sent events at outcomes-path (a reactive web application; blockers' queries included, so keep it internal). Defaults to false.
         *
         * @param outcomesEnabled the value
         */
        public void setOutcomesEnabled(boolean outcomesEnabled) {
            this.outcomesEnabled = outcomesEnabled;
        }

        /**
         * Path of the prune-outcome stream. Defaults to /awa/outcomes.
         *
         * @return the value
         */
        public String getOutcomesPath() {
            return outcomesPath;
        }

        /**
         * Sets: path of the prune-outcome stream. Defaults to /awa/outcomes.
         *
         * @param outcomesPath the value
         */
        public void setOutcomesPath(String outcomesPath) {
            this.outcomesPath = outcomesPath;
        }
        /** Creates the options with their defaults. */
        public Web() {
        }
    }
}
