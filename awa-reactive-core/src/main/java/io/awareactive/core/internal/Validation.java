package io.awareactive.core.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Argument checks shared by the configuration builders. Every message names the option, the rule and the value
 * ({@code "<option> must <rule>, was <value>"}), and every check throws {@link IllegalArgumentException}.
 */
public final class Validation {

    /** PostgreSQL's largest {@code lock_timeout}, in milliseconds. */
    public static final long MAX_LOCK_TIMEOUT_MILLIS = Integer.MAX_VALUE;

    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]*");
    private static final Duration MAX_LOCK_TIMEOUT = Duration.ofMillis(MAX_LOCK_TIMEOUT_MILLIS);

    private Validation() {
    }

    /**
     * Rejects {@code null}.
     *
     * @param value the value
     * @param option the option name
     * @param <T> the value type
     * @return the value
     * @throws IllegalArgumentException when the value is null
     */
    public static <T> T requireNonNull(@Nullable T value, String option) {
        if (value == null) {
            throw new IllegalArgumentException(option + " must not be null");
        }
        return value;
    }

    /**
     * Requires {@code min <= value <= max}.
     *
     * @param value the value
     * @param min the smallest allowed value
     * @param max the largest allowed value
     * @param option the option name
     * @return the value
     * @throws IllegalArgumentException when out of range
     */
    public static int requireBetween(int value, int min, int max, String option) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /**
     * Requires a positive duration.
     *
     * @param value the duration
     * @param option the option name
     * @return the duration
     * @throws IllegalArgumentException when null, zero or negative
     */
    public static Duration requirePositive(@Nullable Duration value, String option) {
        requireNonNull(value, option);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(option + " must be greater than 0, was " + value);
        }
        return value;
    }

    /**
     * Requires a positive number.
     *
     * @param value the value
     * @param option the option name
     * @return the value
     * @throws IllegalArgumentException when zero or negative
     */
    public static long requirePositive(long value, String option) {
        if (value <= 0) {
            throw new IllegalArgumentException(option + " must be greater than 0, was " + value);
        }
        return value;
    }

    /**
     * Requires a duration that is zero or positive.
     *
     * @param value the duration
     * @param option the option name
     * @return the duration
     * @throws IllegalArgumentException when null or negative
     */
    public static Duration requireNotNegative(@Nullable Duration value, String option) {
        requireNonNull(value, option);
        if (value.isNegative()) {
            throw new IllegalArgumentException(option + " must not be negative, was " + value);
        }
        return value;
    }

    /**
     * Validates a schema name: {@code [a-z_][a-z0-9_]*}, 1 to 63 bytes, not {@code pg_*} and not
     * {@code information_schema}. Runs before any SQL, so a hostile name never reaches the database.
     *
     * @param schema the name
     * @param option the option name
     * @return the name
     * @throws IllegalArgumentException when the name breaks a rule
     */
    public static String requireSchemaName(@Nullable String schema, String option) {
        requireNonNull(schema, option);
        int bytes = schema.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < 1 || bytes > 63 || !SCHEMA_NAME.matcher(schema).matches() || schema.startsWith("pg_")
                || schema.equals("information_schema")) {
            throw new IllegalArgumentException(option
                    + " must be a plain lower-case identifier matching [a-z_][a-z0-9_]* of 1 to 63 bytes, not pg_* or"
                    + " information_schema, was \"" + schema + "\"");
        }
        return schema;
    }

    /**
     * Validates a prune lock timeout: positive and at most PostgreSQL's maximum ({@value #MAX_LOCK_TIMEOUT_MILLIS}
     * ms), compared exactly before rounding.
     *
     * @param value the requested timeout
     * @param option the option name
     * @return the requested timeout, unchanged
     * @throws IllegalArgumentException when null, not positive or above the maximum
     */
    public static Duration requireLockTimeout(@Nullable Duration value, String option) {
        requirePositive(value, option);
        if (value.compareTo(MAX_LOCK_TIMEOUT) > 0) {
            throw new IllegalArgumentException(option + " must be at most " + MAX_LOCK_TIMEOUT_MILLIS
                    + " ms (PostgreSQL's lock_timeout maximum), was " + value);
        }
        return value;
    }

    /**
     * The lock timeout actually sent to PostgreSQL: whole milliseconds, a fraction rounded up, at least 1 ms, so the
     * wait is never shorter than asked and never 0 ("no timeout").
     *
     * @param validated a timeout accepted by {@link #requireLockTimeout(Duration, String)}
     * @return the effective timeout
     */
    public static Duration effectiveLockTimeout(Duration validated) {
        long millis = validated.toMillis();
        if (validated.compareTo(Duration.ofMillis(millis)) > 0) {
            millis++;
        }
        return Duration.ofMillis(Math.max(1, millis));
    }
}
