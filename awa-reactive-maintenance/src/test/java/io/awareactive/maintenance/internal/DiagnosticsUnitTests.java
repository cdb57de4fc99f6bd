package io.awareactive.maintenance.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.awareactive.maintenance.StartupWarning;
import io.awareactive.maintenance.StartupWarning.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class DiagnosticsUnitTests {

    @Test
    void shouldParsePostgresTimeUnits() {
        assertThat(Diagnostics.parseMillis("10ms", "ms")).isEqualTo(10);
        assertThat(Diagnostics.parseMillis("10", "ms")).isEqualTo(10);
        assertThat(Diagnostics.parseMillis("1", "s")).isEqualTo(1_000);
        assertThat(Diagnostics.parseMillis("1500us", "ms")).isEqualTo(2);
        assertThat(Diagnostics.parseMillis("2s", "ms")).isEqualTo(2_000);
        assertThat(Diagnostics.parseMillis("1.5s", "ms")).isEqualTo(1_500);
        assertThat(Diagnostics.parseMillis("3min", "ms")).isEqualTo(180_000);
        assertThat(Diagnostics.parseMillis("1h", "ms")).isEqualTo(3_600_000);
        assertThat(Diagnostics.parseMillis("1d", "ms")).isEqualTo(86_400_000);
        assertThat(Diagnostics.parseMillis("'5ms'", "ms")).isEqualTo(5);
        assertThat(Diagnostics.parseMillis("0", "ms")).isZero();
        assertThat(Diagnostics.parseMillis("5 weeks", "ms")).isNull();
        assertThat(Diagnostics.parseMillis("on", "ms")).isNull();
    }

    @Test
    void shouldResolveOverridesInPostgresPrecedenceOrder() {
        Diagnostics.RoleSettingRow allRoles = new Diagnostics.RoleSettingRow(false, false,
                List.of("statement_timeout=1s", "deadlock_timeout=2s", "transaction_timeout=9s"));
        Diagnostics.RoleSettingRow database = new Diagnostics.RoleSettingRow(true, false,
                List.of("statement_timeout=10ms", "deadlock_timeout=5ms"));
        Diagnostics.RoleSettingRow role = new Diagnostics.RoleSettingRow(false, true,
                List.of("statement_timeout=0", "search_path=x"));
        Diagnostics.RoleSettingRow roleInDatabase = new Diagnostics.RoleSettingRow(true, true,
                List.of("deadlock_timeout=3s"));

        Map<String, Diagnostics.Override> resolved = Diagnostics.resolve(List.of(allRoles, database, role,
                roleInDatabase));

        assertThat(resolved).containsOnlyKeys("statement_timeout", "deadlock_timeout", "transaction_timeout");
        assertThat(resolved.get("statement_timeout")).isEqualTo(new Diagnostics.Override(0, "ALTER ROLE"));
        assertThat(resolved.get("deadlock_timeout"))
                .isEqualTo(new Diagnostics.Override(3_000, "ALTER ROLE ... IN DATABASE"));
        assertThat(resolved.get("transaction_timeout")).isEqualTo(new Diagnostics.Override(9_000, "ALTER ROLE ALL"));
        assertThat(Diagnostics.resolve(List.of(allRoles, database)).get("statement_timeout"))
                .isEqualTo(new Diagnostics.Override(10, "ALTER DATABASE"));
    }

    @Test
    void shouldWarnWhenTheLockTimeoutReachesATimeout() {
        List<StartupWarning> warnings = Diagnostics.evaluate(10, Map.of("deadlock_timeout", 5L,
                "statement_timeout", 10L, "transaction_timeout", 10L), Map.of(), true);

        assertThat(warnings).extracting(StartupWarning::kind).containsExactly(
                Kind.LOCK_TIMEOUT_NOT_BELOW_DEADLOCK_TIMEOUT, Kind.LOCK_TIMEOUT_NOT_BELOW_STATEMENT_TIMEOUT,
                Kind.LOCK_TIMEOUT_NOT_BELOW_TRANSACTION_TIMEOUT);
        assertThat(warnings.get(0).message()).startsWith("the prune lock timeout (10 ms) is not below"
                + " deadlock_timeout (5 ms as the maintenance connection sees it)");
    }

    @Test
    void shouldWarnOnAnOverrideForNewConnectionsEvenWhenThisSessionDiffers() {
        List<StartupWarning> warnings = Diagnostics.evaluate(10, Map.of("deadlock_timeout", 1000L,
                "statement_timeout", 0L), Map.of("statement_timeout", new Diagnostics.Override(10, "ALTER DATABASE")),
                true);

        assertThat(warnings).extracting(StartupWarning::kind)
                .containsExactly(Kind.LOCK_TIMEOUT_NOT_BELOW_STATEMENT_TIMEOUT);
        assertThat(warnings.get(0).message()).contains("10 ms for new connections, set by ALTER DATABASE");
    }

    @Test
    void shouldNotWarnForDisabledOrLargerTimeoutsOrUnreadableSettings() {
        assertThat(Diagnostics.evaluate(10, Map.of("deadlock_timeout", 1000L, "statement_timeout", 0L,
                "transaction_timeout", 0L), Map.of(), true)).isEmpty();
        assertThat(Diagnostics.evaluate(10, Map.of("deadlock_timeout", 11L, "statement_timeout", 11L), Map.of(),
                true)).isEmpty();
        assertThat(Diagnostics.evaluate(10, null, null, null)).isEmpty();
    }

    @Test
    void shouldWarnWhenTheRoleCannotReadAllStats() {
        assertThat(Diagnostics.evaluate(10, Map.of(), Map.of(), false)).extracting(StartupWarning::kind)
                .containsExactly(Kind.MISSING_READ_ALL_STATS);
    }
}
