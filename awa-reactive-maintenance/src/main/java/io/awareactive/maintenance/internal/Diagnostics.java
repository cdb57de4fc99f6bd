package io.awareactive.maintenance.internal;

import io.awareactive.core.internal.Db;
import io.awareactive.maintenance.StartupWarning;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Startup diagnostics (design §9): the timeouts the maintenance connection sees, the per-role and per-database
 * overrides new connections get, and whether the role can read other sessions' activity. Best effort: a failed
 * read is logged at DEBUG and yields no warning.
 */
public final class Diagnostics {

    private static final Logger LOG = LoggerFactory.getLogger(Diagnostics.class);

    /** The timeout settings compared with the prune lock timeout. */
    static final List<String> SETTINGS = List.of("deadlock_timeout", "statement_timeout", "transaction_timeout");

    private static final Pattern VALUE = Pattern.compile("\\s*'?\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([a-z]*)\\s*'?\\s*");

    private Diagnostics() {
    }

    /**
     * A per-role or per-database setting from {@code pg_db_role_setting}.
     *
     * @param millis the value in milliseconds
     * @param source where it comes from, for example {@code ALTER DATABASE}
     */
    record Override(long millis, String source) {
    }

    /**
     * One row of {@code pg_db_role_setting} that applies to this session.
     *
     * @param thisDatabase true when set for this database (false: every database)
     * @param thisRole true when set for this role (false: every role)
     * @param config the {@code name=value} entries
     */
    record RoleSettingRow(boolean thisDatabase, boolean thisRole, List<String> config) {

        /** 0 is the highest precedence: (db, role) > (any db, role) > (db, any role) > (any db, any role). */
        int precedence() {
            if (thisRole) {
                return thisDatabase ? 0 : 1;
            }
            return thisDatabase ? 2 : 3;
        }

        String source() {
            return switch (precedence()) {
                case 0 -> "ALTER ROLE ... IN DATABASE";
                case 1 -> "ALTER ROLE";
                case 2 -> "ALTER DATABASE";
                default -> "ALTER ROLE ALL";
            };
        }
    }

    /**
     * Runs every check on one connection from {@code factory} (the maintenance pool).
     *
     * @param factory the maintenance connections
     * @param lockTimeout the effective prune lock timeout
     * @return the warnings; never an error
     */
    public static Mono<List<StartupWarning>> run(ConnectionFactory factory, Duration lockTimeout) {
        return Db.withConnection(factory, c -> read(c, "session settings", sessionSettings(c))
                        .flatMap(session -> read(c, "pg_db_role_setting", roleSettings(c))
                                .flatMap(overrides -> read(c, "pg_read_all_stats membership", readsAllStats(c))
                                        .map(stats -> evaluate(lockTimeout.toMillis(), session.orElse(null),
                                                overrides.orElse(null), stats.orElse(null))))))
                .onErrorResume(error -> {
                    LOG.debug("startup diagnostics could not connect; no warnings", error);
                    return Mono.just(List.of());
                });
    }

    private static <T> Mono<Optional<T>> read(Connection c, String what, Mono<T> read) {
        return read.map(Optional::of)
                .onErrorResume(error -> {
                    LOG.debug("startup diagnostics could not read {}; no warning from it", what, error);
                    return Mono.just(Optional.empty());
                })
                .defaultIfEmpty(Optional.empty());
    }

    private static Mono<Map<String, Long>> sessionSettings(Connection c) {
        return Db.query(c, "SELECT name, setting, unit FROM pg_settings WHERE name IN ($1, $2, $3)",
                        row -> {
                            String unit = row.get(2, String.class);
                            Long millis = parseMillis(Db.get(row, 1, String.class), unit == null ? "ms" : unit);
                            return Map.entry(Db.get(row, 0, String.class), millis == null ? -1L : millis);
                        }, SETTINGS.get(0), SETTINGS.get(1), SETTINGS.get(2))
                .filter(entry -> entry.getValue() >= 0)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue);
    }

    private static Mono<Map<String, Override>> roleSettings(Connection c) {
        return Db.query(c, "SELECT s.setdatabase <> 0, s.setrole <> 0, s.setconfig FROM pg_db_role_setting s"
                        + " WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database"
                        + " WHERE datname = current_database()))"
                        + " AND s.setrole IN (0, (SELECT oid FROM pg_roles WHERE rolname = session_user))",
                        row -> {
                            String[] config = row.get(2, String[].class);
                            return new RoleSettingRow(Db.get(row, 0, Boolean.class), Db.get(row, 1, Boolean.class),
                                    config == null ? List.of() : List.of(config));
                        })
                .collectList()
                .map(Diagnostics::resolve);
    }

    private static Mono<Boolean> readsAllStats(Connection c) {
        // last(), not next(): the result is consumed completely before the connection is closed.
        return Db.query(c, "SELECT pg_has_role(session_user, 'pg_read_all_stats', 'USAGE')",
                row -> Db.get(row, 0, Boolean.class)).last();
    }

    /**
     * For each timeout setting, the value from the highest-precedence applicable row that sets it.
     *
     * @param rows the applicable rows of {@code pg_db_role_setting}
     * @return setting name to override
     */
    static Map<String, Override> resolve(List<RoleSettingRow> rows) {
        List<RoleSettingRow> ordered = new ArrayList<>(rows);
        ordered.sort(Comparator.comparingInt(RoleSettingRow::precedence));
        Map<String, Override> result = new HashMap<>();
        for (RoleSettingRow row : ordered) {
            for (String entry : row.config()) {
                int eq = entry.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String name = entry.substring(0, eq).trim().toLowerCase(Locale.ROOT);
                Long millis = SETTINGS.contains(name) ? parseMillis(entry.substring(eq + 1), "ms") : null;
                if (millis != null && !result.containsKey(name)) {
                    result.put(name, new Override(millis, row.source()));
                }
            }
        }
        return result;
    }

    /**
     * Parses a PostgreSQL time value: a number with an optional unit ({@code us}, {@code ms}, {@code s},
     * {@code min}, {@code h}, {@code d}); a bare number is in {@code defaultUnit}.
     *
     * @param value the text, for example {@code 10ms} or {@code 1s}
     * @param defaultUnit the unit of a bare number
     * @return milliseconds (fractions rounded up), or {@code null} when unparseable
     */
    static @Nullable Long parseMillis(String value, String defaultUnit) {
        Matcher m = VALUE.matcher(value.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return null;
        }
        double number = Double.parseDouble(m.group(1));
        String unit = m.group(2).isEmpty() ? defaultUnit : m.group(2);
        double factor = switch (unit) {
            case "us" -> 0.001;
            case "ms" -> 1;
            case "s" -> 1_000;
            case "min" -> 60_000;
            case "h" -> 3_600_000;
            case "d" -> 86_400_000;
            default -> -1;
        };
        if (factor < 0) {
            return null;
        }
        return (long) Math.ceil(number * factor);
    }

    /**
     * Turns what was read into warnings (design §9 steps 3 to 5). A {@code null} input was not readable and yields
     * no warning.
     *
     * @param lockTimeoutMillis the effective prune lock timeout T
     * @param session the settings as the maintenance session sees them, in ms
     * @param overrides the per-role and per-database overrides
     * @param readsAllStats whether the role is a member of {@code pg_read_all_stats}
     * @return the warnings, in a fixed order
     */
    static List<StartupWarning> evaluate(long lockTimeoutMillis, @Nullable Map<String, Long> session,
            @Nullable Map<String, Override> overrides, @Nullable Boolean readsAllStats) {
        List<StartupWarning> warnings = new ArrayList<>();
        String t = "the prune lock timeout (" + lockTimeoutMillis + " ms)";
        String deadlock = reached("deadlock_timeout", lockTimeoutMillis, session, overrides, false);
        if (deadlock != null) {
            warnings.add(new StartupWarning(StartupWarning.Kind.LOCK_TIMEOUT_NOT_BELOW_DEADLOCK_TIMEOUT, t
                    + " is not below deadlock_timeout (" + deadlock + "): a prune waiting that long runs the deadlock"
                    + " detector, which may cancel a claim or enqueue (40P01) instead of the prune, and log_lock_waits"
                    + " starts logging; keep the lock timeout well below deadlock_timeout"));
        }
        String statement = reached("statement_timeout", lockTimeoutMillis, session, overrides, true);
        if (statement != null) {
            warnings.add(new StartupWarning(StartupWarning.Kind.LOCK_TIMEOUT_NOT_BELOW_STATEMENT_TIMEOUT, t
                    + " is not below statement_timeout (" + statement + "): it fires first and turns a blocked prune"
                    + " into an error (SQLSTATE 57014); raise statement_timeout for the maintenance role above the"
                    + " lock timeout, or set it to 0"));
        }
        String transaction = reached("transaction_timeout", lockTimeoutMillis, session, overrides, true);
        if (transaction != null) {
            warnings.add(new StartupWarning(StartupWarning.Kind.LOCK_TIMEOUT_NOT_BELOW_TRANSACTION_TIMEOUT, t
                    + " is not below transaction_timeout (" + transaction + "): it fires first and turns a blocked"
                    + " prune into an error; raise transaction_timeout for the maintenance role, or set it to 0"));
        }
        if (Boolean.FALSE.equals(readsAllStats)) {
            warnings.add(new StartupWarning(StartupWarning.Kind.MISSING_READ_ALL_STATS, "the maintenance role is"
                    + " not a member of pg_read_all_stats (or pg_monitor): other sessions' state, xact_start,"
                    + " wait_event and query are hidden, so the rollup's horizon check falls back to mvccPinMinXids"
                    + " and blocker diagnostics name only pid, application_name and backend_xmin"));
        }
        return warnings;
    }

    /** Describes each source whose value T reaches, or returns null; with {@code zeroDisables}, 0 never counts. */
    private static @Nullable String reached(String name, long t, @Nullable Map<String, Long> session,
            @Nullable Map<String, Override> overrides, boolean zeroDisables) {
        List<String> sources = new ArrayList<>();
        Long seen = session == null ? null : session.get(name);
        if (seen != null && reaches(t, seen, zeroDisables)) {
            sources.add(seen + " ms as the maintenance connection sees it");
        }
        Override override = overrides == null ? null : overrides.get(name);
        if (override != null && reaches(t, override.millis(), zeroDisables)) {
            sources.add(override.millis() + " ms for new connections, set by " + override.source());
        }
        return sources.isEmpty() ? null : String.join("; ", sources);
    }

    private static boolean reaches(long t, long value, boolean zeroDisables) {
        return !(zeroDisables && value == 0) && t >= value;
    }
}
