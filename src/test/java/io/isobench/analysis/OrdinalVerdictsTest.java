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

    private static Comparison humanVsBaseline(double[] base, double[] human) {
        Map<String, Map<Integer, Double>> perRound = new LinkedHashMap<>();
        perRound.put("baseline", rounds(base));
        perRound.put("human", rounds(human));
        TaskAnalysis t = TaskAnalysis.analyse(new TaskAnalysis.Input("capacity_max_concurrency", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, base), null, ArmSamples.of(Arm.HUMAN, human), List.of(), List.of()),
                StatsConfig.defaults());
        return OrdinalVerdicts.apply(t, perRound, StatsConfig.defaults()).humanVsBaseline();
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
    void theSamePointInEnoughRoundsIsEquivalentAtTheSweepsResolution() {
        Comparison six = humanVsBaseline(new double[] {4, 4, 4, 4, 4, 4}, new double[] {4, 4, 4, 4, 4, 4});
        assertThat(six.verdict()).isEqualTo(Verdict.EQUIVALENT);
        assertThat(six.reason()).contains("the same point in every round");
        assertThat(humanVsBaseline(new double[] {4, 4, 4, 4, 4}, new double[] {4, 4, 4, 4, 4}).verdict())
                .isEqualTo(Verdict.INCONCLUSIVE);
    }

    @Test
    void tooFewValidPairsStayAsTheSharedRulesSaid() {
        Comparison c = humanVsBaseline(new double[] {1, 1, 1}, new double[] {4, 4, 4});
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.reason()).contains("valid paired rounds (< 5)");
    }
}
