package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The group-sequential design (docs/statistics.md §20): the spending functions, the nominal levels the calibrating
 * simulation gives each look (checked against an independent simulation of the paired t sequence with another seed),
 * their storage, and the replay of the looks over a task's rounds.
 */
class SequentialDesignTest {

    private static final StatsConfig CFG = StatsConfig.defaults();

    @Test
    void spendingFunctionsSpendTheWholeErrorByTheLastLook() {
        for (SequentialDesign.Spending s : SequentialDesign.Spending.values()) {
            assertThat(s.spent(1.0, 0.05)).isEqualTo(0.05);
            double prev = 0;
            for (int i = 1; i < 10; i++) {
                double t = i / 10.0;
                double a = s.spent(t, 0.05);
                assertThat(a).as(s + " at " + t).isGreaterThan(prev).isLessThan(0.05);
                prev = a;
            }
        }
        // O'Brien-Fleming-type spends little early: 2 - 2 Phi(1.95996 / sqrt(3/8)) = 0.0013713806699 (scipy); Pocock half
        assertThat(SequentialDesign.Spending.OBRIEN_FLEMING.spent(3.0 / 8, 0.05)).isCloseTo(0.0013713806699231501, within(1e-10));
        assertThat(SequentialDesign.Spending.POCOCK.spent(3.0 / 8, 0.05)).isCloseTo(
                0.05 * Math.log(1 + (Math.E - 1) * 0.375), within(1e-12));
    }

    @Test
    void theNominalLevelsSpendAlphaOnAnIndependentSimulation() {
        SequentialDesign d = SequentialDesign.defaultAdaptive();
        List<SequentialDesign.Look> looks = d.looks(0.95);
        assertThat(looks).extracting(SequentialDesign.Look::rounds).containsExactly(3, 4, 5, 6, 7, 8);
        // O'Brien-Fleming-type: the levels grow look by look; the last is below the fixed design's 5 %
        for (int i = 1; i < looks.size(); i++) {
            assertThat(looks.get(i).efficacyLevel()).isGreaterThan(looks.get(i - 1).efficacyLevel());
        }
        assertThat(looks.get(looks.size() - 1).efficacyLevel()).isBetween(0.02, 0.05);
        // an independent simulation (another seed) of standard normal pairs under no effect: the chance that some
        // look's repeated CI excludes 0 is the alpha spent, 5 %, and its equivalence interval's is 10 %
        double[] errors = sequentialError(looks, 200_000, 99L);
        assertThat(errors[0]).isCloseTo(0.05, within(0.003));
        assertThat(errors[1]).isCloseTo(0.10, within(0.004));
    }

    /** P(some look's two-sided test rejects at its nominal level): [efficacy, equivalence]. */
    private static double[] sequentialError(List<SequentialDesign.Look> looks, int paths, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int max = looks.get(looks.size() - 1).rounds();
        int rejE = 0;
        int rejQ = 0;
        for (int p = 0; p < paths; p++) {
            double sum = 0;
            double sq = 0;
            boolean e = false;
            boolean q = false;
            int n = 0;
            for (SequentialDesign.Look l : looks) {
                while (n < l.rounds()) {
                    double z = rng.nextGaussian();
                    sum += z;
                    sq += z * z;
                    n++;
                }
                double mean = sum / n;
                double t = Math.abs(mean) / Math.sqrt((sq - n * mean * mean) / (n - 1) / n);
                e |= t > Distributions.tQuantile(1 - l.efficacyLevel() / 2, n - 1);
                q |= t > Distributions.tQuantile(1 - l.equivalenceLevel() / 2, n - 1);
            }
            rejE += e ? 1 : 0;
            rejQ += q ? 1 : 0;
            assertThat(n).isEqualTo(max);
        }
        return new double[] {(double) rejE / paths, (double) rejQ / paths};
    }

    @Test
    void aFixedDesignHasOneLookAtTheMethodsConfidence() {
        SequentialDesign f = SequentialDesign.fixed(5);
        assertThat(f.adaptive()).isFalse();
        assertThat(f.looks(0.95)).containsExactly(new SequentialDesign.Look(5, 1 - 0.95, 2 * (1 - 0.95)));
        assertThat(f.lookAt(4, 0.95).rounds()).isEqualTo(4);
        assertThat(LookLevels.of(f, 5, CFG).interim()).isFalse();
        assertThat(LookLevels.of(f, 5, CFG).ciConfidence()).isCloseTo(0.95, within(1e-12));
    }

    @Test
    void theStoredLooksWinAndRoundTrip() {
        SequentialDesign d = SequentialDesign.adaptive(3, 6, SequentialDesign.Spending.POCOCK).withFutility(0.2)
                .withGating(EnumSet.of(SequentialDesign.Gate.HUMAN));
        Map<String, Object> m = d.toMap(0.95);
        assertThat(m).containsEntry("rounds", "adaptive").containsEntry("spending", "pocock")
                .containsEntry("futility_conditional_power", 0.2).containsEntry("gating", List.of("human"));
        SequentialDesign back = SequentialDesign.fromMap(m);
        assertThat(back.looks(0.95)).isEqualTo(d.looks(0.95));
        assertThat(back.gating()).containsExactly(SequentialDesign.Gate.HUMAN);
        // a stored level is read back as stored, even if a recomputation would differ
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> looks = (List<Map<String, Object>>) m.get("looks");
        looks.get(0).put("efficacy_level", 0.001234);
        assertThat(SequentialDesign.fromMap(m).looks(0.95).get(0).efficacyLevel()).isEqualTo(0.001234);
        assertThat(SequentialDesign.fromMap(SequentialDesign.fixed(5).toMap(0.95))).isEqualTo(
                SequentialDesign.fixed(5));
        assertThat(SequentialDesign.ofSettings("{\"confidence\": 0.95}")).isNull();
        assertThatThrownBy(() -> SequentialDesign.ofSettings("{\"design\": 3}"))
                .hasMessageContaining("rounds design is unreadable");
        assertThatThrownBy(() -> SequentialDesign.adaptive(1, 8, SequentialDesign.Spending.POCOCK))
                .hasMessageContaining("min_rounds (1)");
    }

    private static TaskAnalysis.Input input(double[] b, double[] h, double[] a) {
        return new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, ArmSamples.of(Arm.BASELINE, b), null,
                ArmSamples.of(Arm.HUMAN, h), a == null ? List.of() : List.of(ArmSamples.of(Arm.agent("x"), a)),
                List.of());
    }

    private static double[] wiggle(double level, int n, long seed, double cv) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = level * Math.exp(cv * r.nextGaussian());
        }
        return out;
    }

    @Test
    void aLargeEffectStopsAtTheFirstLook_aNullOneIsFutile() {
        SequentialDesign d = SequentialDesign.defaultAdaptive();
        double[] b = wiggle(100, 8, 1, 0.005);
        TaskAnalysis big = TaskAnalysis.analyse(input(b, wiggle(50, 8, 2, 0.005), null), d, 8, CFG);
        assertThat(big.stopping().lookRounds()).isEqualTo(3);
        assertThat(big.stopping().reason()).isEqualTo(Stopping.Reason.DECIDED);
        assertThat(big.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(big.humanVsBaseline().read().rounds()).isEqualTo(3);
        assertThat(big.humanVsBaseline().read().ciConfidence()).isGreaterThan(0.99); // a repeated CI
        assertThat(big.humanVsBaseline().pairs()).isEqualTo(3); // later rounds are not read
        assertThat(big.stopping().roundsSaved()).isEqualTo(5);
        assertThat(big.stopping().describe()).startsWith("stopped after round 3 of up to 8: every gating comparison"
                + " decided (human vs baseline better)");
        // no effect, ±3 % from round to round: futile before the last look, never better or worse
        double[] bn = wiggle(100, 8, 3, 0.005);
        double[] hn = new double[8];
        for (int i = 0; i < 8; i++) {
            hn[i] = bn[i] * (i % 2 == 0 ? 1.03 : 1 / 1.03);
        }
        TaskAnalysis none = TaskAnalysis.analyse(input(bn, hn, null), d, 8, CFG);
        assertThat(none.humanVsBaseline().verdict().significant()).isFalse();
        assertThat(none.stopping().lookRounds()).isLessThan(8);
        assertThat(none.humanVsBaseline().inconclusiveReason()).isIn(InconclusiveReason.FUTILE,
                InconclusiveReason.NOISY);
    }

    @Test
    void aTaskStopsOnlyWhenEveryGatingComparisonIsDecidedAtTheSameLook() {
        SequentialDesign d = SequentialDesign.defaultAdaptive();
        double[] b = wiggle(100, 8, 5, 0.005);
        double[] h = wiggle(50, 8, 6, 0.005);     // decided at the first look
        double[] a = wiggle(98.5, 8, 7, 0.01);    // a small effect: needs more looks
        TaskAnalysis both = TaskAnalysis.analyse(input(b, h, a), d, 8, CFG);
        TaskAnalysis humanOnly = TaskAnalysis.analyse(input(b, h, a), d.withGating(
                EnumSet.of(SequentialDesign.Gate.HUMAN)), 8, CFG);
        assertThat(humanOnly.stopping().lookRounds()).isEqualTo(3);
        assertThat(both.stopping().lookRounds()).isGreaterThan(3);
        assertThat(both.stopping().looks()).hasSize(both.stopping().lookRounds() - 2);
        assertThat(both.stopping().looks().get(0).verdicts()).containsKeys("human vs baseline",
                "agent:x vs baseline");
        // fewer rounds than the design's last look and nothing decided yet: still running
        TaskAnalysis early = TaskAnalysis.analyse(input(b, wiggle(99, 8, 8, 0.02), null), d, 4, CFG);
        if (!early.humanVsBaseline().decided()) {
            assertThat(early.stopping().reason()).isEqualTo(Stopping.Reason.RUNNING);
            assertThat(early.stopping().describe()).startsWith("4 rounds of up to 8 so far");
        }
    }
}
