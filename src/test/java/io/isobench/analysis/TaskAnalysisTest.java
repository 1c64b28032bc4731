package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class TaskAnalysisTest {

    private static final StatsConfig CFG = StatsConfig.defaults();
    private static final Arm CLAUDE = Arm.agent("claude_code");
    private static final Arm CODEX = Arm.agent("codex");

    /** Five tight rounds around {@code centre} (CV ≈ 0.3 %). */
    private static double[] around(double centre) {
        return new double[] {centre * 1.002, centre * 0.997, centre, centre * 1.004, centre * 0.998};
    }

    private static TaskAnalysis lower(double[] b, double[] h, ArmSamples... agents) {
        return TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                ArmSamples.of(Arm.BASELINE, b), ArmSamples.of(Arm.HUMAN, h), List.of(agents)), CFG);
    }

    @Test
    void defaultsFollowDesign() {
        assertThat(CFG.bootstrapResamples()).isEqualTo(10_000);
        assertThat(CFG.bootstrapSeed()).isEqualTo(42L);
        assertThat(CFG.confidence()).isEqualTo(0.95);
        assertThat(CFG.exactMaxN()).isEqualTo(8);
        assertThat(CFG.minValidRounds()).isEqualTo(3);
        assertThat(CFG.cvGatePct()).isEqualTo(10.0);
        assertThat(CFG.minEffectPct()).isEqualTo(2.0);
        assertThat(CFG.optHumanFraction()).isEqualTo(0.95);
        assertThat(CFG.toMap()).containsEntry("ci_method", "percentile_bootstrap_ratio_of_medians")
                .containsEntry("bootstrap_resamples", 10_000).containsEntry("bootstrap_seed", 42L)
                .containsEntry("cv_gate_pct", 10.0).containsEntry("min_effect_pct", 2.0)
                .containsEntry("test_exact_max_n", 8).containsEntry("test_gating", false);
        assertThat(CFG.describe()).contains("10000 resamples", "seed 42", "95% percentile bootstrap",
                "n <= 8", "< 3 valid rounds", "CV > 10%", "max(noise floor, 2%)", "0.95 x human");
        assertThat(CFG.shortText()).contains("95% percentile bootstrap CI (10000 resamples, seed 42)", "CV>10%",
                "max(noise floor, 2%)");
        assertThatThrownBy(() -> CFG.withBootstrap(10, 1)).hasMessageContaining("bootstrapResamples (10)");
    }

    @Test
    void armSummary() {
        ArmSummary s = ArmSummary.of(new double[] {4, 1, 3, 2});
        assertThat(s.n()).isEqualTo(4);
        assertThat(s.median()).isEqualTo(2.5);
        assertThat(s.mean()).isEqualTo(2.5);
        assertThat(s.sd()).isCloseTo(Math.sqrt(5.0 / 3.0), within(1e-12));
        assertThat(s.cv()).isCloseTo(Math.sqrt(5.0 / 3.0) / 2.5, within(1e-12));
        assertThat(s.cvPct()).isCloseTo(100 * Math.sqrt(5.0 / 3.0) / 2.5, within(1e-10));
        assertThat(s.min()).isEqualTo(1.0);
        assertThat(s.max()).isEqualTo(4.0);
        assertThat(ArmSummary.of(new double[] {7}).sd()).isNull();
        assertThat(ArmSummary.of(new double[0])).isEqualTo(new ArmSummary(0, null, null, null, null, null, null));
        assertThatThrownBy(() -> ArmSummary.of(new double[] {1, Double.NaN})).hasMessageContaining("samples[1]");
    }

    @Test
    void improvementFormula() {
        assertThat(Improvement.pct(Better.LOWER, 100.0, 90.0)).isCloseTo(10.0, within(1e-12));
        assertThat(Improvement.pct(Better.HIGHER, 100.0, 90.0)).isCloseTo(-10.0, within(1e-12));
        assertThat(Improvement.pct(Better.LOWER, 0.0, 90.0)).isNull();
        assertThat(Improvement.pct(Better.LOWER, null, 90.0)).isNull();
        assertThat(Improvement.pct(Better.NONE, 100.0, 90.0)).isNull();
    }

    @Test
    void clearImprovementIsBetterAndReplayValid() {
        TaskAnalysis t = lower(around(40), around(30), ArmSamples.of(CLAUDE, around(35)));
        Comparison hb = t.humanVsBaseline();
        assertThat(hb.verdict()).isEqualTo(Verdict.BETTER);
        assertThat(hb.speedup()).isCloseTo(40.0 / 30.0, within(1e-9));
        assertThat(hb.medianRatio()).isCloseTo(30.0 / 40.0, within(1e-9));
        assertThat(hb.deltaPct()).isCloseTo(25.0, within(1e-9));
        assertThat(hb.ciLowSpeedup()).isGreaterThan(1.0).isLessThanOrEqualTo(hb.speedup());
        assertThat(hb.ciHighSpeedup()).isGreaterThanOrEqualTo(hb.speedup());
        assertThat(hb.pValue()).isCloseTo(2.0 / 252.0, within(1e-12)); // exact, 5 vs 5 fully separated
        assertThat(hb.pValueMethod()).isEqualTo(MannWhitney.Method.EXACT);
        assertThat(hb.config()).isSameAs(CFG);
        assertThat(t.replayValidity()).isEqualTo(ReplayValidity.VALID);
        AgentOutcome a = t.agent("agent:claude_code").orElseThrow();
        assertThat(a.vsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(a.vsHuman().verdict()).isEqualTo(Verdict.WORSE);
        assertThat(a.vsHuman().reference()).isEqualTo("human");
        assertThat(a.optBase()).isTrue();
        assertThat(a.optHuman()).isFalse(); // 40/35 = 1.143 < 0.95 * 1.333
        assertThat(t.summaries()).containsOnlyKeys("baseline", "human", "agent:claude_code");
        assertThat(t.noiseFloor().source()).isEqualTo(NoiseFloor.Source.SPLIT_ROUNDS);
    }

    @Test
    void machineFormIsJsonReady() throws Exception {
        TaskAnalysis t = lower(around(40), around(30), ArmSamples.of(CLAUDE));
        String json = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(t.toMap());
        assertThat(json).startsWith("{\"metric\":\"tpot_ms_mean\",\"better\":\"lower\",\"arms\":{\"baseline\":{\"n\":5,")
                .contains("\"noise_floor_source\":\"split_rounds\"", "\"verdict\":\"better\"",
                        "\"verdict\":\"failed\"", "\"speedup\":null", "\"opt_base\":false",
                        "\"replay_validity\":\"valid\"", "\"method\":{\"ci_method\":", "\"p_value_method\":\"exact\"");
        assertThat(t.humanVsBaseline().toMap().keySet()).containsExactly("arm", "reference", "better", "n",
                "n_reference", "median_ratio", "speedup", "delta_pct", "ci_low_speedup", "ci_high_speedup",
                "mann_whitney_u", "p_value", "p_value_method", "threshold_pct", "verdict", "reason");
    }

    @Test
    void directionMatters() {
        double[] b = around(1000);
        double[] x = around(900);
        TaskAnalysis low = lower(b, x);
        TaskAnalysis high = TaskAnalysis.analyse(new TaskAnalysis.Input("total_throughput_tok_s", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, b), ArmSamples.of(Arm.HUMAN, x), List.of()), CFG);
        assertThat(low.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        assertThat(low.humanVsBaseline().deltaPct()).isCloseTo(10.0, within(1e-9));
        assertThat(low.humanVsBaseline().speedup()).isCloseTo(1000.0 / 900.0, within(1e-9));
        assertThat(high.humanVsBaseline().verdict()).isEqualTo(Verdict.WORSE);
        assertThat(high.humanVsBaseline().deltaPct()).isCloseTo(-10.0, within(1e-9));
        assertThat(high.humanVsBaseline().speedup()).isCloseTo(0.9, within(1e-9));
        assertThat(high.humanVsBaseline().ciHighSpeedup()).isLessThan(1.0);
        assertThat(high.replayValidity()).isEqualTo(ReplayValidity.VALID); // worse is significant too
    }

    @Test
    void ciExcludingOneButBelowMinimumEffectIsTie() {
        // 1.5 % faster with ~0.3 % noise: CI excludes 1 but |Δ| < 2 % minimum
        Comparison c = lower(around(100), around(98.5)).humanVsBaseline();
        assertThat(c.ciExcludesOne()).isTrue();
        assertThat(c.deltaPct()).isCloseTo(1.5, within(1e-9));
        assertThat(c.verdict()).isEqualTo(Verdict.TIE);
        assertThat(c.reason()).contains("excludes 1 but");
        assertThat(lower(around(100), around(98.5)).replayValidity()).isEqualTo(ReplayValidity.LOW_SIGNAL);
    }

    @Test
    void ciExcludingOneButBelowNoiseFloorIsTie() {
        double[] b = around(100);
        double[] h = around(96.5); // 3.5 %: above the 2 % minimum
        TaskAnalysis without = lower(b, h);
        assertThat(without.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        // a second baseline arm 4 % off the first: the A/A floor (4 %) swallows the 3.5 %
        TaskAnalysis with = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                ArmSamples.of(Arm.BASELINE, b), ArmSamples.of(Arm.HUMAN, h), List.of(), around(104)), CFG);
        assertThat(with.noiseFloor().source()).isEqualTo(NoiseFloor.Source.TWO_BASELINES);
        assertThat(with.noiseFloor().noiseFloorPct()).isCloseTo(4.0, within(1e-9));
        assertThat(with.humanVsBaseline().ciExcludesOne()).isTrue();
        assertThat(with.humanVsBaseline().thresholdPct()).isCloseTo(4.0, within(1e-9));
        assertThat(with.humanVsBaseline().verdict()).isEqualTo(Verdict.TIE);
        assertThat(with.secondBaselineSummary().n()).isEqualTo(5);
    }

    @Test
    void overlappingSamplesAreTie() {
        double[] b = {100, 104, 97, 102, 99};
        double[] h = {101, 98, 103, 100, 97};
        Comparison c = lower(b, h).humanVsBaseline();
        assertThat(c.ciExcludesOne()).isFalse();
        assertThat(c.verdict()).isEqualTo(Verdict.TIE);
    }

    @Test
    void cvGateMakesInconclusive() {
        double[] noisy = {30, 45, 28, 33, 29}; // CV ≈ 19 %
        assertThat(ArmSummary.of(noisy).cvPct()).isGreaterThan(10.0);
        Comparison c = lower(around(40), noisy).humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.reason()).contains("human CV").contains("> gate 10%");
        // a noisy baseline also gates
        assertThat(lower(new double[] {40, 60, 38, 41, 39}, around(20)).humanVsBaseline().verdict())
                .isEqualTo(Verdict.INCONCLUSIVE);
        // just under the gate passes: CV is the sample sd / mean
        double[] ok = {90, 100, 110, 100, 100}; // sd = sqrt(200/4) = 7.07 -> CV 7.07 %
        assertThat(ArmSummary.of(ok).cvPct()).isCloseTo(Math.sqrt(50), within(1e-9));
        assertThat(lower(ok, around(60)).humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
    }

    @Test
    void fewerThanThreeRoundsIsInconclusive() {
        Comparison c = lower(around(40), new double[] {30, 30.1}).humanVsBaseline();
        assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.reason()).contains("human has 2 valid rounds (< 3)");
        assertThat(c.speedup()).isNotNull(); // numbers still reported
        assertThat(lower(new double[] {40, 40.1}, around(30)).humanVsBaseline().verdict())
                .isEqualTo(Verdict.INCONCLUSIVE);
        // exactly three passes
        assertThat(lower(new double[] {40, 40.1, 39.9}, new double[] {30, 30.1, 29.9}).humanVsBaseline().verdict())
                .isEqualTo(Verdict.BETTER);
    }

    @Test
    void failedAndIncorrectArms() {
        TaskAnalysis t = lower(around(40), around(30),
                ArmSamples.of(CLAUDE),                          // no valid runs
                ArmSamples.of(CODEX, around(20)).markedIncorrect()); // much faster, wrong outputs
        AgentOutcome failed = t.agent("agent:claude_code").orElseThrow();
        assertThat(failed.vsBaseline().verdict()).isEqualTo(Verdict.FAILED);
        assertThat(failed.vsHuman().verdict()).isEqualTo(Verdict.FAILED);
        assertThat(failed.vsBaseline().speedup()).isNull();
        assertThat(failed.vsBaseline().deltaPct()).isNull();
        assertThat(failed.optBase()).isFalse();
        assertThat(t.summaries().get("agent:claude_code").n()).isZero();
        AgentOutcome wrong = t.agent("agent:codex").orElseThrow();
        assertThat(wrong.vsBaseline().verdict()).isEqualTo(Verdict.INCORRECT);
        assertThat(wrong.vsBaseline().reason()).contains("correctness gate", "speed alone: better");
        assertThat(wrong.vsBaseline().speedup()).isCloseTo(2.0, within(1e-9));
        assertThat(wrong.optBase()).isFalse();
        assertThat(wrong.optHuman()).isFalse();
        // a failed human: no speedup to compare against, replay low signal, agent vs human inconclusive
        TaskAnalysis noHuman = lower(around(40), new double[0], ArmSamples.of(CLAUDE, around(30)));
        assertThat(noHuman.humanVsBaseline().verdict()).isEqualTo(Verdict.FAILED);
        assertThat(noHuman.replayValidity()).isEqualTo(ReplayValidity.LOW_SIGNAL);
        AgentOutcome a = noHuman.agents().get(0);
        assertThat(a.vsHuman().verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(a.optBase()).isTrue();
        assertThat(a.optHuman()).isFalse();
    }

    @Test
    void optHumanThreshold() {
        assertThat(AgentOutcome.isOptHuman(1.9, 2.0, 0.95)).isTrue();             // exactly 0.95 x
        assertThat(AgentOutcome.isOptHuman(Math.nextDown(1.9), 2.0, 0.95)).isFalse();
        assertThat(AgentOutcome.isOptHuman(null, 2.0, 0.95)).isFalse();
        assertThat(AgentOutcome.isOptHuman(1.9, null, 0.95)).isFalse();
        // in a task: human speedup 40/30 = 1.333; 0.95 x = 1.2667
        TaskAnalysis t = lower(around(40), around(30),
                ArmSamples.of(CLAUDE, around(31.5)),  // 1.270 -> opt_human
                ArmSamples.of(CODEX, around(31.7)));  // 1.262 -> opt_base only
        assertThat(t.agent("agent:claude_code").orElseThrow().optHuman()).isTrue();
        AgentOutcome codex = t.agent("agent:codex").orElseThrow();
        assertThat(codex.optBase()).isTrue();
        assertThat(codex.optHuman()).isFalse();
    }

    @Test
    void noiseFloors() {
        NoiseFloor split = NoiseFloor.fromSplitRounds(new double[] {100, 103, 101, 102, 99});
        // odd rounds {100, 101, 99} median 100; even rounds {103, 102} median 102.5
        assertThat(split.noiseFloorPct()).isCloseTo(2.5, within(1e-12));
        assertThat(split.nA()).isEqualTo(3);
        assertThat(split.nB()).isEqualTo(2);
        assertThat(NoiseFloor.fromSplitRounds(new double[] {100}).source()).isEqualTo(NoiseFloor.Source.NONE);
        NoiseFloor two = NoiseFloor.fromTwoBaselines(new double[] {200, 201, 199}, new double[] {190, 188, 192});
        assertThat(two.noiseFloorPct()).isCloseTo(5.0, within(1e-12));
        assertThat(two.thresholdPct(2.0)).isCloseTo(5.0, within(1e-12));
        assertThat(NoiseFloor.none().thresholdPct(2.0)).isEqualTo(2.0);
        // the second baseline wins over split rounds only when it has runs
        assertThat(NoiseFloor.of(new double[] {1, 2, 3}, new double[0]).source())
                .isEqualTo(NoiseFloor.Source.SPLIT_ROUNDS);
    }

    @Test
    void singleRunRule() {
        assertThat(SingleRunRule.classify(5.0)).isEqualTo(SingleRunRule.Outcome.TIE);
        assertThat(SingleRunRule.classify(-5.0)).isEqualTo(SingleRunRule.Outcome.TIE);
        assertThat(SingleRunRule.classify(5.01)).isEqualTo(SingleRunRule.Outcome.WIN);
        assertThat(SingleRunRule.classify(-5.01)).isEqualTo(SingleRunRule.Outcome.LOSS);
        assertThat(SingleRunRule.classify(0.0)).isEqualTo(SingleRunRule.Outcome.TIE);
        assertThat(SingleRunRule.classify(null)).isEqualTo(SingleRunRule.Outcome.UNDEFINED);
        assertThat(SingleRunRule.classify(3.0, 2.0)).isEqualTo(SingleRunRule.Outcome.WIN);
    }

    @Test
    void comparisonIsIndependentOfOtherArms() {
        TaskAnalysis alone = lower(around(40), around(30));
        TaskAnalysis withAgents = lower(around(40), around(30), ArmSamples.of(CLAUDE, around(35)),
                ArmSamples.of(CODEX, around(33)));
        assertThat(withAgents.humanVsBaseline()).isEqualTo(alone.humanVsBaseline());
        // the per-task cache of resampled medians changes nothing
        Comparison standalone = Comparison.compute(ArmSamples.of(CODEX, around(33)), ArmSamples.of(Arm.HUMAN,
                around(30)), Better.LOWER, withAgents.noiseFloor(), CFG);
        assertThat(withAgents.agent("agent:codex").orElseThrow().vsHuman()).isEqualTo(standalone);
    }

    @Test
    void rejectsMetricWithoutDirectionAndBadArms() {
        assertThatThrownBy(() -> new TaskAnalysis.Input("client_queue_ms_mean", Better.NONE,
                ArmSamples.of(Arm.BASELINE, 1, 2, 3), ArmSamples.of(Arm.HUMAN, 1, 2, 3), List.of()))
                .hasMessageContaining("direction");
        assertThatThrownBy(() -> new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                ArmSamples.of(Arm.HUMAN, 1, 2, 3), ArmSamples.of(Arm.HUMAN, 1, 2, 3), List.of()))
                .hasMessageContaining("baseline");
    }

}
