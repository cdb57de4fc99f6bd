package io.awareactive.benchmarks;

/** One benchmark scenario: runs its cases against the selected systems and reports the figures. */
interface Scenario {

    /**
     * Runs the scenario.
     *
     * @param context options, database, output
     * @return the figures (not yet written or printed)
     */
    Report run(BenchContext context);

    /** The scenario implementing a name. */
    static Scenario of(ScenarioName name) {
        return switch (name) {
            case THROUGHPUT -> new ThroughputScenario();
            case PINNED_HORIZON -> new PinnedHorizonScenario();
            case PRUNE_COST -> new PruneCostScenario();
            case CLAIM_LATENCY -> new ClaimLatencyScenario();
            case LOOKUP_PRESSURE -> new LookupPressureScenario();
            case MAINTENANCE_OVERHEAD -> new MaintenanceOverheadScenario();
            case ALL, PLOT -> throw new IllegalArgumentException(name.cliName() + " is not a measuring scenario");
        };
    }

    /** The schema a system uses in a scenario: {@code bench_<scenario>_<system>}. */
    static String schema(ScenarioName scenario, String system) {
        return "bench_" + scenario.cliName().replace('-', '_') + "_"
                + (system.equals(AwaQueue.LABEL) ? "awa" : "base");
    }
}
