package io.isobench.analysis;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The verdict rules of docs/statistics.md pinned on hand-made samples: each verdict, each inconclusive reason, the
 * A/A check, the baseline run as the reference (the A/A run standing in only where it is missing), the arm's own
 * variance, replay validity and opt_base / opt_human. Expected intervals were computed independently with scipy 1.17
 * (stats.t.ppf) from the formulas in docs/statistics.md §5: d = −(ln x − ln b) per round, est = mean(d),
 * se = std(d, ddof=1)/√n, CI exp(est ± t(0.975, n−1)·se), TOST exp(est ± t(0.95, n−1)·se).
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
        assertThat(CFG.minPairedRounds()).isEqualTo(3);
        assertThat(CFG.cvGatePct()).isEqualTo(10.0);
        assertThat(CFG.minEffectPct()).isEqualTo(2.0);
        assertThat(CFG.exactMaxN()).isEqualTo(8);
        assertThat(CFG.optHumanFraction()).isEqualTo(0.95);
        assertThat(CFG.equivalenceAlpha()).isCloseTo(0.05, within(1e-12));
        assertThat(CFG.toMap()).containsEntry("ci_method", "paired_rounds_log_ratio_t")
                .containsEntry("equivalence_method", "tost").containsEntry("min_paired_rounds", 3)
                .containsEntry("cv_gate_pct", 10.0).containsEntry("min_effect_pct", 2.0)
                .containsEntry("variance", "own_pairs").containsEntry("reference",
                        "baseline_run_aa_stands_in_where_missing")
                .containsEntry("test_gating", false).containsEntry("bootstrap_seed", 42L)
                .doesNotContainKey("variance_gate_alpha");
        assertThat(CFG.describe()).contains("own paired rounds alone", "repeated confidence interval",
                "A/A unstable", "fewer than 3 valid paired rounds", "2%", "0.95 x the human's");
        assertThat(CFG.shortText()).contains("TOST", "±2%", "A/A unstable");
        assertThatThrownBy(() -> CFG.withGates(1, 10, 2)).hasMessageContaining("minPairedRounds (1)");
        // margins are symmetric in log space: better beyond ×1.02, worse beyond ÷1.02; the A/A arm never widens them
        assertThat(CFG.marginLog()).isCloseTo(Math.log(1.02), within(1e-15));
    }

    @Test
    void betterWithTheAaArm_numbersMatchAnIndependentComputation() {
        TaskAnalysis t = lower(B, AA, H10);
        Comparison aa = t.aa();
        assertThat(aa.arm()).isEqualTo("baseline-aa");
        assertThat(aa.verdict()).isEqualTo(Verdict.EQUIVALENT);
        assertThat(t.noiseBand().source()).isEqualTo(NoiseBand.Source.AA_ARM);
        assertThat(t.noiseBand().bandPct()).isCloseTo(0.10480690216701027, within(1e-9));
        assertThat(t.noiseBand().unstable()).isFalse();
        Comparison hb = t.humanVsBaseline();
        assertThat(hb.verdict()).isEqualTo(Verdict.BETTER);
        assertThat(hb.inconclusiveReason()).isNull();
        assertThat(hb.pairs()).isEqualTo(5);
        // the reference is the baseline's run alone: the A/A run does not join it
        assertThat(hb.speedup()).isCloseTo(1.0996171694923451, within(1e-12));
        assertThat(hb.ciLowSpeedup()).isCloseTo(1.0981586555323284, within(1e-9));
        assertThat(hb.ciHighSpeedup()).isCloseTo(1.1010776205704282, within(1e-9));
        assertThat(hb.equivLowSpeedup()).isCloseTo(1.0984971014959366, within(1e-9));
        assertThat(hb.equivHighSpeedup()).isCloseTo(1.1007383795512267, within(1e-9));
        assertThat(hb.logSe()).isCloseTo(0.0004780443246030209, within(1e-12));
        assertThat(hb.df()).isEqualTo(4);
        assertThat(hb.variance()).isEqualTo(Comparison.Variance.OWN_PAIRS);
        assertThat(hb.pairedCvPct()).isCloseTo(0.07558545520891431, within(1e-9));
        assertThat(hb.marginPct()).isCloseTo(2.0, within(1e-12));
        assertThat(hb.read().ciConfidence()).isEqualTo(0.95);
        assertThat(hb.read().standInPairs()).isZero();
        // Δ % from the estimate with the DESIGN §5 formula: (B − X) / B = 1 − 1/speedup for lower is better
        assertThat(hb.deltaPct()).isCloseTo((1 - 1 / 1.0996171694923451) * 100, within(1e-9));
        assertThat(hb.ciClearsMargin()).isTrue();
        assertThat(hb.reason()).contains("lies above 1", "margin 2.00%");
        assertThat(t.replayValidity()).isEqualTo(ReplayValidity.VALID);
        // Mann-Whitney stays reported: every human value is below every baseline value
        assertThat(hb.pValue()).isCloseTo(2.0 / 252, within(1e-12));
        assertThat(hb.pValueMethod()).isEqualTo(MannWhitney.Method.EXACT);
        assertThat(t.stopping().reason()).isEqualTo(Stopping.Reason.FIXED);
        assertThat(t.stopping().lookRounds()).isEqualTo(5);
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
        assertThat(c.verdictShown()).isEqualTo("equivalent within ±2 %");
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
        double[] b = {100, 101};
        double[] h = {50, 50.5};
        Comparison c = lower(b, null, h).humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.TOO_FEW_ROUNDS);
        assertThat(c.reason()).contains("2 valid paired rounds (< 3)");
        assertThat(c.speedup()).isCloseTo(2.0, within(1e-2)); // still estimated and shown
        // rounds missing from the reference (and with no A/A run to stand in) are dropped from the pair, and counted
        ArmSamples base = ArmSamples.ofRounds(Arm.BASELINE, new int[] {0, 1}, new double[] {100, 101});
        ArmSamples hum = ArmSamples.of(Arm.HUMAN, 50, 50.5, 49.5);
        Comparison d = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, base, null, hum,
                List.of(), List.of()), CFG).humanVsBaseline();
        assertThat(d.n()).isEqualTo(3);
        assertThat(d.pairs()).isEqualTo(2);
        assertThat(d.pairsDropped()).isEqualTo(1);
        assertThat(d.reason()).contains("1 dropped");
    }

    @Test
    void aLostBaselineRunIsReplacedByTheAaRunOfItsRound() {
        // the baseline's run of round 2 is lost; its A/A run exists: the round keeps it as the reference
        ArmSamples base = ArmSamples.ofRounds(Arm.BASELINE, new int[] {0, 1, 3, 4},
                new double[] {B[0], B[1], B[3], B[4]});
        TaskAnalysis t = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, base,
                ArmSamples.of(Arm.BASELINE_AA, AA), ArmSamples.of(Arm.HUMAN, H10), List.of(), List.of()), CFG);
        Comparison hb = t.humanVsBaseline();
        assertThat(hb.pairs()).isEqualTo(5);
        assertThat(hb.read().standInPairs()).isEqualTo(1);
        assertThat(hb.pairsDropped()).isZero();
        assertThat(hb.verdict()).isEqualTo(Verdict.BETTER);
        // the A/A comparison itself pairs only rounds where both baselines ran
        assertThat(t.aa().pairs()).isEqualTo(4);
        assertThat(hb.toMap()).containsEntry("pairs_aa_reference", 1);
    }

    @Test
    void excludedRoundsMakeItAWorkloadMismatch() {
        ArmSamples base = ArmSamples.of(Arm.BASELINE, B);
        ArmSamples hum = ArmSamples.ofRounds(Arm.HUMAN, new int[] {0, 4}, new double[] {H10[0], H10[4]});
        List<RoundExclusion> ex = List.of(new RoundExclusion("human", 1, RoundExclusion.Cause.WORKLOAD_MISMATCH,
                "output_tokens 1000 vs 1024"), new RoundExclusion("human", 2, RoundExclusion.Cause.WORKLOAD_MISMATCH,
                "output_tokens 1000 vs 1024"), new RoundExclusion("human", 3, RoundExclusion.Cause.WORKLOAD_MISMATCH,
                "output_tokens 1000 vs 1024"));
        TaskAnalysis t = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, base, null, hum,
                List.of(), ex), CFG);
        Comparison c = t.humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.WORKLOAD_MISMATCH);
        assertThat(c.roundsExcluded()).isEqualTo(3);
        assertThat(t.exclusions()).containsExactlyElementsOf(ex);
        RoundExclusion first = ex.get(2);
        assertThat(first.oneLine()).isEqualTo("round 4, human: workload_mismatch (output_tokens 1000 vs 1024)");
    }

    @Test
    void oneExcludedRoundLeavesEnoughPairs() {
        ArmSamples base = ArmSamples.of(Arm.BASELINE, B);
        ArmSamples hum = ArmSamples.ofRounds(Arm.HUMAN, new int[] {0, 1, 2, 4},
                new double[] {H10[0], H10[1], H10[2], H10[4]});
        RoundExclusion ex = new RoundExclusion("human", 3, RoundExclusion.Cause.WORKLOAD_MISMATCH,
                "output_tokens 1000 vs 1024");
        TaskAnalysis t = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, base, null, hum,
                List.of(), List.of(ex)), CFG);
        assertThat(t.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(t.humanVsBaseline().roundsExcluded()).isEqualTo(1);
    }

    @Test
    void noisyPairsSayNoisyWhenUndecided_butAClearEffectStaysClear() {
        // the interval comes from the arm's own pairs, so its width carries the noise: a 25 % speedup whose interval
        // clears the margin is better even at a paired CV of 11.9 %
        double[] wild = times(B, 1 / 1.25, 0.2, -0.15, 0.12, -0.18, 0.02);
        Comparison c = lower(B, null, wild).humanVsBaseline();
        assertThat(c.pairedCvPct()).isGreaterThan(10);
        assertThat(c.ciLowSpeedup()).isGreaterThan(1.02);
        assertThat(c.verdict()).as(c.reason()).isEqualTo(Verdict.BETTER);
        // undecided and above the CV label: noisy rather than wide CI
        double[] vague = times(B, 1 / 1.05, 0.2, -0.15, 0.12, -0.18, 0.02);
        Comparison v = lower(B, null, vague).humanVsBaseline();
        assertThat(v.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(v.inconclusiveReason()).isEqualTo(InconclusiveReason.NOISY);
        assertThat(v.reason()).contains("> 10%");
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
        assertThat(t.humanVsBaseline().speedup()).isCloseTo(1.0996171694923451, within(1e-9));
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
    void anUnstableAaArmMakesTheTasksVerdictsInconclusive() {
        // the A/A arm measures 3 % faster than the baseline, tightly: the baseline does not repeat itself
        double[] aa = times(B, 1 / 1.03, 0.001, -0.001, 0.0, 0.001, -0.001);
        TaskAnalysis t = lower(B, aa, H10, ArmSamples.of(ALPHA, times(B, 1 / 1.2, 0.001, -0.001)),
                ArmSamples.of(BRAVO).markedIncorrect());
        assertThat(t.noiseBand().bandPct()).isCloseTo(3.0, within(0.05));
        assertThat(t.aa().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(t.aa().marginPct()).isCloseTo(2.0, within(1e-12));
        assertThat(t.noiseBand().unstable()).isTrue();
        Comparison hb = t.humanVsBaseline();
        assertThat(hb.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(hb.inconclusiveReason()).isEqualTo(InconclusiveReason.AA_UNSTABLE);
        assertThat(hb.reason()).contains("A/A arm", "better than the baseline", "speed alone: better");
        // the numbers stay: the estimate is against the baseline's own runs, untouched by the A/A offset
        assertThat(hb.speedup()).isCloseTo(1.0996171694923451, within(1e-12));
        assertThat(hb.marginPct()).isCloseTo(2.0, within(1e-12));
        assertThat(t.replayValidity()).isEqualTo(ReplayValidity.LOW_SIGNAL);
        AgentOutcome alpha = t.agent("agent:alpha").orElseThrow();
        assertThat(alpha.vsBaseline().inconclusiveReason()).isEqualTo(InconclusiveReason.AA_UNSTABLE);
        assertThat(alpha.vsHuman().inconclusiveReason()).isEqualTo(InconclusiveReason.AA_UNSTABLE);
        // outcomes stay outcomes
        assertThat(t.agent("agent:bravo").orElseThrow().vsBaseline().verdict()).isEqualTo(Verdict.FAILED);
    }

    @Test
    void eachArmUsesItsOwnVariance() {
        double[] calm = times(B, 1 / 1.10, 0.001, -0.001, 0.0, 0.001, -0.001);
        double[] noisy = times(B, 1 / 1.10, 0.03, -0.03, 0.02, -0.025, 0.01);
        Comparison c = lower(B, AA, calm).humanVsBaseline();
        Comparison n = lower(B, AA, noisy).humanVsBaseline();
        assertThat(c.variance()).isEqualTo(Comparison.Variance.OWN_PAIRS);
        assertThat(n.variance()).isEqualTo(Comparison.Variance.OWN_PAIRS);
        assertThat(c.df()).isEqualTo(4);
        assertThat(n.df()).isEqualTo(4);
        assertThat(n.logSe()).isGreaterThan(10 * c.logSe());
        // the A/A arm changes neither the estimate nor the interval of another comparison
        Comparison alone = lower(B, null, noisy).humanVsBaseline();
        assertThat(alone.speedup()).isEqualTo(n.speedup());
        assertThat(alone.ciLowSpeedup()).isEqualTo(n.ciLowSpeedup());
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
                "\"variance\":\"own_pairs\"", "\"exclusions\":[]", "\"stopping\"", "\"log_se\"");
        assertThat(t.summaries()).containsKeys(Arm.BASELINE, Arm.BASELINE_AA, Arm.HUMAN, Arm.agent("alpha"));
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
        assertThat(Arrays.stream(Verdict.values()).map(Verdict::label))
                .containsExactly("better", "worse", "equivalent", "inconclusive", "failed", "incorrect")
                .doesNotContain("tie");
    }

    @Test
    void rejectsBadInput() {
        assertThatThrownBy(() -> TaskAnalysis.Input.of("client_queue_ms_mean", Better.NONE,
                ArmSamples.of(Arm.BASELINE, 1, 2, 3), ArmSamples.of(Arm.HUMAN, 1, 2, 3)))
                .hasMessageContaining("direction");
        assertThatThrownBy(() -> TaskAnalysis.Input.of("tpot_ms_mean", Better.LOWER,
                ArmSamples.of(Arm.HUMAN, 1, 2, 3), ArmSamples.of(Arm.HUMAN, 1, 2, 3)))
                .hasMessageContaining("baseline");
        assertThatThrownBy(() -> ArmSamples.ofRounds(Arm.HUMAN, new int[] {1, 1}, new double[] {1, 2}))
                .hasMessageContaining("strictly increasing");
        assertThatThrownBy(() -> new Comparison("h", "b", Better.LOWER, 0, 0, 0, 0, 0, null, null, null, null, null,
                null, null, null, Comparison.Variance.NONE, null, 2, null, null, MannWhitney.Method.UNDEFINED,
                Verdict.INCONCLUSIVE, null, "x", new Comparison.Read(5, 0.95, 0.9, null, null, false, 0, false), CFG))
                .hasMessageContaining("carries a reason");
    }

    @Test
    void identicalRatiosInEveryRoundDecideOnlyWithEnoughRoundsForTheSignTest() {
        // a discrete metric (a sweep's capacity: 1 vs 4 concurrent requests in every round): no spread, so the t
        // interval has no width; 5 agreeing rounds give a sign-test p of 0.0625, 6 give 0.031
        for (int n : new int[] {5, 6}) {
            double[] base = new double[n];
            double[] human = new double[n];
            Arrays.fill(base, 1.0);
            Arrays.fill(human, 4.0);
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
