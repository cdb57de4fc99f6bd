package io.awareactive.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * One system as a run measures it: which queue ({@code awa-reactive} or {@code baseline}) and how its workers
 * acknowledge completed jobs, with the name it has in time series and plots and the column it fills in
 * {@code summary.csv}.
 *
 * @param system {@link AwaQueue#LABEL} or {@link BaselineQueue#LABEL}
 * @param batchedAcks whether a claimed batch's completions share one transaction
 * @param name the name in {@code timeseries.csv}, {@code per_minute.csv}, plots and logs
 * @param column the summary column ({@code awa_reactive}, or one starting with {@code baseline})
 */
record Contender(String system, boolean batchedAcks, String name, String column) {

    /** awa-reactive completing each claimed batch with {@code completeAll}. */
    static final Contender AWA_BATCHED = new Contender(AwaQueue.LABEL, true, AwaQueue.LABEL, "awa_reactive");

    /** The baseline with one {@code DELETE} transaction per job (what db-scheduler and JobRunr do). */
    static final Contender BASELINE_EACH_ACK = new Contender(BaselineQueue.LABEL, false, "baseline-each-ack",
            "baseline_each_ack");

    /** The baseline with one {@code DELETE ... WHERE id = ANY($1)} transaction per claimed batch. */
    static final Contender BASELINE_BATCHED_ACK = new Contender(BaselineQueue.LABEL, true, "baseline-batched-ack",
            "baseline_batched_ack");

    /**
     * A system acknowledging as {@code --acks} says, under its own name (the scenarios with one baseline column).
     *
     * @param system {@link AwaQueue#LABEL} or {@link BaselineQueue#LABEL}
     * @param batchedAcks the {@code --acks} mode
     */
    static Contender of(String system, boolean batchedAcks) {
        return new Contender(system, batchedAcks, system, system.equals(AwaQueue.LABEL) ? "awa_reactive" : "baseline");
    }

    /** Whether this is awa-reactive (the summary's first figure column). */
    boolean isAwa() {
        return system.equals(AwaQueue.LABEL);
    }

    /**
     * The contenders of the throughput and pinned-horizon scenarios among the systems of {@code --systems}:
     * awa-reactive with batched completion, then the baseline acknowledging each job, then the batched baseline.
     *
     * @param options the command line
     */
    static List<Contender> withBothBaselines(BenchOptions options) {
        List<Contender> contenders = new ArrayList<>();
        for (Contender contender : List.of(AWA_BATCHED, BASELINE_EACH_ACK, BASELINE_BATCHED_ACK)) {
            if (options.measures(contender.system())) {
                contenders.add(contender);
            }
        }
        return contenders;
    }

    /** The summary columns of the baselines among {@link #withBothBaselines}, whether measured or not. */
    static List<String> bothBaselineColumns() {
        return List.of(BASELINE_EACH_ACK.column(), BASELINE_BATCHED_ACK.column());
    }
}
