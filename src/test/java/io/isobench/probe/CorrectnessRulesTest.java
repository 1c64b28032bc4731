package io.isobench.probe;

import io.isobench.probe.CorrectnessRules.Calibration;
import io.isobench.probe.CorrectnessRules.Decision;
import io.isobench.probe.CorrectnessRules.Outcome;
import io.isobench.probe.CorrectnessRules.Rule;
import io.isobench.probe.CorrectnessRules.Thresholds;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The gate's calibration and rules on hand-made probe runs (docs/correctness.md, "Rules"). */
class CorrectnessRulesTest {

    private static final List<String> BASE = List.of("aa", "bb", "cc", "dd");

    private static List<Probe> texts(String... t) {
        return Arrays.stream(t).map(Probe::text).toList();
    }

    /** A run whose two passes gave the same texts. */
    private static Greedy.ProbeRun run(List<String> t) {
        List<Probe> p = t.stream().map(Probe::text).toList();
        return new Greedy.ProbeRun(p, p, 8);
    }

    private static Greedy.ProbeRun run(List<Probe> sequential, List<Probe> batched) {
        return new Greedy.ProbeRun(sequential, batched, 8);
    }

    private static Thresholds tolerance(double tolerance) {
        return new Thresholds(tolerance, null, Calibration.NONE);
    }

    private static Decision agent(Greedy.ProbeRun base, Greedy.ProbeRun human, Greedy.ProbeRun arm, Thresholds t) {
        return CorrectnessRules.agent(CorrectnessRules.compare(base, arm),
                human == null ? null : CorrectnessRules.compare(human, arm),
                human == null ? null : CorrectnessRules.compare(base, human), t);
    }

    // --- calibration

    @Test
    void aDeterministicBaselineCalibratesAFloorOfZero() {
        Calibration c = CorrectnessRules.calibrate(run(BASE), run(BASE));
        assertThat(c.restartMismatch()).isZero();
        assertThat(c.batchMismatch()).isZero();
        assertThat(c.floor()).isZero();
        assertThat(c.logprobDriftFloor()).isNull();
        assertThat(c.batchSize()).isEqualTo(8);
        assertThat(c.toMap()).containsEntry("floor", 0.0).containsEntry("batch_size", 8)
                .containsEntry("logprob_drift_floor", null).containsKeys("restart_mismatch", "batch_mismatch");
    }

    @Test
    void theFloorIsTheLargestOfTheRestartAndBatchMismatches() {
        // second start: 1 of 4 sequential probes differs; within the second start, batching changes 2 of 4
        Greedy.ProbeRun first = run(BASE);
        Greedy.ProbeRun repeat = run(texts("aa", "bb", "cc", "dX"), texts("aa", "bY", "cc", "dX"));
        Calibration c = CorrectnessRules.calibrate(first, repeat);
        assertThat(c.restartMismatch()).isEqualTo(0.5); // sequential 1 of 4; batched vs batched: bb/bY, dd/dX
        assertThat(c.batchMismatch()).isEqualTo(0.25);  // within the repeat: bb vs bY
        assertThat(c.floor()).isEqualTo(0.5);
        repeat = run(texts("aa", "bb", "cc", "dd"), texts("aX", "bY", "cc", "dd"));
        c = CorrectnessRules.calibrate(first, repeat);
        assertThat(c.restartMismatch()).isEqualTo(0.5); // batched pass of start 2 vs start 1
        assertThat(c.batchMismatch()).isEqualTo(0.5);
        assertThat(c.floor()).isEqualTo(0.5);
        assertThat(c.describe()).isEqualTo("baseline vs itself: 50 % across two independent starts, 50 % between"
                + " batch size 1 and 8; tolerance floor 50 %");
    }

    @Test
    void restartAndBatchMismatchAreMeasuredApart() {
        Greedy.ProbeRun first = run(BASE);
        Greedy.ProbeRun restartOnly = run(texts("aa", "bb", "cc", "zz"), texts("aa", "bb", "cc", "zz"));
        Calibration c = CorrectnessRules.calibrate(first, restartOnly);
        assertThat(c.restartMismatch()).isEqualTo(0.25);
        assertThat(c.batchMismatch()).isZero();
        assertThat(c.floor()).isEqualTo(0.25);
        Greedy.ProbeRun batchOnly = run(texts("aa", "bb", "cc", "dd"), texts("aa", "bb", "zz", "dd"));
        Calibration b = CorrectnessRules.calibrate(batchOnly, run(BASE));
        assertThat(b.batchMismatch()).isEqualTo(0.25);
        assertThat(b.restartMismatch()).isEqualTo(0.25); // the batched passes differ across the starts too
    }

    @Test
    void theLogprobDriftFloorIsTheLargestDriftAmongTheCalibrationComparisons() {
        Probe a = new Probe("x y", List.of(1, 2), List.of(-0.10, -0.50));
        Probe b = new Probe("x y", List.of(1, 2), List.of(-0.12, -0.53));
        Probe c = new Probe("x y", List.of(1, 2), List.of(-0.10, -0.60));
        Calibration cal = CorrectnessRules.calibrate(run(List.of(a), List.of(a)), run(List.of(b), List.of(c)));
        assertThat(cal.floor()).isZero();
        assertThat(cal.logprobDriftFloor()).isCloseTo(0.10, within(1e-9)); // the batched passes across the starts
        assertThat(new Thresholds(0, 0.05, cal).effectiveMaxDrift()).isCloseTo(0.10, within(1e-9));
        assertThat(new Thresholds(0, 0.5, cal).effectiveMaxDrift()).isEqualTo(0.5);
        assertThat(new Thresholds(0, null, cal).effectiveMaxDrift()).isNull();
    }

    @Test
    void withoutConcurrentPassesTheBatchMismatchIsNotMeasured() {
        Calibration c = CorrectnessRules.calibrate(Greedy.ProbeRun.sequentialOnly(texts("a")),
                Greedy.ProbeRun.sequentialOnly(texts("a")));
        assertThat(c.batchMismatch()).isNull();
        assertThat(c.batchSize()).isZero();
        assertThat(c.toMap()).containsEntry("batch_size", null).containsEntry("batch_mismatch", null);
        assertThat(c.describe()).contains("batch sizes not compared (no concurrent pass)");
    }

    @Test
    void theEffectiveToleranceIsTheLargerOfTheTasksAndTheFloor() {
        Calibration quarter = new Calibration(0.25, 0.0, 0.25, null, 8);
        assertThat(new Thresholds(0.0, null, quarter).effectiveTolerance()).isEqualTo(0.25);
        assertThat(new Thresholds(0.5, null, quarter).effectiveTolerance()).isEqualTo(0.5);
        assertThat(new Thresholds(0.1, null, Calibration.NONE).effectiveTolerance()).isEqualTo(0.1);
    }

    // --- rule "baseline"

    @Test
    void anArmWithTheBaselinesOutputsMatchesByTheBaselineRule() {
        Decision d = agent(run(BASE), null, run(BASE), tolerance(0));
        assertThat(d.outcome()).isEqualTo(Outcome.MATCH);
        assertThat(d.rule()).isEqualTo(Rule.BASELINE);
        assertThat(d.fails()).isFalse();
        assertThat(d.reason()).isEqualTo("one at a time: 4/4 exact (100 %); at batch 8: 4/4 exact (100 %)");
    }

    @Test
    void theCalibratedFloorRaisesTheTolerance() {
        Greedy.ProbeRun arm = run(List.of("aa", "bb", "cc", "zz"));
        assertThat(agent(run(BASE), null, arm, tolerance(0)).outcome()).isEqualTo(Outcome.OUTPUT_MISMATCH);
        Decision d = agent(run(BASE), null, arm, new Thresholds(0, null, new Calibration(0.25, 0.0, 0.25, null, 8)));
        assertThat(d.outcome()).isEqualTo(Outcome.MATCH);
        assertThat(d.rule()).isEqualTo(Rule.BASELINE);
    }

    @Test
    void aMismatchOnlyAtBatchSizeEightFailsTheGate() {
        Greedy.ProbeRun arm = run(texts("aa", "bb", "cc", "dd"), texts("aa", "bb", "cc", "zz"));
        CorrectnessRules.Comparison c = CorrectnessRules.compare(run(BASE), arm);
        assertThat(c.sequential().diff().mismatchFraction()).isZero();
        assertThat(c.mismatch()).isEqualTo(0.25);
        Decision d = agent(run(BASE), null, arm, tolerance(0));
        assertThat(d.outcome()).isEqualTo(Outcome.OUTPUT_MISMATCH);
        assertThat(d.reason()).contains("25 % of the outputs differ")
                .contains("at batch 8: 3/4 exact (75 %)");
    }

    @Test
    void anArmWithoutConcurrentPassIsComparedOnItsSequentialPassAlone() {
        Decision d = agent(run(BASE), null, Greedy.ProbeRun.sequentialOnly(texts("aa", "bb", "cc", "dd")),
                tolerance(0));
        assertThat(d.rule()).isEqualTo(Rule.BASELINE);
        assertThat(d.reason()).doesNotContain("at batch");
    }

    @Test
    void identicalTextsWithTooMuchLogprobDriftDoNotMatchTheBaseline() {
        Probe r = new Probe("x y", List.of(1, 2), List.of(-0.1, -0.2));
        Probe x = new Probe("x y", List.of(1, 2), List.of(-0.1, -0.9));
        Decision d = agent(run(List.of(r), List.of(r)), null, run(List.of(x), List.of(x)),
                new Thresholds(0, 0.05, Calibration.NONE));
        assertThat(d.outcome()).isEqualTo(Outcome.OUTPUT_MISMATCH);
        assertThat(d.reason()).contains("logprob drift 0.7000 exceeds max_logprob_drift 0.05000");
    }

    // --- the human

    @Test
    void aHumanThatChangesOutputsIsReportedNotFailed() {
        CorrectnessRules.Comparison hb = CorrectnessRules.compare(run(BASE), run(List.of("AA", "BB", "cc", "dd")));
        Decision d = CorrectnessRules.human(hb, tolerance(0));
        assertThat(d.outcome()).isEqualTo(Outcome.CHANGES_OUTPUTS);
        assertThat(d.rule()).isNull();
        assertThat(d.fails()).isFalse();
        assertThat(d.reason()).contains("changes the outputs").contains("50 % of the outputs differ");
        assertThat(CorrectnessRules.changesOutputs(hb, tolerance(0))).isTrue();
        assertThat(CorrectnessRules.changesOutputs(hb, tolerance(0.5))).isFalse();
    }

    @Test
    void aHumanWithTheBaselinesOutputsMatchesByTheBaselineRule() {
        Decision d = CorrectnessRules.human(CorrectnessRules.compare(run(BASE), run(BASE)), tolerance(0));
        assertThat(d.outcome()).isEqualTo(Outcome.MATCH);
        assertThat(d.rule()).isEqualTo(Rule.BASELINE);
    }

    // --- rule "human"

    @Test
    void anAgentThatReproducesAHumanWhoChangesOutputsMatchesByTheHumanRule() {
        Greedy.ProbeRun human = run(List.of("AA", "BB", "cc", "dd"));
        Decision d = agent(run(BASE), human, run(List.of("AA", "BB", "cc", "dd")), tolerance(0));
        assertThat(d.outcome()).isEqualTo(Outcome.MATCH);
        assertThat(d.rule()).isEqualTo(Rule.HUMAN);
        assertThat(d.reason()).contains("reproduces the human").contains("(vs baseline: one at a time: 2/4 exact");
    }

    @Test
    void theHumanRuleNeedsAHumanWhoChangesOutputs() {
        // τ 25 %: the human differs from the baseline on 1 probe (within τ), the agent on 2 (1 from the human)
        Greedy.ProbeRun human = run(List.of("AA", "bb", "cc", "dd"));
        Decision d = agent(run(BASE), human, run(List.of("AA", "BB", "cc", "dd")), tolerance(0.25));
        assertThat(d.outcome()).isEqualTo(Outcome.OUTPUT_MISMATCH);
        assertThat(d.reason()).contains("vs baseline: 50 %").contains("the human does not change outputs");
    }

    @Test
    void aWrongAgentFailsAgainstBothAndTheReasonNamesBoth() {
        Greedy.ProbeRun human = run(List.of("AA", "BB", "cc", "dd"));
        Decision d = agent(run(BASE), human, run(List.of("aa", "bb", "xx", "yy")), tolerance(0));
        assertThat(d.outcome()).isEqualTo(Outcome.OUTPUT_MISMATCH);
        assertThat(d.rule()).isNull();
        assertThat(d.fails()).isTrue();
        assertThat(d.reason()).startsWith("vs baseline: 50 % of the outputs differ (tolerance 0 %)")
                .contains("; vs human: 100 % of the outputs differ");
    }

    @Test
    void withoutHumanOutputsTheReasonSaysSo() {
        Decision d = agent(run(BASE), null, run(List.of("xx", "bb", "cc", "dd")), tolerance(0));
        assertThat(d.reason()).contains("vs human: no human outputs to compare with");
    }

    // --- rule "logprob_drift"

    /** Reference chose token 7 at index 1 with p ≈ 0.45; the arm chose token 8 with p ≈ 0.44: a near tie. */
    private static final Probe REF = new Probe("x y z", List.of(1, 7, 3), List.of(-0.10, -0.80, -0.20));
    private static final Probe FLIP = new Probe("x w v", List.of(1, 8, 4), List.of(-0.11, -0.82, -0.05));
    /** The same flip, but both sides were sure of their (different) token: not a tie. */
    private static final Probe SURE_REF = new Probe("x y z", List.of(1, 7, 3), List.of(-0.10, -0.01, -0.20));
    private static final Probe SURE_ARM = new Probe("x w v", List.of(1, 8, 4), List.of(-0.10, -0.01, -0.20));

    @Test
    void aNearTieArgmaxFlipWithinTheDriftLimitMatchesByTheLogprobDriftRule() {
        Decision d = agent(run(List.of(REF), List.of(REF)), null, run(List.of(FLIP), List.of(FLIP)),
                new Thresholds(0, 0.05, Calibration.NONE));
        assertThat(d.outcome()).isEqualTo(Outcome.MATCH);
        assertThat(d.rule()).isEqualTo(Rule.LOGPROB_DRIFT);
        assertThat(d.reason()).contains("near-tie argmax flips").contains("baseline's");
    }

    @Test
    void theLogprobDriftRuleOnlyAppliesWhenConfigured() {
        Decision d = agent(run(List.of(REF), List.of(REF)), null, run(List.of(FLIP), List.of(FLIP)), tolerance(0));
        assertThat(d.outcome()).isEqualTo(Outcome.OUTPUT_MISMATCH);
    }

    @Test
    void aConfidentFlipIsNotANearTie() {
        assertThat(CorrectnessRules.nearTieFlip(REF, FLIP, 0.05)).isTrue();
        assertThat(CorrectnessRules.nearTieFlip(SURE_REF, SURE_ARM, 0.05)).isFalse();
        assertThat(CorrectnessRules.nearTieFlip(REF, FLIP, 0.01)).isFalse(); // the two logprobs are 0.02 apart
        assertThat(CorrectnessRules.nearTieFlip(Probe.text("x y"), Probe.text("x w"), 1.0)).isFalse(); // no evidence
        Decision d = agent(run(List.of(SURE_REF), List.of(SURE_REF)), null,
                run(List.of(SURE_ARM), List.of(SURE_ARM)), new Thresholds(0, 0.05, Calibration.NONE));
        assertThat(d.outcome()).isEqualTo(Outcome.OUTPUT_MISMATCH);
    }

    @Test
    void aStopIsNotAFlip() {
        Probe longer = new Probe("x y z", List.of(1, 7, 3), List.of(-0.1, -0.8, -0.9));
        Probe stopped = new Probe("x y", List.of(1, 7), List.of(-0.1, -0.8));
        assertThat(CorrectnessRules.nearTieFlip(longer, stopped, 1.0)).isFalse();
    }

    @Test
    void theLogprobDriftRuleAlsoAcceptsNearTiesAgainstTheHuman() {
        Probe base = new Probe("q r s", List.of(9, 9, 9), List.of(-0.1, -0.1, -0.1));
        Greedy.ProbeRun b = run(List.of(base), List.of(base));
        Greedy.ProbeRun human = run(List.of(REF), List.of(REF));
        Decision d = agent(b, human, run(List.of(FLIP), List.of(FLIP)), new Thresholds(0, 0.05, Calibration.NONE));
        assertThat(d.outcome()).isEqualTo(Outcome.MATCH);
        assertThat(d.rule()).isEqualTo(Rule.LOGPROB_DRIFT);
        assertThat(d.reason()).contains("human's");
    }

    @Test
    void aHumanWhoseDifferencesAreNearTiesMatchesByTheLogprobDriftRule() {
        Decision d = CorrectnessRules.human(CorrectnessRules.compare(run(List.of(REF), List.of(REF)),
                run(List.of(FLIP), List.of(FLIP))), new Thresholds(0, 0.05, Calibration.NONE));
        assertThat(d.outcome()).isEqualTo(Outcome.MATCH);
        assertThat(d.rule()).isEqualTo(Rule.LOGPROB_DRIFT);
    }

    @Test
    void rulesApplyInOrderTheBaselineRuleFirst() {
        // the arm equals both the baseline and a human within τ: the baseline rule decides
        Greedy.ProbeRun human = run(List.of("aa", "bb", "cc", "dX"));
        Decision d = agent(run(BASE), human, run(BASE), tolerance(0.25));
        assertThat(d.rule()).isEqualTo(Rule.BASELINE);
    }
}
