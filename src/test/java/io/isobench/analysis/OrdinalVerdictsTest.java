package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The sign-test verdicts on an ordinal metric (a sweep's capacity), on capacities written by hand. */
class OrdinalVerdictsTest {

    private static Map<Integer, Double> rounds(double... v) {
        Map<Integer, Double> m = new TreeMap<>();
        for (int i = 0; i < v.length; i++) {
            m.put(i, v[i]);
        }
        return m;
    }

    /** On the grid 1, 2, 4, 8 (step 2), fixed rounds. */
    private static Comparison humanVsBaseline(double[] base, double[] human) {
        return humanVsBaseline(base, human, 2.0, SequentialDesign.fixed(base.length));
    }

    private static Comparison humanVsBaseline(double[] base, double[] human, double gridStep, SequentialDesign d) {
        Map<String, Map<Integer, Double>> perRound = new LinkedHashMap<>();
        perRound.put("baseline", rounds(base));
        perRound.put("human", rounds(human));
        TaskAnalysis.Input in = new TaskAnalysis.Input("capacity_max_concurrency", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, base), null, ArmSamples.of(Arm.HUMAN, human), List.of(), List.of());
        return SweepAnalysis.ordinalReplay(in, perRound, gridStep, d, base.length, StatsConfig.defaults())
                .humanVsBaseline();
    }

    @Test
    void signTestP() {
        assertThat(OrdinalVerdicts.signTestP(6, 0)).isCloseTo(2.0 / 64, within(1e-12));
        assertThat(OrdinalVerdicts.signTestP(5, 0)).isCloseTo(2.0 / 32, within(1e-12));
        // 5 of 6 one way: 2 · (6 + 1) / 64
        assertThat(OrdinalVerdicts.signTestP(5, 1)).isCloseTo(14.0 / 64, within(1e-12));
        assertThat(OrdinalVerdicts.signTestP(0, 0)).isEqualTo(1.0);
        assertThat(OrdinalVerdicts.signTestP(3, 3)).isEqualTo(1.0);
    }

    @Test
    void oneGridStepInOneRoundNoLongerHidesAClearCapacityGain() {
        // the t interval's CV gate calls this noisy (one round's ratio 8 among 4s); the sign test sees 6 of 6 higher
        Comparison c = humanVsBaseline(new double[] {1, 1, 1, 1, 1, 1}, new double[] {4, 4, 8, 4, 4, 4});
        assertThat(c.verdict()).as(c.reason()).isEqualTo(Verdict.BETTER);
        assertThat(c.reason()).contains("6 higher, 0 lower, 0 tied, p = 0.03125").contains("median ratio 4.0000");
        // an ordinal metric keeps no t interval: nothing that looks measured is stored or exported
        assertThat(c.variance()).isEqualTo(Comparison.Variance.ORDINAL);
        assertThat(c.ciLowSpeedup()).isNull();
        assertThat(c.ciHighSpeedup()).isNull();
        assertThat(c.equivLowSpeedup()).isNull();
        assertThat(c.toMap()).containsEntry("ci_level", null).containsEntry("variance", "ordinal");
        // worse the other way
        assertThat(humanVsBaseline(new double[] {4, 4, 4, 4, 4, 4}, new double[] {2, 2, 1, 2, 2, 2}).verdict())
                .isEqualTo(Verdict.WORSE);
    }

    @Test
    void fiveAgreeingRoundsAreTooFewAndMixedRoundsAreNotClear() {
        Comparison five = humanVsBaseline(new double[] {1, 1, 1, 1, 1}, new double[] {4, 4, 4, 4, 4});
        assertThat(five.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(five.inconclusiveReason()).isEqualTo(InconclusiveReason.TOO_FEW_ROUNDS);
        Comparison mixed = humanVsBaseline(new double[] {4, 4, 4, 4, 4, 4, 4, 4}, new double[] {8, 4, 8, 2, 8, 4, 8, 8});
        assertThat(mixed.verdict()).as(mixed.reason()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(mixed.inconclusiveReason()).isEqualTo(InconclusiveReason.WIDE_CI);
        assertThat(mixed.reason()).contains("5 higher, 1 lower, 2 tied");
    }

    @Test
    void theSamePointIsNeverEquivalentAcrossAGridStep() {
        // a true 1.5x gain on a grid of doublings lands on the same point: that says "less than one step", not
        // "within the 2 % margin"
        Comparison six = humanVsBaseline(new double[] {4, 4, 4, 4, 4, 4}, new double[] {4, 4, 4, 4, 4, 4});
        assertThat(six.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(six.inconclusiveReason()).isEqualTo(InconclusiveReason.BELOW_RESOLUTION);
        assertThat(six.verdictText()).isEqualTo("inconclusive: below the sweep's resolution");
        assertThat(six.reason()).contains("step (x2)");
        // a grid finer than the margin: the same point in every one of >= 6 rounds is equivalent
        Comparison fine = humanVsBaseline(new double[] {4, 4, 4, 4, 4, 4}, new double[] {4, 4, 4, 4, 4, 4}, 1.01,
                SequentialDesign.fixed(6));
        assertThat(fine.verdict()).as(fine.reason()).isEqualTo(Verdict.EQUIVALENT);
        assertThat(fine.reason()).contains("the same point in every round");
        assertThat(humanVsBaseline(new double[] {4, 4, 4, 4, 4}, new double[] {4, 4, 4, 4, 4}, 1.01,
                SequentialDesign.fixed(5)).verdict()).isEqualTo(Verdict.INCONCLUSIVE);
    }

    @Test
    void adaptiveRoundsUseTheSequentialSignLevel_andStopWhenNothingCanDecide() {
        // looking after every round up to 8: the largest level whose sequential error stays within 5 % is 1/32
        assertThat(OrdinalVerdicts.sequentialLevel(8, 0.05)).isCloseTo(1.0 / 32, within(1e-12));
        assertThat(OrdinalVerdicts.sequentialError(8, 1.0 / 32)).isCloseTo(1.0 / 32, within(1e-12));
        for (int max = 3; max <= 16; max++) {
            double a = OrdinalVerdicts.sequentialLevel(max, 0.05);
            assertThat(OrdinalVerdicts.sequentialError(max, a)).as("max " + max).isLessThanOrEqualTo(0.05 + 1e-12);
        }
        SequentialDesign d = SequentialDesign.defaultAdaptive();
        double[] base = {1, 1, 1, 1, 1, 1, 1, 1};
        Comparison gain = humanVsBaseline(base, new double[] {4, 4, 8, 4, 4, 4, 4, 4}, 2.0, d);
        assertThat(gain.verdict()).isEqualTo(Verdict.BETTER);
        assertThat(gain.read().rounds()).isEqualTo(6);
        // three tied rounds of a coarse grid: no continuation to 8 rounds could reach the level (5-0 gives 0.0625)
        Map<String, Map<Integer, Double>> perRound = new LinkedHashMap<>();
        double[] four = {4, 4, 4, 4, 4, 4, 4, 4};
        perRound.put("baseline", rounds(four));
        perRound.put("human", rounds(four));
        TaskAnalysis t = SweepAnalysis.ordinalReplay(new TaskAnalysis.Input("capacity_max_concurrency", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, four), null, ArmSamples.of(Arm.HUMAN, four), List.of(), List.of()),
                perRound, 2.0, d, 8, StatsConfig.defaults());
        assertThat(t.stopping().lookRounds()).isEqualTo(3);
        assertThat(t.humanVsBaseline().inconclusiveReason()).isEqualTo(InconclusiveReason.BELOW_RESOLUTION);
        assertThat(t.humanVsBaseline().reason()).contains("no outcome of the remaining 5 round(s) could decide it");
    }

    @Test
    void tooFewValidPairsStayAsTheSharedRulesSaid() {
        Comparison c = humanVsBaseline(new double[] {1, 1}, new double[] {4, 4});
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.reason()).contains("valid paired rounds (< 3)");
    }
}
