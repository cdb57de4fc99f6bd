package io.awareactive.examples.webflux;

import io.awareactive.core.QueueStorageConfig;
import io.awareactive.core.WorkerConfig;
import io.awareactive.maintenance.RingMaintenanceConfig;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The example's {@code awa.*} application properties. Defaults are the library's own {@code DEFAULT_*} constants;
 * durations take Spring's forms ({@code 50ms}, {@code 1s}, {@code PT1S}).
 */
@ConfigurationProperties("awa")
public class AwaProperties {

    /** R2DBC URL of the database; when empty the example starts an embedded PostgreSQL for itself. */
    private @Nullable String r2dbcUrl;
    /** Schema of the awa-reactive installation. */
    private String schema = QueueStorageConfig.DEFAULT_SCHEMA;
    /** Whether to install (or verify) the schema at startup. */
    private boolean installSchema = true;
    /** Largest number of pooled connections. */
    private int poolMaxSize = 10;
    /** The queue that {@code POST /jobs} enqueues to and the worker serves. */
    private String queue = "jobs";
    /** Slot counts, fixed at installation. */
    private int queueSlotCount = QueueStorageConfig.DEFAULT_QUEUE_SLOT_COUNT;
    private int leaseSlotCount = QueueStorageConfig.DEFAULT_LEASE_SLOT_COUNT;
    private int claimSlotCount = QueueStorageConfig.DEFAULT_CLAIM_SLOT_COUNT;
    /** How long a prune waits for its locks before it reports {@code blocked}. */
    private Duration pruneLockTimeout = QueueStorageConfig.DEFAULT_PRUNE_LOCK_TIMEOUT;
    /** Rotate and prune interval of every ring. */
    private Duration rotateInterval = RingMaintenanceConfig.DEFAULT_ROTATE_INTERVAL;
    /** Whether blocked prunes name the sessions holding the conflicting locks. */
    private boolean blockerDiagnostics;
    /** Running attempts per worker. */
    private int workerConcurrency = WorkerConfig.DEFAULT_CONCURRENCY;
    /** How long running jobs and a running maintenance task may take to finish when the application stops. */
    private Duration stopGrace = Duration.ofSeconds(5);

    public @Nullable String getR2dbcUrl() {
        return r2dbcUrl;
    }

    public void setR2dbcUrl(@Nullable String r2dbcUrl) {
        this.r2dbcUrl = r2dbcUrl;
    }

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema;
    }

    public boolean isInstallSchema() {
        return installSchema;
    }

    public void setInstallSchema(boolean installSchema) {
        this.installSchema = installSchema;
    }

    public int getPoolMaxSize() {
        return poolMaxSize;
    }

    public void setPoolMaxSize(int poolMaxSize) {
        this.poolMaxSize = poolMaxSize;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public int getQueueSlotCount() {
        return queueSlotCount;
    }

    public void setQueueSlotCount(int queueSlotCount) {
        this.queueSlotCount = queueSlotCount;
    }

    public int getLeaseSlotCount() {
        return leaseSlotCount;
    }

    public void setLeaseSlotCount(int leaseSlotCount) {
        this.leaseSlotCount = leaseSlotCount;
    }

    public int getClaimSlotCount() {
        return claimSlotCount;
    }

    public void setClaimSlotCount(int claimSlotCount) {
        this.claimSlotCount = claimSlotCount;
    }

    public Duration getPruneLockTimeout() {
        return pruneLockTimeout;
    }

    public void setPruneLockTimeout(Duration pruneLockTimeout) {
        this.pruneLockTimeout = pruneLockTimeout;
    }

    public Duration getRotateInterval() {
        return rotateInterval;
    }

    public void setRotateInterval(Duration rotateInterval) {
        this.rotateInterval = rotateInterval;
    }

    public boolean isBlockerDiagnostics() {
        return blockerDiagnostics;
    }

    public void setBlockerDiagnostics(boolean blockerDiagnostics) {
        this.blockerDiagnostics = blockerDiagnostics;
    }

    public int getWorkerConcurrency() {
        return workerConcurrency;
    }

    public void setWorkerConcurrency(int workerConcurrency) {
        this.workerConcurrency = workerConcurrency;
    }

    public Duration getStopGrace() {
        return stopGrace;
    }

    public void setStopGrace(Duration stopGrace) {
        this.stopGrace = stopGrace;
    }
}
