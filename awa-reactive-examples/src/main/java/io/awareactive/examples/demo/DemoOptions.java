package io.awareactive.examples.demo;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The demo's command line. Parsing is strict: an unknown flag, a missing or malformed value or a value out of range
 * is a {@link UsageException} with a one-line message naming the flag, the rule and the value.
 *
 * @param help whether {@code --help} was given (every other flag is then ignored)
 * @param duration how long producers, workers and maintenance run
 * @param r2dbcUrl the database to use, or {@code null} for an embedded PostgreSQL
 * @param schema the awa-reactive schema to install and use
 * @param metricsPort the HTTP port of the Prometheus scrape endpoint, 0 for any free port
 * @param pruneLockTimeout the prune lock timeout
 * @param rotateInterval the rotate (and prune) interval of every ring
 * @param producers how many producers enqueue
 * @param rate how many jobs per second all producers enqueue together
 * @param workers how many workers claim and complete
 * @param contentionAt when the contending reader takes its lock, from the start of the run
 * @param contentionHold how long the contending reader holds its lock; zero disables it
 */
public record DemoOptions(boolean help, Duration duration, @Nullable String r2dbcUrl, String schema, int metricsPort,
        Duration pruneLockTimeout, Duration rotateInterval, int producers, int rate, int workers,
        Duration contentionAt, Duration contentionHold) {

    /** Environment variable holding the R2DBC URL of the database to use instead of an embedded one. */
    public static final String URL_ENV = "AWA_DEMO_R2DBC_URL";

    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");
    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** Defaults: what {@code ./demo} does without flags. */
    static DemoOptions defaults() {
        return new DemoOptions(false, Duration.ofSeconds(30), null, "awa_reactive_demo", 9464, Duration.ofMillis(10),
                Duration.ofMillis(500), 2, 200, 2, Duration.ofSeconds(12), Duration.ofSeconds(5));
    }

    /** The text {@code --help} prints. */
    static String usage() {
        DemoOptions d = defaults();
        return String.join("\n",
                "Usage: ./demo [flags]",
                "",
                "Runs producers, workers and the ring-maintenance engine of awa-reactive for a bounded time and shows",
                "what the rings do: a live line per second, blocked prunes while a contending reader holds a lock,",
                "then a summary. Metrics are served for Prometheus while it runs.",
                "",
                "Flags (durations: 500ms, 30s, 2m, 1h or ISO-8601 like PT30S):",
                "  --duration D            how long to run (default " + format(d.duration) + ")",
                "  --url URL               R2DBC URL of the PostgreSQL to use, e.g.",
                "                          r2dbc:postgresql://user:secret@localhost:5432/app",
                "                          (default: $" + URL_ENV + ", else an embedded PostgreSQL 17)",
                "  --schema NAME           schema to install into (default " + d.schema + ")",
                "  --metrics-port PORT     HTTP port of the Prometheus endpoint /metrics, 0 = any free port",
                "                          (default " + d.metricsPort + ")",
                "  --prune-lock-timeout D  how long a prune waits for its locks (default "
                        + format(d.pruneLockTimeout) + ")",
                "  --rotate-interval D     rotate/prune tick of every ring (default " + format(d.rotateInterval) + ")",
                "  --producers N           producers (default " + d.producers + ")",
                "  --rate N                jobs per second, all producers together (default " + d.rate + ")",
                "  --workers N             workers (default " + d.workers + ")",
                "  --contention-at D       when a reader starts holding ACCESS SHARE on ready_segments",
                "                          (default: 40% of the duration)",
                "  --contention-hold D     how long it holds the lock, 0 = no contention (default "
                        + format(d.contentionHold) + ")",
                "  --help                  print this text",
                "");
    }

    /**
     * Parses the command line.
     *
     * @param args the arguments
     * @param environment environment lookup (for {@value #URL_ENV})
     * @return the options
     * @throws UsageException for a bad flag or value
     */
    static DemoOptions parse(String[] args, Function<String, @Nullable String> environment) {
        DemoOptions d = defaults();
        boolean help = false;
        Duration duration = d.duration;
        String url = environment.apply(URL_ENV);
        String schema = d.schema;
        int metricsPort = d.metricsPort;
        Duration pruneLockTimeout = d.pruneLockTimeout;
        Duration rotateInterval = d.rotateInterval;
        int producers = d.producers;
        int rate = d.rate;
        int workers = d.workers;
        Duration contentionAt = null;
        Duration contentionHold = d.contentionHold;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String flag = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                flag = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (flag.equals("--help") || flag.equals("-h")) {
                help = true;
                continue;
            }
            if (!KNOWN.containsKey(flag)) {
                throw new UsageException("unknown flag " + arg + " (see --help)");
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(flag + " needs a value: " + KNOWN.get(flag));
                }
                value = args[++i];
            }
            switch (flag) {
                case "--duration" -> duration = positiveDuration(flag, value);
                case "--url" -> url = url(value);
                case "--schema" -> schema = schema(value);
                case "--metrics-port" -> metricsPort = intValue(flag, value, 0, 65535);
                case "--prune-lock-timeout" -> pruneLockTimeout = positiveDuration(flag, value);
                case "--rotate-interval" -> rotateInterval = positiveDuration(flag, value);
                case "--producers" -> producers = intValue(flag, value, 1, 64);
                case "--rate" -> rate = intValue(flag, value, 1, 100_000);
                case "--workers" -> workers = intValue(flag, value, 1, 64);
                case "--contention-at" -> contentionAt = duration(flag, value);
                case "--contention-hold" -> contentionHold = duration(flag, value);
                default -> throw new IllegalStateException("unhandled flag " + flag);
            }
        }
        if (url != null && url.isBlank()) {
            url = null;
        }
        if (contentionAt == null) {
            contentionAt = Duration.ofMillis(duration.toMillis() * 2 / 5);
        }
        if (!contentionHold.isZero() && contentionAt.plus(contentionHold).compareTo(duration) >= 0) {
            throw new UsageException("--contention-at plus --contention-hold must end before --duration, was "
                    + format(contentionAt) + " + " + format(contentionHold) + " >= " + format(duration));
        }
        return new DemoOptions(help, duration, url, schema, metricsPort, pruneLockTimeout, rotateInterval, producers,
                rate, workers, contentionAt, contentionHold);
    }

    private static final Map<String, String> KNOWN = Map.ofEntries(
            Map.entry("--duration", "a duration like 30s"),
            Map.entry("--url", "an R2DBC URL like r2dbc:postgresql://user@localhost:5432/db"),
            Map.entry("--schema", "a schema name like awa_reactive_demo"),
            Map.entry("--metrics-port", "a TCP port, 0 for any free port"),
            Map.entry("--prune-lock-timeout", "a duration like 10ms"),
            Map.entry("--rotate-interval", "a duration like 500ms"),
            Map.entry("--producers", "a number"),
            Map.entry("--rate", "jobs per second"),
            Map.entry("--workers", "a number"),
            Map.entry("--contention-at", "a duration like 12s"),
            Map.entry("--contention-hold", "a duration like 5s, 0 to disable"));

    /**
     * Parses a duration: {@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 2m}, {@code 1h}, {@code 0}, or ISO-8601
     * ({@code PT30S}).
     *
     * @param flag the flag, for the message
     * @param value the text
     * @return the duration, zero or positive
     * @throws UsageException when the text is not a duration
     */
    static Duration duration(String flag, String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = SIMPLE_DURATION.matcher(text);
        if (m.matches()) {
            double amount = Double.parseDouble(m.group(1));
            double nanosPerUnit = switch (m.group(2)) {
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            };
            double nanos = amount * nanosPerUnit;
            if (nanos > Long.MAX_VALUE) {
                throw new UsageException(flag + " must be a duration like 30s or 500ms, was " + value);
            }
            return Duration.ofNanos(Math.round(nanos));
        }
        try {
            Duration parsed = Duration.parse(value.trim().toUpperCase(Locale.ROOT));
            if (parsed.isNegative()) {
                throw new UsageException(flag + " must not be negative, was " + value);
            }
            return parsed;
        } catch (DateTimeParseException e) {
            throw new UsageException(flag + " must be a duration like 30s or 500ms, was " + value);
        }
    }

    private static Duration positiveDuration(String flag, String value) {
        Duration d = duration(flag, value);
        if (d.isZero()) {
            throw new UsageException(flag + " must be greater than 0, was " + value);
        }
        return d;
    }

    private static int intValue(String flag, String value, int min, int max) {
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " must be a whole number, was " + value);
        }
        if (parsed < min || parsed > max) {
            throw new UsageException(flag + " must be between " + min + " and " + max + ", was " + value);
        }
        return parsed;
    }

    private static String url(String value) {
        if (!value.startsWith("r2dbc:postgresql://") && !value.startsWith("r2dbc:postgres://")
                && !value.startsWith("r2dbcs:postgresql://")) {
            throw new UsageException("--url must be an R2DBC PostgreSQL URL like "
                    + "r2dbc:postgresql://user@localhost:5432/db, was " + value);
        }
        return value;
    }

    private static String schema(String value) {
        if (!SCHEMA.matcher(value).matches() || value.startsWith("pg_")) {
            throw new UsageException("--schema must match [a-z_][a-z0-9_]* (1-63 characters, not pg_*), was "
                    + value);
        }
        return value;
    }

    /**
     * Formats a duration the way the flags take it: {@code 500ms}, {@code 30s}, {@code 1.5s}.
     *
     * @param d the duration
     * @return the text
     */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000 || ms % 1000 != 0 && ms < 10_000) {
            return ms < 1000 ? ms + "ms" : String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        return (ms / 1000) + "s";
    }

    /** Renders the options for the demo's first line. */
    String describe() {
        return "duration " + format(duration) + ", " + producers + " producers at " + rate + " jobs/s, " + workers
                + " workers, rotate every " + format(rotateInterval) + ", prune lock timeout "
                + format(pruneLockTimeout) + (contentionHold.isZero() ? ", no contention"
                        : ", contention " + format(contentionAt) + "-" + format(contentionAt.plus(contentionHold)));
    }

    /** A bad flag or value: the message is the one line the demo prints. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(Objects.requireNonNull(message), null, false, false);
        }
    }
}
