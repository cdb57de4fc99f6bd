package io.awareactive.maintenance;

import io.micrometer.core.instrument.Meter;
import java.util.List;

/**
 * Every meter a {@link RingMaintenance} registers when given a registry: name, type, tag keys and meaning. All series
 * are registered eagerly at zero when the engine is created (a series born at 1 loses that increment to
 * {@code increase()}), carry the configured {@link RingMaintenanceConfig#meterTags() meterTags}, and are removed when
 * the engine stops. Tag values are bounded; no slot, generation, job id, queue name, SQL or message is ever a tag.
 * Prometheus names add {@code _total} to counters and {@code _seconds} to the timer, and replace dots by underscores.
 */
public enum MaintenanceMeters {

    /**
     * Counter, once per prune outcome ({@code already_pruned} and {@code backed_off} included). Tags:
     * {@code awa.ring} (queue, lease, claim), {@code awa.ring.outcome} (pruned, noop, blocked, skipped_active,
     * already_pruned, backed_off, error), {@code awa.ring.reason} (the ring's skip reasons, else {@code none}).
     */
    PRUNE_ATTEMPTS("awa.maintenance.prune.attempts", Meter.Type.COUNTER, "Prune outcomes by ring, outcome and reason",
            MaintenanceMeters.RING, MaintenanceMeters.OUTCOME, MaintenanceMeters.REASON),
    /** Counter, once per {@code blocked} prune. Tags: {@code awa.ring}, {@code awa.ring.cause} (lock_timeout, nowait, serializer_busy). */
    PRUNE_BLOCKED("awa.maintenance.prune.blocked", Meter.Type.COUNTER, "Blocked prunes by ring and cause",
            MaintenanceMeters.RING, MaintenanceMeters.CAUSE),
    /**
     * Timer, three samples per {@code pruned} outcome. Tags: {@code awa.ring}, {@code awa.maintenance.phase} (lock,
     * truncate, commit). Service-level buckets 1, 5, 10, 25, 50, 100, 250, 500 ms, 1, 2.5, 5, 10, 30, 60 s.
     */
    PRUNE_DURATION("awa.maintenance.prune.duration", Meter.Type.TIMER, "Phase durations of successful prunes",
            MaintenanceMeters.RING, MaintenanceMeters.PHASE),
    /**
     * Counter, once per rotation; {@code skipped_busy} once per blocker. Tags: {@code awa.ring},
     * {@code awa.ring.outcome} (rotated, skipped_busy, skipped_idle), {@code awa.ring.blocker} ({@code none}, the
     * ring's family blockers, inflight_writes, serializer_busy, lost_cas).
     */
    ROTATE_ATTEMPTS("awa.maintenance.rotate.attempts", Meter.Type.COUNTER, "Rotation outcomes by ring and blocker",
            MaintenanceMeters.RING, MaintenanceMeters.OUTCOME, MaintenanceMeters.BLOCKER),
    /**
     * Counter, once per rollup slot transaction. Tags: {@code awa.ring} (queue), {@code awa.ring.outcome} (rolled,
     * empty, blocked, skipped_mvcc_pinned, error).
     */
    ROLLUP_ATTEMPTS("awa.maintenance.rollup.attempts", Meter.Type.COUNTER, "Terminal-count rollup outcomes",
            MaintenanceMeters.RING, MaintenanceMeters.OUTCOME),
    /**
     * Counter, each failure not reported as a prune or rollup outcome. Tag: {@code awa.maintenance.task}: the task's
     * own value, as on {@link #TICKS_DROPPED} (ring_queue, ring_lease, ring_claim for a ring's rotation; rollup for the
     * rollup's candidate read; promote, rescue, dlq_purge), or a sub-step (fold, trim, sealed_slots_refresh) or a
     * leadership step (election, leader_check).
     */
    TASK_FAILURES("awa.maintenance.task.failures", Meter.Type.COUNTER, "Failed maintenance task steps",
            MaintenanceMeters.TASK),
    /**
     * Counter, each tick dropped because the serial loop was busy. Tag: {@code awa.maintenance.task} (ring_queue,
     * ring_lease, ring_claim, rollup, promote, rescue, dlq_purge).
     */
    TICKS_DROPPED("awa.maintenance.ticks.dropped", Meter.Type.COUNTER, "Ticks dropped while the loop was busy",
            MaintenanceMeters.TASK),
    /** Gauge: the ring's current slot; {@code NaN} on a non-leader. Tag: {@code awa.ring}. */
    RING_CURRENT_SLOT("awa.ring.current_slot", Meter.Type.GAUGE, "Current slot of the ring (NaN unless leader)",
            MaintenanceMeters.RING),
    /** Gauge: the ring's generation; {@code NaN} on a non-leader. Tag: {@code awa.ring}. */
    RING_GENERATION("awa.ring.generation", Meter.Type.GAUGE, "Rotation generation of the ring (NaN unless leader)",
            MaintenanceMeters.RING),
    /**
     * Gauge: initialized sealed slots still holding rows, refreshed after each ring tick; 0 when idle, up to N - 1
     * when stalled; {@code NaN} on a non-leader. Tag: {@code awa.ring}.
     */
    RING_SEALED_SLOTS("awa.ring.sealed_slots", Meter.Type.GAUGE,
            "Sealed slots of the ring not yet pruned (NaN unless leader)", MaintenanceMeters.RING),
    /** Gauge: 1 while this instance leads, else 0. No tags but the configured ones. */
    LEADER("awa.maintenance.leader", Meter.Type.GAUGE, "1 while this engine is the maintenance leader, else 0");

    /** Tag key of the ring. */
    public static final String RING = "awa.ring";
    /** Tag key of a prune, rotation or rollup outcome. */
    public static final String OUTCOME = "awa.ring.outcome";
    /** Tag key of a prune skip reason. */
    public static final String REASON = "awa.ring.reason";
    /** Tag key of a blocked prune's cause. */
    public static final String CAUSE = "awa.ring.cause";
    /** Tag key of a rotation blocker. */
    public static final String BLOCKER = "awa.ring.blocker";
    /** Tag key of a prune phase. */
    public static final String PHASE = "awa.maintenance.phase";
    /** Tag key of a maintenance task. */
    public static final String TASK = "awa.maintenance.task";

    private final String meterName;
    private final Meter.Type type;
    private final String description;
    private final List<String> tagKeys;

    MaintenanceMeters(String meterName, Meter.Type type, String description, String... tagKeys) {
        this.meterName = meterName;
        this.type = type;
        this.description = description;
        this.tagKeys = List.of(tagKeys);
    }

    /**
     * The Micrometer meter name.
     *
     * @return for example {@code awa.maintenance.prune.attempts}
     */
    public String meterName() {
        return meterName;
    }

    /**
     * The meter type.
     *
     * @return counter, timer or gauge
     */
    public Meter.Type type() {
        return type;
    }

    /**
     * The meter description registered with it.
     *
     * @return the description
     */
    public String description() {
        return description;
    }

    /**
     * The engine's own tag keys of this meter, in order (configured meter tags come on top).
     *
     * @return the tag keys, possibly empty
     */
    public List<String> tagKeys() {
        return tagKeys;
    }
}
