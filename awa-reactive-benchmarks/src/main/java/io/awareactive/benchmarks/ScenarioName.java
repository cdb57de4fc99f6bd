package io.awareactive.benchmarks;

import java.time.Duration;
import java.util.Locale;

/** The scenarios of the benchmark (issue 7), each one command, plus {@code all} and {@code plot}. */
enum ScenarioName {
    THROUGHPUT("throughput", "1", Duration.ofSeconds(60),
            "sustained enqueue -> claim -> complete with a bounded backlog, maintenance on"),
    PINNED_HORIZON("pinned-horizon", "2", Duration.ofSeconds(90),
            "scenario 1 with a REPEATABLE READ reader on an unrelated table for the middle third"),
    PRUNE_COST("prune-cost", "3", Duration.ZERO,
            "reclaiming 10k/100k/1M finished jobs: TRUNCATE (prune) vs DELETE + VACUUM, time and WAL"),
    CLAIM_LATENCY("claim-latency", "4", Duration.ofSeconds(30),
            "claim p50/p99/max with maintenance off and on at each lock timeout, with and without readers"),
    LOOKUP_PRESSURE("lookup-pressure", "5", Duration.ofSeconds(30),
            "Blocked(NOWAIT) share of queue prunes against the job-lookup/count rate"),
    MAINTENANCE_OVERHEAD("maintenance-overhead", "6", Duration.ofSeconds(30),
            "database time and JVM CPU of maintenance per tick, idle and under load"),
    ALL("all", "all", Duration.ZERO, "scenarios 1 to 6 in order, same server, one output directory"),
    PLOT("plot", "plot", Duration.ZERO, "re-draw the PNG plots of an output directory from its CSV files");

    private final String cliName;
    private final String alias;
    private final Duration defaultDuration;
    private final String description;

    ScenarioName(String cliName, String alias, Duration defaultDuration, String description) {
        this.cliName = cliName;
        this.alias = alias;
        this.defaultDuration = defaultDuration;
        this.description = description;
    }

    String cliName() {
        return cliName;
    }

    /** The measured duration of one run (one system, one case) when {@code --duration} is not given. */
    Duration defaultDuration() {
        return defaultDuration;
    }

    String description() {
        return description;
    }

    /** Whether this is one of the six measuring scenarios. */
    boolean measures() {
        return this != ALL && this != PLOT;
    }

    static ScenarioName parse(String text) {
        String key = text.toLowerCase(Locale.ROOT);
        for (ScenarioName name : values()) {
            if (name.cliName.equals(key) || name.alias.equals(key)) {
                return name;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + text + "'; expected one of throughput (1), "
                + "pinned-horizon (2), prune-cost (3), claim-latency (4), lookup-pressure (5), "
                + "maintenance-overhead (6), all, plot; see --help");
    }
}
