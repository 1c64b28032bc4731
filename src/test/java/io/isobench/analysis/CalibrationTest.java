package io.isobench.analysis;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The calibration of bench/stats-calibration at 2,000 sessions per cell (the bench runs 10,000): every target holds,
 * so a change to the planner or the analysis that breaks one fails CI, not only the bench.
 */
class CalibrationTest {

    @Test
    void everyTargetHoldsAt2000SessionsPerCell() {
        List<Calibration.Row> rows = Calibration.run(Calibration.standardCells(), 2_000, 20261126L,
                StatsConfig.defaults());
        String table = Calibration.table(rows, 2_000, 20261126L);
        assertThat(rows.stream().filter(r -> !r.met()).map(r -> r.cell().name()).toList()).as(table).isEmpty();
        assertThat(table).contains("every target met", "P(better or worse)", "P(equivalent)", "max |pos freq - 1/k|");
    }

    @Test
    void theSimulationSeesWhatItPlants() {
        // a 20 % speedup at CV 1 % is found nearly always, within a look or two; with 2 fixed rounds never (too few)
        SimulatedSession.Scenario big = SimulatedSession.Scenario.of(1.2, 1).agent(1.2);
        Calibration.Cell found = new Calibration.Cell("big", big, SequentialDesign.defaultAdaptive(),
                Calibration.Measure.BETTER, Calibration.Target.NONE);
        Calibration.Cell rounds = new Calibration.Cell("rounds", big, SequentialDesign.defaultAdaptive(),
                Calibration.Measure.ROUNDS, Calibration.Target.NONE);
        Calibration.Cell few = new Calibration.Cell("few", big, SequentialDesign.fixed(2), Calibration.Measure.BETTER,
                Calibration.Target.NONE);
        List<Calibration.Row> rows = Calibration.run(List.of(found, rounds, few), 500, 7L, StatsConfig.defaults());
        assertThat(rows.get(0).rate()).isGreaterThan(0.99);
        assertThat(rows.get(1).rate()).as("mean rounds").isBetween(3.0, 4.5); // of up to 8
        assertThat(rows.get(2).rate()).isZero();
        double[] w = Calibration.wilson(50, 1000);
        assertThat(w[0]).isBetween(0.037, 0.039);
        assertThat(w[1]).isBetween(0.065, 0.066);
    }
}
