package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

final class BenchOptionsUnitTests {

    @Nested
    final class Scenarios {

        @Test
        void shouldAcceptEveryScenarioByNameAndNumber() {
            assertThat(BenchOptions.parse("throughput").scenario()).isEqualTo(ScenarioName.THROUGHPUT);
            assertThat(BenchOptions.parse("2").scenario()).isEqualTo(ScenarioName.PINNED_HORIZON);
            assertThat(BenchOptions.parse("prune-cost").scenario()).isEqualTo(ScenarioName.PRUNE_COST);
            assertThat(BenchOptions.parse("4").scenario()).isEqualTo(ScenarioName.CLAIM_LATENCY);
            assertThat(BenchOptions.parse("Lookup-Pressure").scenario()).isEqualTo(ScenarioName.LOOKUP_PRESSURE);
            assertThat(BenchOptions.parse("6").scenario()).isEqualTo(ScenarioName.MAINTENANCE_OVERHEAD);
            assertThat(BenchOptions.parse("all").scenario()).isEqualTo(ScenarioName.ALL);
            assertThat(BenchOptions.parse("plot").scenario()).isEqualTo(ScenarioName.PLOT);
        }

        @Test
        void shouldRejectAnUnknownScenario() {
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("speed"))
                    .withMessageStartingWith("unknown scenario 'speed'; expected one of throughput (1)");
        }

        @Test
        void shouldRejectAMissingOrSecondScenario() {
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("--workers", "2"))
                    .withMessage("no scenario given; see --help");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "2"))
                    .withMessage("unexpected argument '2': one scenario per command; see --help");
        }

        @Test
        void shouldTreatHelpAsNeedingNoScenario() {
            assertThat(BenchOptions.parse("--help").help()).isTrue();
            assertThat(BenchOptions.parse("throughput", "-h").help()).isTrue();
        }

        @Test
        void shouldUseEachScenariosDefaultDuration() {
            BenchOptions options = BenchOptions.parse("all");
            assertThat(options.duration(ScenarioName.THROUGHPUT)).isEqualTo(Duration.ofSeconds(60));
            assertThat(options.duration(ScenarioName.PINNED_HORIZON)).isEqualTo(Duration.ofSeconds(90));
            assertThat(options.duration(ScenarioName.CLAIM_LATENCY)).isEqualTo(Duration.ofSeconds(30));
            assertThat(BenchOptions.parse("all", "--duration", "5s").duration(ScenarioName.THROUGHPUT))
                    .isEqualTo(Duration.ofSeconds(5));
        }
    }

    @Nested
    final class Flags {

        @Test
        void shouldHaveTheDocumentedDefaults() {
            BenchOptions options = BenchOptions.parse("throughput");
            assertThat(options.systems()).containsExactly("awa-reactive", "baseline");
            assertThat(options.warmup()).isEqualTo(Duration.ofSeconds(5));
            assertThat(options.jvmWarmup()).isEqualTo(Duration.ofSeconds(30));
            assertThat(BenchOptions.parse("1", "--jvm-warmup", "0s").jvmWarmup()).isZero();
            assertThat(options.settle()).isEqualTo(Duration.ofSeconds(11));
            assertThat(BenchOptions.parse("1", "--settle", "0s").settle()).isZero();
            assertThat(options.workers()).isEqualTo(4);
            assertThat(options.producers()).isEqualTo(1);
            assertThat(options.claimBatch()).isEqualTo(10);
            assertThat(options.enqueueBatch()).isEqualTo(50);
            assertThat(options.backlog()).isEqualTo(2000);
            assertThat(options.payloadBytes()).isEqualTo(256);
            assertThat(options.enqueueShards()).isEqualTo(4);
            assertThat(BenchOptions.parse("1", "--workers", "2").enqueueShards()).isEqualTo(2);
            assertThat(options.lockTimeout()).isEqualTo(Duration.ofMillis(10));
            assertThat(options.rollupInterval()).isEqualTo(Duration.ofSeconds(30));
            assertThat(BenchOptions.parse("1", "--rollup-interval", "2s").rollupInterval())
                    .isEqualTo(Duration.ofSeconds(2));
            assertThat(options.statementsInFlight()).isEqualTo(1);
            assertThat(BenchOptions.parse("1", "--statements-in-flight", "2").statementsInFlight()).isEqualTo(2);
            assertThat(options.lockTimeouts()).containsExactly(Duration.ofMillis(10), Duration.ofMillis(100),
                    Duration.ofSeconds(1));
            assertThat(options.rows()).containsExactly(10_000, 100_000, 1_000_000);
            assertThat(options.pruneTimeout()).isEqualTo(Duration.ofMinutes(5));
            assertThat(options.rates()).containsExactly(0, 250, 1000, 4000);
            assertThat(options.lookupModes()).containsExactly("api", "parent");
            assertThat(options.rotateInterval(ScenarioName.THROUGHPUT)).isEqualTo(Duration.ofSeconds(1));
            assertThat(options.rotateInterval(ScenarioName.LOOKUP_PRESSURE)).isEqualTo(Duration.ofMillis(250));
            assertThat(options.url()).isNull();
            assertThat(options.out(Path.of("/x"))).isEqualTo(Path.of("/x/target/bench-results"));
        }

        @Test
        void shouldReadAListOfWorkerCountsAsTheSweepAndItsFirstAsTheWorkerCount() {
            BenchOptions options = BenchOptions.parse("throughput", "--workers", "4, 16,64");
            assertThat(options.workerCounts()).containsExactly(4, 16, 64);
            assertThat(options.workers()).isEqualTo(4);
            assertThat(options.enqueueShards(64)).isEqualTo(64);
            assertThat(options.enqueueShards(16)).isEqualTo(16);
            assertThat(BenchOptions.parse("throughput", "--workers", "100").enqueueShards()).isEqualTo(64);
            assertThat(BenchOptions.parse("throughput", "--workers", "4,16", "--enqueue-shards", "8")
                    .enqueueShards(16)).isEqualTo(8);
            assertThat(BenchOptions.parse("throughput").workerCounts()).containsExactly(4);
        }

        @Test
        void shouldRejectAWorkerListWithABadOrRepeatedCount() {
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--workers", "4,x"))
                    .withMessage("--workers must be a positive integer, was x");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--workers", "4,0"))
                    .withMessage("--workers must be a positive integer, was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--workers", "4,16,4"))
                    .withMessage("--workers lists 4 twice, was 4,16,4");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--workers", ","))
                    .withMessage("--workers must not be empty, was ','");
        }

        @Test
        void shouldReadFlagsWithASpaceOrAnEqualsSign() {
            BenchOptions options = BenchOptions.parse("claim-latency", "--workers=2", "--lock-timeouts", "5ms, 1.5s",
                    "--systems", "baseline", "--out", "results", "--rows=1_000");
            assertThat(options.workers()).isEqualTo(2);
            assertThat(options.lockTimeouts()).containsExactly(Duration.ofMillis(5), Duration.ofMillis(1500));
            assertThat(options.systems()).containsExactly("baseline");
            assertThat(options.measures("awa-reactive")).isFalse();
            assertThat(options.out(Path.of("/base"))).isEqualTo(Path.of("/base/results"));
            assertThat(options.rows()).containsExactly(1000);
            assertThat(options.arguments()).contains("--workers=2");
        }

        @Test
        void shouldParseDurationsInEveryUnitAndIso() {
            assertThat(BenchOptions.parseDuration("d", "250ms", false)).isEqualTo(Duration.ofMillis(250));
            assertThat(BenchOptions.parseDuration("d", "2m", false)).isEqualTo(Duration.ofMinutes(2));
            assertThat(BenchOptions.parseDuration("d", "1h", false)).isEqualTo(Duration.ofHours(1));
            assertThat(BenchOptions.parseDuration("d", "0.5s", false)).isEqualTo(Duration.ofMillis(500));
            assertThat(BenchOptions.parseDuration("d", "PT3S", false)).isEqualTo(Duration.ofSeconds(3));
            assertThat(BenchOptions.parseDuration("d", "0s", true)).isZero();
        }

        @Test
        void shouldNameFlagRuleAndValueOfABadValue() {
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--workers", "0"))
                    .withMessage("--workers must be a positive integer, was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--duration", "soon"))
                    .withMessage("--duration must be a positive duration like 500ms, 30s or 2m, was soon");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--rollup-interval", "0s"))
                    .withMessage("--rollup-interval must be a positive duration like 500ms, 30s or 2m, was 0s");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> BenchOptions.parse("1", "--statements-in-flight", "0"))
                    .withMessage("--statements-in-flight must be a positive integer, was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--warmup", "-1s"))
                    .withMessage("--warmup must be a duration like 500ms, 30s or 2m, was -1s");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--jvm-warmup", "later"))
                    .withMessage("--jvm-warmup must be a duration like 500ms, 30s or 2m, was later");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--settle", "soon"))
                    .withMessage("--settle must be a duration like 500ms, 30s or 2m, was soon");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--systems", "pgmq"))
                    .withMessage("--systems must list awa-reactive and/or baseline, was pgmq");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("5", "--count-share", "2"))
                    .withMessage("--count-share must be a number between 0 and 1, was 2");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("5", "--rates", "10,-1"))
                    .withMessage("--rates must list integers >= 0, was 10,-1");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("5", "--lookup-modes", "scan"))
                    .withMessage("--lookup-modes must list api and/or parent, was scan");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--enqueue-shards", "65"))
                    .withMessage("--enqueue-shards must be between 1 and 64, was 65");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("3", "--rows", ","))
                    .withMessage("--rows must not be empty, was ','");
        }

        @Test
        void shouldRejectAnUnknownFlagOrAMissingValue() {
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--speed", "2"))
                    .withMessage("unknown flag --speed; see --help");
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--workers"))
                    .withMessage("--workers needs a value; see --help");
        }

        @Test
        void shouldAcknowledgeEachJobAloneUnlessAskedToBatch() {
            assertThat(BenchOptions.parse("1").batchedAcks()).isFalse();
            assertThat(BenchOptions.parse("1", "--acks", "each").batchedAcks()).isFalse();
            assertThat(BenchOptions.parse("1", "--acks", "batch").batchedAcks()).isTrue();
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--acks", "some"))
                    .withMessage("--acks must be each or batch, was some");
        }

        @Test
        void shouldHandOutTheMostRecentlyReleasedConnectionUnlessAskedToSpreadTheWork() {
            assertThat(BenchOptions.parse("1").mostRecentlyUsedFirst()).isTrue();
            assertThat(BenchOptions.parse("1", "--pool-order", "mru").mostRecentlyUsedFirst()).isTrue();
            assertThat(BenchOptions.parse("1", "--pool-order", "lru").mostRecentlyUsedFirst()).isFalse();
            assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("1", "--pool-order", "fifo"))
                    .withMessage("--pool-order must be mru or lru, was fifo");
        }

        @Test
        void shouldListEveryScenarioAndFlagInTheHelp() {
            String usage = BenchOptions.usage();
            for (ScenarioName name : ScenarioName.values()) {
                assertThat(usage).contains(name.cliName());
            }
            for (BenchOptions.Flag flag : BenchOptions.FLAGS) {
                assertThat(usage).contains("--" + flag.name() + " " + flag.argument());
            }
            assertThat(List.of(usage.split("\n"))).anyMatch(line -> line.startsWith("  throughput (1)"));
        }
    }
}
