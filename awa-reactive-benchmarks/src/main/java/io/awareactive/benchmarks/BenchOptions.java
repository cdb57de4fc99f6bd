package io.awareactive.benchmarks;

import io.awareactive.core.QueueStorageConfig;
import io.awareactive.maintenance.MaintenanceTask;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The command line: {@code <scenario> [--flag value | --flag=value]...}. Parsing validates every value at once and
 * throws {@link IllegalArgumentException} naming the flag, the rule and the value, before anything starts.
 */
final class BenchOptions {

    /** A flag of the command line, for parsing and {@code --help}. */
    record Flag(String name, String argument, String defaultText, String description) {
    }

    static final List<Flag> FLAGS = List.of(
            new Flag("out", "DIR", "target/bench-results (relative paths: to the current directory)",
                    "output directory; each scenario writes DIR/<scenario>/summary.csv, timeseries.csv, *.png"),
            new Flag("url", "R2DBC_URL", "$AWA_TEST_R2DBC_URL, else an embedded durable PostgreSQL 17",
                    "external server: r2dbc:postgresql://user[:password]@host[:port]/database"),
            new Flag("systems", "LIST", "awa-reactive,baseline",
                    "systems to measure (ratios need both); in throughput and pinned-horizon, baseline is both"
                            + " baselines (each ack and batched)"),
            new Flag("duration", "D", "per scenario: 60s, 90s, -, 30s, 30s, 30s",
                    "measured time of one run (one system, one case), after the warm-up; pinned-horizon pins the"
                            + " middle third (30m: a 10-minute pin, per-minute throughput in per_minute.csv)"),
            new Flag("warmup", "D", "5s", "unmeasured time before each run"),
            new Flag("jvm-warmup", "D", "30s",
                    "unmeasured closed loop of each system before its first run in this JVM (its own schema,"
                            + " maintenance on), so that JIT compilation falls into no measurement; prune-cost: one"
                            + " unmeasured reclaim of 1,000 finished jobs per system instead; 0 turns it off"),
            new Flag("workers", "N|LIST", "4",
                    "worker loops: claim a batch, complete its jobs, claim again; throughput: a list (4,16,64) is a"
                            + " sweep, each point run for each system; other scenarios use the first number"),
            new Flag("acks", "MODE", "each",
                    "claim-latency, lookup-pressure, maintenance-overhead: each = every completion in its own"
                            + " transaction, batch = a claimed batch's completions in one, for both systems;"
                            + " throughput and pinned-horizon always run awa-reactive batched (completeAll) against"
                            + " both baselines, each ack and batched (DELETE ... = ANY($1))"),
            new Flag("pool-order", "MODE", "mru",
                    "which idle connection the pool the producers and workers share hands out next, for every"
                            + " system: mru = the most recently released one (a few warm connections do the work),"
                            + " lru = the least recently released one (the work spreads over every connection)"),
            new Flag("producers", "N", "1", "producer loops enqueueing batches while the backlog is below --backlog"),
            new Flag("claim-batch", "N", "10", "jobs per claim"),
            new Flag("enqueue-batch", "N", "50", "jobs per enqueue round trip"),
            new Flag("backlog", "N", "2000", "closed loop: producers wait while enqueued - completed >= N"),
            new Flag("payload-bytes", "N", "256", "size of each job's JSON args"),
            new Flag("enqueue-shards", "N", "= --workers",
                    "awa-reactive: enqueue shards (lanes) of the queue; claimers of one lane take turns"),
            new Flag("sample-interval", "D", "1s", "time-series resolution (jobs/s, latency, bytes, dead tuples)"),
            new Flag("rotate-interval", "D", "1s (lookup-pressure: 250ms)", "awa-reactive ring rotate/prune interval"),
            new Flag("lock-timeout", "D", "10ms", "awa-reactive prune lock timeout (all scenarios but claim-latency)"),
            new Flag("rollup-interval", "D",
                    ClaimLatencyScenario.millis(MaintenanceTask.ROLLUP.defaults().interval())
                            + " (the library's default)",
                    "awa-reactive: interval of the engine's terminal-count rollup, which folds sealed queue slots'"
                            + " count deltas (at most 4 slots a tick)"),
            new Flag("statements-in-flight", "N",
                    QueueStorageConfig.DEFAULT_MAX_STATEMENTS_IN_FLIGHT + " (the library's default)",
                    "awa-reactive: maxStatementsInFlight, the claim statements per queue and completion statements"
                            + " that run at once; calls that wait share the next"),
            new Flag("lock-timeouts", "LIST", "10ms,100ms,1s", "claim-latency: prune lock timeouts to compare"),
            new Flag("readers", "N", "2", "claim-latency: contending reader sessions in the 'with readers' cases"),
            new Flag("reader-hold", "D", "20ms", "claim-latency: how long each reader transaction holds its lock"),
            new Flag("reader-pause", "D", "50ms", "claim-latency: pause between one reader's transactions"),
            new Flag("rows", "LIST", "10000,100000,1000000", "prune-cost: finished jobs in the reclaimed slot"),
            new Flag("prune-timeout", "D", "5m",
                    "prune-cost: statement_timeout of awa-reactive's connections; a prune still running then is"
                            + " cancelled and reported as not finished"),
            new Flag("rates", "LIST", "0,250,1000,4000", "lookup-pressure: offered lookups + counts per second"),
            new Flag("count-share", "F", "0.1", "lookup-pressure: fraction of the offered rate that are count queries"),
            new Flag("lookup-modes", "LIST", "api,parent",
                    "lookup-pressure: awa-reactive job lookups through QueueStorage.status (api) or as a plain"
                            + " job_id read of the ring parents (parent, the design's worst case)"),
            new Flag("lookup-concurrency", "N", "4", "lookup-pressure: concurrent lookup connections"),
            new Flag("idle", "D", "= --duration", "maintenance-overhead: length of the idle phase"),
            new Flag("autovacuum-naptime", "D", "5s", "embedded server only: autovacuum_naptime"),
            new Flag("settle", "D", "11s",
                    "after each install, wait D, then analyze and vacuum the system catalogs, so that no measurement"
                            + " pays for the benchmark's own DDL (PostgreSQL reports an idle session's table"
                            + " statistics within 10 s, and autovacuum acts on them); 0 settles at once"),
            new Flag("in", "DIR", "= --out", "plot: directory holding <scenario>/timeseries.csv files"));

    private static final Set<String> SYSTEMS = Set.of("awa-reactive", "baseline");
    private static final Set<String> LOOKUP_MODES = Set.of("api", "parent");
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    private final @Nullable ScenarioName scenario;
    private final boolean help;
    private final Map<String, String> values;
    private final List<String> arguments;

    private BenchOptions(@Nullable ScenarioName scenario, boolean help, Map<String, String> values,
            List<String> arguments) {
        this.scenario = scenario;
        this.help = help;
        this.values = values;
        this.arguments = arguments;
    }

    /**
     * Parses and validates a command line.
     *
     * @param args the arguments
     * @return the options
     * @throws IllegalArgumentException naming the flag, rule and value of the first bad argument
     */
    static BenchOptions parse(String... args) {
        ScenarioName scenario = null;
        boolean help = false;
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h") || arg.equals("help")) {
                help = true;
            } else if (arg.startsWith("--")) {
                String name = arg.substring(2);
                String value;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                } else {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("--" + name + " needs a value; see --help");
                    }
                    value = args[++i];
                }
                if (flag(name) == null) {
                    throw new IllegalArgumentException("unknown flag --" + name + "; see --help");
                }
                values.put(name, value.trim());
            } else if (scenario == null) {
                scenario = ScenarioName.parse(arg);
            } else {
                throw new IllegalArgumentException("unexpected argument '" + arg + "': one scenario per command;"
                        + " see --help");
            }
        }
        if (scenario == null && !help) {
            throw new IllegalArgumentException("no scenario given; see --help");
        }
        BenchOptions options = new BenchOptions(scenario, help, Collections.unmodifiableMap(values), List.of(args));
        options.validate();
        return options;
    }

    private static @Nullable Flag flag(String name) {
        for (Flag flag : FLAGS) {
            if (flag.name().equals(name)) {
                return flag;
            }
        }
        return null;
    }

    /** Reads every given value once, so a bad one fails before any work starts. */
    private void validate() {
        systems();
        if (values.containsKey("duration")) {
            positiveDuration("duration");
        }
        warmup();
        jvmWarmup();
        workerCounts();
        batchedAcks();
        mostRecentlyUsedFirst();
        producers();
        claimBatch();
        enqueueBatch();
        backlog();
        payloadBytes();
        enqueueShards();
        sampleInterval();
        if (values.containsKey("rotate-interval")) {
            positiveDuration("rotate-interval");
        }
        lockTimeout();
        rollupInterval();
        statementsInFlight();
        lockTimeouts();
        readers();
        readerHold();
        readerPause();
        rows();
        pruneTimeout();
        rates();
        countShare();
        lookupModes();
        lookupConcurrency();
        if (values.containsKey("idle")) {
            positiveDuration("idle");
        }
        autovacuumNaptime();
        settle();
    }

    @Nullable ScenarioName scenario() {
        return scenario;
    }

    boolean help() {
        return help;
    }

    /** A copy of these options for another scenario (used by {@code all}). */
    BenchOptions withScenario(ScenarioName other) {
        return new BenchOptions(other, false, values, arguments);
    }

    /** The command line as given. */
    List<String> arguments() {
        return arguments;
    }

    @Nullable String value(String name) {
        return values.get(name);
    }

    Path out(Path base) {
        return base.resolve(values.getOrDefault("out", "target/bench-results")).normalize();
    }

    Path in(Path base) {
        return values.containsKey("in") ? base.resolve(values.get("in")).normalize() : out(base);
    }

    @Nullable String url() {
        return values.get("url");
    }

    List<String> systems() {
        List<String> systems = list("systems", "awa-reactive,baseline");
        for (String system : systems) {
            if (!SYSTEMS.contains(system)) {
                throw new IllegalArgumentException("--systems must list awa-reactive and/or baseline, was "
                        + values.get("systems"));
            }
        }
        return systems;
    }

    boolean measures(String system) {
        return systems().contains(system);
    }

    Duration duration(ScenarioName name) {
        return values.containsKey("duration") ? positiveDuration("duration") : name.defaultDuration();
    }

    Duration warmup() {
        return duration("warmup", "5s", true);
    }

    Duration jvmWarmup() {
        return duration("jvm-warmup", "30s", true);
    }

    /** The first (for most scenarios the only) number of {@code --workers}. */
    int workers() {
        return workerCounts().get(0);
    }

    /** Every number of {@code --workers}, in the order given: the points of the throughput sweep. */
    List<Integer> workerCounts() {
        List<Integer> counts = new ArrayList<>();
        for (String item : list("workers", "4")) {
            int count = parsePositiveInt("workers", item);
            if (counts.contains(count)) {
                throw new IllegalArgumentException("--workers lists " + count + " twice, was " + values.get("workers"));
            }
            counts.add(count);
        }
        return counts;
    }

    /** Whether a worker completes a claimed batch in one transaction ({@code --acks batch}). */
    boolean batchedAcks() {
        return choice("acks", "each", "batch").equals("batch");
    }

    /** Whether the producers' and workers' pool hands out its most recently released idle connection first. */
    boolean mostRecentlyUsedFirst() {
        return poolOrder().equals("mru");
    }

    /** {@code --pool-order} as given: {@code mru} (the default) or {@code lru}. */
    String poolOrder() {
        return choice("pool-order", "mru", "lru");
    }

    /** A flag that takes one of two words, {@code byDefault} when absent. */
    private String choice(String name, String byDefault, String other) {
        String value = values.getOrDefault(name, byDefault);
        if (!value.equals(byDefault) && !value.equals(other)) {
            throw new IllegalArgumentException("--" + name + " must be " + byDefault + " or " + other + ", was "
                    + value);
        }
        return value;
    }

    int producers() {
        return positiveInt("producers", 1);
    }

    int claimBatch() {
        return positiveInt("claim-batch", 10);
    }

    int enqueueBatch() {
        return positiveInt("enqueue-batch", 50);
    }

    int backlog() {
        return positiveInt("backlog", 2000);
    }

    int payloadBytes() {
        return positiveInt("payload-bytes", 256);
    }

    int enqueueShards() {
        return enqueueShards(workers());
    }

    /** awa-reactive's enqueue shards for a run with {@code workers} workers (by default one per worker, at most 64). */
    int enqueueShards(int workers) {
        int shards = positiveInt("enqueue-shards", Math.min(64, workers));
        if (shards > 64) {
            throw new IllegalArgumentException("--enqueue-shards must be between 1 and 64, was " + shards);
        }
        return shards;
    }

    Duration sampleInterval() {
        return duration("sample-interval", "1s", false);
    }

    Duration rotateInterval(ScenarioName name) {
        if (values.containsKey("rotate-interval")) {
            return positiveDuration("rotate-interval");
        }
        return name == ScenarioName.LOOKUP_PRESSURE ? Duration.ofMillis(250) : Duration.ofSeconds(1);
    }

    Duration lockTimeout() {
        return duration("lock-timeout", "10ms", false);
    }

    /** The flag's value, else the library's own default (the engine is then configured as a user's would be). */
    Duration rollupInterval() {
        return values.containsKey("rollup-interval") ? positiveDuration("rollup-interval")
                : MaintenanceTask.ROLLUP.defaults().interval();
    }

    /** The flag's value, else the library's own default (the storage is then configured as a user's would be). */
    int statementsInFlight() {
        return positiveInt("statements-in-flight", QueueStorageConfig.DEFAULT_MAX_STATEMENTS_IN_FLIGHT);
    }

    List<Duration> lockTimeouts() {
        List<Duration> timeouts = new ArrayList<>();
        for (String item : list("lock-timeouts", "10ms,100ms,1s")) {
            timeouts.add(parseDuration("lock-timeouts", item, false));
        }
        return timeouts;
    }

    int readers() {
        return positiveInt("readers", 2);
    }

    Duration readerHold() {
        return duration("reader-hold", "20ms", false);
    }

    Duration readerPause() {
        return duration("reader-pause", "50ms", true);
    }

    List<Integer> rows() {
        List<Integer> rows = new ArrayList<>();
        for (String item : list("rows", "10000,100000,1000000")) {
            rows.add(parsePositiveInt("rows", item));
        }
        return rows;
    }

    Duration pruneTimeout() {
        return duration("prune-timeout", "5m", false);
    }

    List<Integer> rates() {
        List<Integer> rates = new ArrayList<>();
        for (String item : list("rates", "0,250,1000,4000")) {
            try {
                int rate = Integer.parseInt(item);
                if (rate < 0) {
                    throw new NumberFormatException();
                }
                rates.add(rate);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--rates must list integers >= 0, was " + values.get("rates"), e);
            }
        }
        return rates;
    }

    double countShare() {
        String text = values.getOrDefault("count-share", "0.1");
        try {
            double share = Double.parseDouble(text);
            if (share >= 0 && share <= 1) {
                return share;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--count-share must be a number between 0 and 1, was " + text);
    }

    List<String> lookupModes() {
        List<String> modes = list("lookup-modes", "api,parent");
        for (String mode : modes) {
            if (!LOOKUP_MODES.contains(mode)) {
                throw new IllegalArgumentException("--lookup-modes must list api and/or parent, was "
                        + values.get("lookup-modes"));
            }
        }
        return modes;
    }

    int lookupConcurrency() {
        return positiveInt("lookup-concurrency", 4);
    }

    Duration idle(ScenarioName name) {
        return values.containsKey("idle") ? positiveDuration("idle") : duration(name);
    }

    Duration autovacuumNaptime() {
        return duration("autovacuum-naptime", "5s", false);
    }

    Duration settle() {
        return duration("settle", "11s", true);
    }

    private List<String> list(String name, String defaultValue) {
        String text = values.getOrDefault(name, defaultValue);
        List<String> items = new ArrayList<>();
        for (String item : text.split(",")) {
            String trimmed = item.trim().toLowerCase(Locale.ROOT);
            if (!trimmed.isEmpty()) {
                items.add(trimmed);
            }
        }
        if (items.isEmpty()) {
            throw new IllegalArgumentException("--" + name + " must not be empty, was '" + text + "'");
        }
        return items;
    }

    private int positiveInt(String name, int defaultValue) {
        String text = values.get(name);
        return text == null ? defaultValue : parsePositiveInt(name, text);
    }

    private static int parsePositiveInt(String name, String text) {
        try {
            int value = Integer.parseInt(text.replace("_", ""));
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--" + name + " must be a positive integer, was " + text);
    }

    private Duration positiveDuration(String name) {
        return parseDuration(name, values.get(name), false);
    }

    private Duration duration(String name, String defaultValue, boolean zeroAllowed) {
        return parseDuration(name, values.getOrDefault(name, defaultValue), zeroAllowed);
    }

    /**
     * Parses {@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 2m}, {@code 1h} or an ISO-8601 duration.
     *
     * @param name the flag, for the message
     * @param text the text
     * @param zeroAllowed whether 0 is accepted
     * @return the duration
     */
    static Duration parseDuration(String name, String text, boolean zeroAllowed) {
        Duration duration = null;
        Matcher matcher = DURATION.matcher(text.toLowerCase(Locale.ROOT));
        if (matcher.matches()) {
            double amount = Double.parseDouble(matcher.group(1));
            double millis = switch (matcher.group(2)) {
                case "ms" -> amount;
                case "s" -> amount * 1_000;
                case "m" -> amount * 60_000;
                default -> amount * 3_600_000;
            };
            duration = Duration.ofNanos(Math.round(millis * 1_000_000));
        } else {
            try {
                duration = Duration.parse(text);
            } catch (RuntimeException e) {
                duration = null;
            }
        }
        if (duration == null || duration.isNegative() || (!zeroAllowed && duration.isZero())) {
            throw new IllegalArgumentException("--" + name + " must be a " + (zeroAllowed ? "" : "positive ")
                    + "duration like 500ms, 30s or 2m, was " + text);
        }
        return duration;
    }

    /** The {@code --help} text. */
    static String usage() {
        StringBuilder text = new StringBuilder()
                .append("awa-reactive benchmarks: ring recycling vs a plain SKIP LOCKED job table, side by side.\n\n")
                .append("Usage: ./bench <scenario> [--flag value]...   (or java -cp ... io.awareactive.benchmarks.Bench)\n\n")
                .append("Scenarios:\n");
        for (ScenarioName name : ScenarioName.values()) {
            String alias = name.measures() ? " (" + (name.ordinal() + 1) + ")" : "";
            text.append(String.format(Locale.ROOT, "  %-26s %s%n", name.cliName() + alias, name.description()));
        }
        text.append("\nFlags (a flag that a scenario does not use is ignored):\n");
        for (Flag flag : FLAGS) {
            text.append(String.format(Locale.ROOT, "  --%-20s %s%n  %-22s default: %s%n",
                    flag.name() + " " + flag.argument(), flag.description(), "", flag.defaultText()));
        }
        text.append("\nDurations: 500ms, 30s, 1.5s, 2m, 1h. Lists: comma-separated.\n")
                .append("PostgreSQL: an embedded PostgreSQL 17 with fsync, synchronous_commit and full_page_writes on,\n")
                .append("started for the run (data under target/awa-postgres/), unless --url or $AWA_TEST_R2DBC_URL.\n")
                .append("Results: a table on stdout, <out>/<scenario>/summary.csv (one row per metric: awa_reactive, one\n")
                .append("column per baseline, baseline_each_ack and baseline_batched_ack in throughput and pinned-horizon,\n")
                .append("else baseline, and ratio_awa_over_<baseline> for each), timeseries.csv, per_minute.csv\n")
                .append("(pinned-horizon) and PNG plots drawn from them. Throughput and pinned-horizon also report WAL\n")
                .append("bytes, rows written and commits per completed job.\n");
        return text.toString();
    }
}
