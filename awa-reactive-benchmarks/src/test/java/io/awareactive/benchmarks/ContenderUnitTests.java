package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class ContenderUnitTests {

    @Test
    void shouldRunAwaBatchedAgainstBothBaselinesByDefault() {
        assertThat(Contender.withBothBaselines(BenchOptions.parse("throughput")))
                .containsExactly(Contender.AWA_BATCHED, Contender.BASELINE_EACH_ACK, Contender.BASELINE_BATCHED_ACK);
        assertThat(Contender.AWA_BATCHED.batchedAcks()).isTrue();
        assertThat(Contender.BASELINE_EACH_ACK.batchedAcks()).isFalse();
        assertThat(Contender.BASELINE_BATCHED_ACK.batchedAcks()).isTrue();
    }

    @Test
    void shouldKeepOnlyTheSystemsOfTheCommandLine() {
        assertThat(Contender.withBothBaselines(BenchOptions.parse("throughput", "--systems", "baseline")))
                .containsExactly(Contender.BASELINE_EACH_ACK, Contender.BASELINE_BATCHED_ACK);
        assertThat(Contender.withBothBaselines(BenchOptions.parse("throughput", "--systems", "awa-reactive")))
                .containsExactly(Contender.AWA_BATCHED);
    }

    @Test
    void shouldNameEveryBaselineColumnWithTheBaselinePrefix() {
        assertThat(Contender.bothBaselineColumns()).containsExactly("baseline_each_ack", "baseline_batched_ack");
        assertThat(Contender.of("baseline", true).column()).isEqualTo("baseline");
        assertThat(Contender.of("awa-reactive", false).column()).isEqualTo("awa_reactive");
    }

    @Test
    void shouldReadTheWorkerCountBackFromAThroughputCase() {
        assertThat(ThroughputScenario.caseName(16)).isEqualTo("closed loop, 16 workers");
        assertThat(ThroughputScenario.workersOf(ThroughputScenario.caseName(64))).isEqualTo(64);
        assertThat(ThroughputScenario.workersOf("closed loop")).isEqualTo(-1);
    }
}
