package io.isobench.analysis;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The verdict rules of docs/statistics.md pinned on hand-made samples: each verdict, each inconclusive reason, the
 * A/A band as margin, variance pooling, replay validity and opt_base / opt_human. Expected intervals were computed
 * independently with scipy 1.17 (stats.t.ppf, stats.f.ppf) from the formulas in docs/statistics.md.
 */
class TaskAnalysisTest {

    private static final StatsConfig CFG = StatsConfig.defaults();
    private static final Arm ALPHA = Arm.agent("alpha");
    private static final Arm BRAVO = Arm.agent("bravo");

    private static final double[] B = {100, 102, 98, 101, 99};
    private static final double[] AA = {100.5, 101.5, 98.5, 100.5, 99.5};
    /** About 10 % faster than B in every round (lower is better). */
    private static final double[] H10 = {91.0, 92.6, 89.2, 91.9, 90.0};

    /** {@code base} scaled by {@code factor}, with per-round wiggles (fractions) applied. */
    private static double[] times(double[] base, double factor, double... wiggle) {
        double[] out = new double[base.length];
        for (int i = 0; i < base.length; i++) {
            out[i] = base[i] * factor * (1 + (wiggle.length == 0 ? 0 : wiggle[i % wiggle.length]));
        }
        return out;
    }

    private static TaskAnalysis lower(double[] b, double[] aa, double[] h, ArmSamples... agents) {
        return TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                ArmSamples.of(Arm.BASELINE, b), aa == null ? null : ArmSamples.of(Arm.BASELINE_AA, aa),
                ArmSamples.of(Arm.HUMAN, h), List.of(agents), List.of()), CFG);
    }

    @Test
    void defaults() {
        assertThat(CFG.confidence()).isEqualTo(0.95);
        assertThat(CFG.minPairedRounds()).isEqualTo(5);
        assertThat(CFG.cvGatePct()).isEqualTo(10.0);
        assertThat(CFG.minEffectPct()).isEqualTo(2.0);
        assertThat(CFG.varianceGateAlpha()).isEqualTo(0.2);
        assertThat(CFG.exactMaxN()).isEqualTo(8);
        assertThat(CFG.optHumanFraction()).isEqualTo(0.95);
        assertThat(CFG.equivalenceAlpha()).isCloseTo(0.05, within(1e-12));
        assertThat(CFG.toMap()).containsEntry("ci_method", "paired_rounds_log_ratio_t")
                .containsEntry("equivalence_method", "tost").containsEntry("min_paired_rounds", 5)
                .containsEntry("cv_gate_pct", 10.0).containsEntry("min_effect_pct", 2.0)
                .containsEntry("test_gating", false).containsEntry("bootstrap_seed", 42L);
        assertThat(CFG.describe()).contains("95% Student t interval", "90% interval (TOST, alpha 0.05)",
                "fewer than 5 valid paired rounds", "2%", "0.95 x the human's");
        assertThat(CFG.shortText()).contains("TOST", "max(A/A band, 2%)");
        assertThatThrownBy(() -> CFG.withGates(1, 10, 2)).hasMessageContaining("minPairedRounds (1)");
        // margins are symmetric in log space: better beyond ×1.02, worse beyond ÷1.02
        assertThat(CFG.marginLog(Double.NaN)).isCloseTo(Math.log(1.02), within(1e-15));
        assertThat(CFG.marginLog(-0.05)).isCloseTo(0.05, within(1e-15));
        assertThat(CFG.marginLog(0.001)).isCloseTo(Math.log(1.02), within(1e-15));
    }

    @Test
    void betterWithTheAaArm_numbersMatchAnIndependentComputation() {
        TaskAnalysis t = lower(B, AA, H10);
        Comparison aa = t.aa();
        assertThat(aa.arm()).isEqualTo("baseline-aa");
        assertThat(t.noiseBand().source()).isEqualTo(NoiseBand.Source.AA_ARM);
        assertThat(t.noiseBand().bandPct()).isCloseTo(0.1048069021670095, within(1e-9));
        assertThat(t.noiseBand().variance()).isCloseTo(1.4930486793949002e-05, within(1e-15));
        assertThat(t.noiseBand().df()).isEqualTo(4);
        Comparison hb = t.humanVsBaseline();
        assertThat(hb.verdict()).isEqualTo(Verdict.BETTER);
        assertThat(hb.inconclusiveReason()).isNull();
        assertThat(hb.pairs()).isEqualTo(5);
        assertThat(hb.speedup()).isCloseTo(1.1001932559328071, within(1e-12));
        assertThat(hb.ciLowSpeedup()).isCloseTo(1.0959505587043357, within(1e-9));
        assertThat(hb.ciHighSpeedup()).isCloseTo(1.1044523776976134, within(1e-9));
        assertThat(hb.equivLowSpeedup()).isCloseTo(1.0967706909475643, within(1e-9));
        assertThat(hb.equivHighSpeedup()).isCloseTo(1.103626501319318, within(1e-9));
        assertThat(hb.df()).isEqualTo(8);
        assertThat(hb.variance()).isEqualTo(Comparison.Variance.POOLED_WITH_AA);
        assertThat(hb.pairedCvPct()).isCloseTo(0.19456318583731663, within(1e-9));
        assertThat(hb.marginPct()).isCloseTo(2.0, within(1e-12));
        // Δ % from the estimate with the DESIGN §5 formula: (B − X) / B = 1 − 1/speedup for lower is better
        assertThat(hb.deltaPct()).isCloseTo((1 - 1 / 1.1001932559328071) * 100, within(1e-9));
        assertThat(hb.ciClearsMargin()).isTrue();
        assertThat(hb.reason()).contains("lies above 1", "margin 2.00%");
        assertThat(t.replayValidity()).isEqualTo(ReplayValidity.VALID);
        // Mann-Whitney stays reported: every human value is below every baseline value
        assertThat(hb.pValue()).isCloseTo(2.0 / 252, within(1e-12));
        assertThat(hb.pValueMethod()).isEqualTo(MannWhitney.Method.EXACT);
    }

    @Test
    void worseMirrorsBetter_andHigherIsBetterFlipsTheOrientation() {
        double[] slow = times(B, 1.10, 0.001, -0.002, 0.0015, 0, -0.001);
        TaskAnalysis t = lower(B, AA, slow);
        assertThat(t.humanVsBaseline().verdict()).isEqualTo(Verdict.WORSE);
        assertThat(t.humanVsBaseline().speedup()).isLessThan(1 / 1.09);
        assertThat(t.replayValidity()).isEqualTo(ReplayValidity.REVERSED);
        // the same numbers as a throughput (higher is better): 10 % more is better
        TaskAnalysis tp = TaskAnalysis.analyse(new TaskAnalysis.Input("total_throughput_tok_s", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, B), ArmSamples.of(Arm.BASELINE_AA, AA), ArmSamples.of(Arm.HUMAN, slow),
                List.of(), List.of()), CFG);
        assertThat(tp.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(tp.humanVsBaseline().speedup()).isCloseTo(1 / t.humanVsBaseline().speedup(), within(1e-12));
    }

    @Test
    void equivalentWhenTheTostIntervalLiesInsideTheMargin() {
        double[] same = times(B, 1.0, 0.002, -0.001, 0.001, -0.002, 0.0);
        Comparison c = lower(B, AA, same).humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.EQUIVALENT);
        assertThat(c.reason()).contains("90% TOST interval", "inside ±margin 2.00%");
        assertThat(c.equivLowSpeedup()).isGreaterThan(1 / 1.02);
        assertThat(c.equivHighSpeedup()).isLessThan(1.02);
        assertThat(lower(B, AA, same).replayValidity()).isEqualTo(ReplayValidity.LOW_SIGNAL);
    }

    @Test
    void wideCiIsInconclusive_notTie() {
        // +10 % on average but scattered: neither beyond nor inside the margin
        double[] scattered = times(B, 1 / 1.10, 0.06, -0.07, 0.05, -0.06, 0.08);
        Comparison c = lower(B, null, scattered).humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.WIDE_CI);
        assertThat(c.verdictText()).isEqualTo("inconclusive: wide CI");
        assertThat(c.ciLowSpeedup()).isLessThan(1.02);
        assertThat(c.ciHighSpeedup()).isGreaterThan(1.02);
        // a real change smaller than the margin, too uncertain to be called equivalent: also wide CI
        double[] small = times(B, 1 / 1.015, 0.012, -0.012, 0.009, -0.009, 0.0); // CI [1.0018, 1.0285]
        Comparison s = lower(B, null, small).humanVsBaseline();
        assertThat(s.ciExcludesOne()).isTrue();
        assertThat(s.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(s.inconclusiveReason()).isEqualTo(InconclusiveReason.WIDE_CI);
    }

    @Test
    void tooFewRoundsIsInconclusive_evenForAHugeEffect() {
        double[] b = {100, 101, 99, 100};
        double[] h = {50, 50.5, 49.5, 50};
        Comparison c = lower(b, null, h).humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.TOO_FEW_ROUNDS);
        assertThat(c.reason()).contains("4 valid paired rounds (< 5)");
        assertThat(c.speedup()).isCloseTo(2.0, within(1e-9)); // still estimated and shown
        // rounds missing from the reference are dropped from the pair, and counted
        ArmSamples base = ArmSamples.ofRounds(Arm.BASELINE, new int[] {0, 1, 2, 3}, new double[] {100, 101, 99, 100});
        ArmSamples hum = ArmSamples.of(Arm.HUMAN, 50, 50.5, 49.5, 50, 51);
        Comparison d = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, base, null, hum,
                List.of(), List.of()), CFG).humanVsBaseline();
        assertThat(d.n()).isEqualTo(5);
        assertThat(d.pairs()).isEqualTo(4);
        assertThat(d.pairsDropped()).isEqualTo(1);
        assertThat(d.reason()).contains("1 dropped");
    }

    @Test
    void excludedRoundsMakeItAWorkloadMismatch() {
        ArmSamples base = ArmSamples.of(Arm.BASELINE, B);
        ArmSamples hum = ArmSamples.ofRounds(Arm.HUMAN, new int[] {0, 1, 2, 4},
                new double[] {H10[0], H10[1], H10[2], H10[4]});
        RoundExclusion ex = new RoundExclusion("human", 3, RoundExclusion.Cause.WORKLOAD_MISMATCH,
                "output_tokens 1000 vs 1024");
        TaskAnalysis t = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, base, null, hum,
                List.of(), List.of(ex)), CFG);
        Comparison c = t.humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.WORKLOAD_MISMATCH);
        assertThat(c.roundsExcluded()).isEqualTo(1);
        assertThat(t.exclusions()).containsExactly(ex);
        assertThat(ex.oneLine()).isEqualTo("round 4, human: workload_mismatch (output_tokens 1000 vs 1024)");
    }

    @Test
    void noisyPairsAreInconclusive() {
        double[] wild = times(B, 1 / 1.25, 0.2, -0.15, 0.12, -0.18, 0.02); // paired CV 11.9 %
        Comparison c = lower(B, null, wild).humanVsBaseline();
        assertThat(c.pairedCvPct()).isCloseTo(11.866084386320333, within(1e-9));
        assertThat(c.ciLowSpeedup()).isGreaterThan(1.02); // the interval alone would have said better
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.NOISY);
        assertThat(c.reason()).contains("gate 10%");
    }

    @Test
    void aDriftingRoundCancelsInThePair() {
        // round 3 is 3x slower for every arm (a co-tenant): paired, the 10 % speedup stays clear
        double[] b = B.clone();
        double[] aa = AA.clone();
        double[] h = H10.clone();
        b[2] *= 3;
        aa[2] *= 3;
        h[2] *= 3;
        TaskAnalysis t = lower(b, aa, h);
        assertThat(t.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(t.humanVsBaseline().speedup()).isCloseTo(1.1001932559328071, within(1e-9));
        assertThat(t.noiseBand().bandPct()).isCloseTo(0.1048069021670095, within(1e-9));
    }

    @Test
    void noReferenceAndUndefinedValues() {
        Comparison noBase = lower(new double[0], null, H10).humanVsBaseline();
        assertThat(noBase.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(noBase.inconclusiveReason()).isEqualTo(InconclusiveReason.NO_REFERENCE);
        Comparison zero = lower(B, null, new double[] {0, 90, 90, 90, 90}).humanVsBaseline();
        assertThat(zero.inconclusiveReason()).isEqualTo(InconclusiveReason.UNDEFINED);
        assertThat(zero.speedup()).isNull();
    }

    @Test
    void theAaBandIsTheMargin() {
        // the A/A arm measures 3 % apart: a tight 2.5 % change is inside the band, so equivalent, not better
        double[] aa = times(B, 1 / 1.03, 0.001, -0.001, 0.0, 0.001, -0.001);
        double[] h = times(B, 1 / 1.025, 0.001, -0.001, 0.0005, 0.0, -0.0005);
        TaskAnalysis t = lower(B, aa, h);
        assertThat(t.noiseBand().bandPct()).isCloseTo(3.0, within(0.05));
        Comparison c = t.humanVsBaseline();
        assertThat(c.marginPct()).isCloseTo(t.noiseBand().bandPct(), within(1e-9));
        assertThat(c.ciExcludesOne()).isTrue();
        assertThat(c.verdict()).isNotEqualTo(Verdict.BETTER);
        // the A/A comparison itself is judged with the minimum effect only
        assertThat(t.aa().marginPct()).isCloseTo(2.0, within(1e-12));
        assertThat(t.aa().verdict()).isEqualTo(Verdict.BETTER);
    }

    @Test
    void aNoisierArmDoesNotBorrowTheAaVariance() {
        double[] calm = times(B, 1 / 1.10, 0.001, -0.001, 0.0, 0.001, -0.001);
        assertThat(lower(B, AA, calm).humanVsBaseline().variance()).isEqualTo(Comparison.Variance.POOLED_WITH_AA);
        double[] noisy = times(B, 1 / 1.10, 0.03, -0.03, 0.02, -0.025, 0.01);
        Comparison c = lower(B, AA, noisy).humanVsBaseline();
        assertThat(c.variance()).isEqualTo(Comparison.Variance.OWN_PAIRS);
        assertThat(c.df()).isEqualTo(4);
        // without an A/A arm there is nothing to pool with
        Comparison alone = lower(B, null, calm).humanVsBaseline();
        assertThat(alone.variance()).isEqualTo(Comparison.Variance.OWN_PAIRS);
        assertThat(alone.df()).isEqualTo(4);
        assertThat(lower(B, null, calm).noiseBand().source()).isEqualTo(NoiseBand.Source.NONE);
        assertThat(lower(B, null, calm).noiseBand().bandPct()).isNull();
    }

    @Test
    void failedAndIncorrectArms_andOptOnlyOnValidTasks() {
        TaskAnalysis t = lower(B, AA, H10,
                ArmSamples.of(ALPHA),                                       // no valid runs
                ArmSamples.of(BRAVO, times(B, 0.5, 0.001, -0.001)).markedIncorrect()); // 2x faster, wrong outputs
        AgentOutcome failed = t.agent("agent:alpha").orElseThrow();
        assertThat(failed.vsBaseline().verdict()).isEqualTo(Verdict.FAILED);
        assertThat(failed.vsHuman().verdict()).isEqualTo(Verdict.FAILED);
        assertThat(failed.vsBaseline().speedup()).isNull();
        assertThat(failed.optBase()).isFalse();
        AgentOutcome wrong = t.agent("agent:bravo").orElseThrow();
        assertThat(wrong.vsBaseline().verdict()).isEqualTo(Verdict.INCORRECT);
        assertThat(wrong.vsBaseline().reason()).contains("correctness gate", "speed alone: better");
        assertThat(wrong.optBase()).isFalse();
        assertThat(wrong.optHuman()).isFalse();
        // the human is not better: opt_base / opt_human are undefined, not false
        TaskAnalysis flat = lower(B, AA, times(B, 1.0, 0.001, -0.001, 0.0, 0.001, -0.001),
                ArmSamples.of(ALPHA, times(B, 1 / 1.2, 0.001, -0.001)));
        assertThat(flat.replayValidity()).isEqualTo(ReplayValidity.LOW_SIGNAL);
        assertThat(flat.agents().get(0).vsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(flat.agents().get(0).optBase()).isNull();
        assertThat(flat.agents().get(0).optHuman()).isNull();
        // a failed human: replay low signal, agent vs human has no reference
        TaskAnalysis noHuman = lower(B, AA, new double[0], ArmSamples.of(ALPHA, H10));
        assertThat(noHuman.humanVsBaseline().verdict()).isEqualTo(Verdict.FAILED);
        assertThat(noHuman.replayValidity()).isEqualTo(ReplayValidity.LOW_SIGNAL);
        assertThat(noHuman.agents().get(0).vsHuman().inconclusiveReason()).isEqualTo(InconclusiveReason.NO_REFERENCE);
    }

    @Test
    void optHumanThreshold() {
        assertThat(AgentOutcome.isOptHuman(1.9, 2.0, 0.95)).isTrue();             // exactly 0.95 x
        assertThat(AgentOutcome.isOptHuman(Math.nextDown(1.9), 2.0, 0.95)).isFalse();
        assertThat(AgentOutcome.isOptHuman(null, 2.0, 0.95)).isFalse();
        // human 1.333x; 0.95 x = 1.2667
        double[] h = times(B, 0.75, 0.001, -0.001, 0.0, 0.001, -0.001);
        TaskAnalysis t = lower(B, AA, h,
                ArmSamples.of(ALPHA, times(B, 1 / 1.275, 0.001, -0.001, 0.0, 0.001, -0.001)),  // opt_human
                ArmSamples.of(BRAVO, times(B, 1 / 1.255, 0.001, -0.001, 0.0, 0.001, -0.001))); // opt_base only
        assertThat(t.replayValidity()).isEqualTo(ReplayValidity.VALID);
        assertThat(t.agent("agent:alpha").orElseThrow().optHuman()).isTrue();
        AgentOutcome bravo = t.agent("agent:bravo").orElseThrow();
        assertThat(bravo.optBase()).isTrue();
        assertThat(bravo.optHuman()).isFalse();
    }

    @Test
    void comparisonIsIndependentOfOtherArms() {
        TaskAnalysis alone = lower(B, AA, H10);
        TaskAnalysis withAgents = lower(B, AA, H10, ArmSamples.of(ALPHA, times(B, 0.9)),
                ArmSamples.of(BRAVO, times(B, 0.95, 0.01, -0.01)));
        assertThat(withAgents.humanVsBaseline()).isEqualTo(alone.humanVsBaseline());
        assertThat(withAgents.comparisons()).hasSize(6); // A/A, human, 2 agents × (vs baseline, vs human)
    }

    @Test
    void machineFormIsJsonReady() throws Exception {
        TaskAnalysis t = lower(B, AA, H10, ArmSamples.of(ALPHA));
        String json = new ObjectMapper().writeValueAsString(t.toMap());
        assertThat(json).contains("\"noise_floor_source\":\"aa_arm\"", "\"verdict\":\"better\"",
                "\"replay_validity\":\"valid\"", "\"inconclusive_reason\":null", "\"ci_method\"",
                "\"variance\":\"pooled_with_aa\"", "\"exclusions\":[]");
        assertThat(t.summaries()).containsKeys("baseline", "baseline-aa", "human", "agent:alpha");
    }

    @Test
    void armSummaryAndImprovement() {
        ArmSummary s = ArmSummary.of(new double[] {4, 1, 3, 2});
        assertThat(s.median()).isEqualTo(2.5);
        assertThat(s.sd()).isCloseTo(Math.sqrt(5.0 / 3.0), within(1e-12));
        assertThat(ArmSummary.of(new double[0]).n()).isZero();
        assertThat(Improvement.pct(Better.LOWER, 100.0, 90.0)).isCloseTo(10.0, within(1e-12));
        assertThat(Improvement.pct(Better.HIGHER, 100.0, 90.0)).isCloseTo(-10.0, within(1e-12));
        assertThat(Improvement.pct(Better.LOWER, 0.0, 90.0)).isNull();
    }

    @Test
    void singleRunRuleKeepsItsOwnVocabulary() {
        assertThat(SingleRunRule.classify(5.0)).isEqualTo(SingleRunRule.Outcome.TIE);
        assertThat(SingleRunRule.classify(5.01)).isEqualTo(SingleRunRule.Outcome.WIN);
        assertThat(SingleRunRule.classify(-5.01)).isEqualTo(SingleRunRule.Outcome.LOSS);
        assertThat(SingleRunRule.classify(null)).isEqualTo(SingleRunRule.Outcome.UNDEFINED);
        assertThat(java.util.Arrays.stream(Verdict.values()).map(Verdict::label))
                .containsExactly("better", "worse", "equivalent", "inconclusive", "failed", "incorrect")
                .doesNotContain("tie");
    }

    @Test
    void rejectsBadInput() {
        assertThatThrownBy(() -> new TaskAnalysis.Input("client_queue_ms_mean", Better.NONE,
                ArmSamples.of(Arm.BASELINE, 1, 2, 3), ArmSamples.of(Arm.HUMAN, 1, 2, 3), List.of()))
                .hasMessageContaining("direction");
        assertThatThrownBy(() -> new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                ArmSamples.of(Arm.HUMAN, 1, 2, 3), ArmSamples.of(Arm.HUMAN, 1, 2, 3), List.of()))
                .hasMessageContaining("baseline");
        assertThatThrownBy(() -> ArmSamples.ofRounds(Arm.HUMAN, new int[] {1, 1}, new double[] {1, 2}))
                .hasMessageContaining("strictly increasing");
        assertThatThrownBy(() -> new Comparison("h", "b", Better.LOWER, 0, 0, 0, 0, 0, null, null, null, null, null,
                null, null, null, Comparison.Variance.NONE, null, 2, null, null, MannWhitney.Method.UNDEFINED,
                Verdict.INCONCLUSIVE, null, "x", CFG)).hasMessageContaining("carries a reason");
    }

    @Test
    void identicalRatiosInEveryRoundDecideOnlyWithEnoughRoundsForTheSignTest() {
        // a discrete metric (a sweep's capacity: 1 vs 4 concurrent requests in every round): no spread, so the t
        // interval has no width; 5 agreeing rounds give a sign-test p of 0.0625, 6 give 0.031
        for (int n : new int[] {5, 6}) {
            double[] base = new double[n];
            double[] human = new double[n];
            java.util.Arrays.fill(base, 1.0);
            java.util.Arrays.fill(human, 4.0);
            Comparison c = TaskAnalysis.analyse(new TaskAnalysis.Input("capacity_max_concurrency", Better.HIGHER,
                    ArmSamples.of(Arm.BASELINE, base), null, ArmSamples.of(Arm.HUMAN, human), List.of(), List.of()),
                    CFG).humanVsBaseline();
            if (n == 5) {
                assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
                assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.TOO_FEW_ROUNDS);
                assertThat(c.reason()).contains("ratio 4.0000 in each of 5 paired rounds")
                        .contains("needs 6 agreeing rounds for p <= 0.05");
            } else {
                assertThat(c.verdict()).as(c.reason()).isEqualTo(Verdict.BETTER);
            }
        }
        assertThat(Comparison.signTestMinPairs(0.95)).isEqualTo(6);
        assertThat(Comparison.signTestMinPairs(0.99)).isEqualTo(8);
        // continuous samples with spread are judged by their interval as before (5 rounds suffice)
        assertThat(lower(B, AA, H10).humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
    }
}
