package io.isobench.probe;

import io.isobench.Fields;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The greedy-output gate's decisions (docs/correctness.md): the tolerance calibration from the baseline's two checks,
 * and the rules, in order, that judge the human and the agents against the baseline and the human.
 *
 * <p>Pure: probe runs in, decisions out. The check runs store what it returns.
 */
public final class CorrectnessRules {

    private CorrectnessRules() {
    }

    /** Which rule let an arm pass; stored as {@code correctness.rule}. */
    public enum Rule {
        /** Within the tolerance of the baseline's outputs. */
        BASELINE,
        /** Within the tolerance of the human's outputs, where the human commit changes outputs. */
        HUMAN,
        /** Texts differ only by near-tie argmax flips, the logprobs within {@code max_logprob_drift}. */
        LOGPROB_DRIFT;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The gate's outcome for the human or an agent; stored as {@code correctness.outcome}. */
    public enum Outcome {
        MATCH,
        OUTPUT_MISMATCH,
        /** The human's outputs differ from the baseline's beyond the tolerance: reported, never a failure. */
        CHANGES_OUTPUTS
    }

    /**
     * An arm's probes compared with a reference's, each pass with the same pass of the reference.
     *
     * @param sequential the sequential passes compared
     * @param batched    the concurrent passes compared; null when either side has none
     */
    public record Comparison(ProbePair sequential, ProbePair batched) {

        /** The larger of the two passes' mismatch fractions. */
        public double mismatch() {
            return Math.max(sequential.diff().mismatchFraction(),
                    batched == null ? 0 : batched.diff().mismatchFraction());
        }

        /** The largest logprob drift of the two passes; null when neither side returned logprobs. */
        public Double drift() {
            return max(sequential.diff().maxLogprobDrift(), batched == null ? null : batched.diff().maxLogprobDrift());
        }

        /**
         * The larger of the two passes' fractions of probes that differ other than by a near-tie argmax flip
         * ({@link #nearTieFlip}) at drift {@code maxDrift}.
         */
        public double unexplainedMismatch(double maxDrift) {
            return Math.max(sequential.unexplained(maxDrift), batched == null ? 0 : batched.unexplained(maxDrift));
        }

        /** "one at a time: 8/8 exact (100 %); at batch 8: 7/8 exact (88 %), first divergence: …". */
        public String describe() {
            return "one at a time: " + sequential.diff().describe() + (batched == null ? ""
                    : "; at batch " + batched.batchSize() + ": " + batched.diff().describe());
        }
    }

    /**
     * One pass of an arm against the same pass of a reference.
     *
     * @param reference the reference's probes
     * @param arm       the arm's probes
     * @param batchSize requests in flight in this pass (1: sequential)
     * @param diff      {@link OutputDiff#compare} of the two
     */
    public record ProbePair(List<Probe> reference, List<Probe> arm, int batchSize, OutputDiff diff) {

        static ProbePair of(List<Probe> reference, List<Probe> arm, int batchSize) {
            return new ProbePair(List.copyOf(reference), List.copyOf(arm), batchSize,
                    OutputDiff.compare(reference, arm));
        }

        /** Fraction of the reference's probes the arm does not reproduce; near-tie flips at {@code maxDrift} pass. */
        double unexplained(double maxDrift) {
            int total = Math.max(reference.size(), arm.size());
            if (total == 0) {
                return 1.0;
            }
            int bad = arm.size() - Math.min(arm.size(), reference.size()); // extra outputs never match
            for (int i = 0; i < reference.size(); i++) {
                Probe x = i < arm.size() ? arm.get(i) : null;
                Probe r = reference.get(i);
                if (x == null || !r.text().equals(x.text()) && !nearTieFlip(r, x, maxDrift)) {
                    bad++;
                }
            }
            return (double) bad / total;
        }
    }

    /** Compares an arm's probe run with a reference's: sequential with sequential, batched with batched. */
    public static Comparison compare(Greedy.ProbeRun reference, Greedy.ProbeRun arm) {
        ProbePair seq = ProbePair.of(reference.sequential(), arm.sequential(), 1);
        ProbePair bat = reference.hasBatched() && arm.hasBatched()
                ? ProbePair.of(reference.batched(), arm.batched(), arm.batchSize()) : null;
        return new Comparison(seq, bat);
    }

    /**
     * Whether two probes that differ do so by a near-tie argmax flip: the generated token ids agree up to a first
     * differing token at which both sides' chosen tokens have logprobs within {@code maxDrift} of each other and
     * neither above {@code ln 0.5 + maxDrift}. Both are necessary when every logprob moves by at most
     * {@code maxDrift}: a token whose probability is above one half cannot lose the argmax to another, and the token
     * that takes its place had nearly its probability. Needs token ids and logprobs on both sides.
     */
    static boolean nearTieFlip(Probe reference, Probe arm, double maxDrift) {
        if (reference.tokenIds() == null || arm.tokenIds() == null || reference.logprobs() == null
                || arm.logprobs() == null) {
            return false;
        }
        int t = OutputDiff.divergence(reference.tokenIds(), arm.tokenIds());
        if (t < 0 || t >= reference.logprobs().size() || t >= arm.logprobs().size()
                || t >= reference.tokenIds().size() || t >= arm.tokenIds().size()) {
            return false; // same tokens, or one output is a prefix of the other (a stop, not a flip)
        }
        double a = reference.logprobs().get(t);
        double b = arm.logprobs().get(t);
        double ceiling = Math.log(0.5) + maxDrift;
        return !Double.isNaN(a) && !Double.isNaN(b) && Math.abs(a - b) <= maxDrift && a <= ceiling && b <= ceiling;
    }

    /**
     * The tolerance calibration: how much the baseline disagrees with itself across two independent server starts
     * and between batch size 1 and the concurrent pass.
     *
     * @param restartMismatch   largest mismatch fraction of the second start vs the first, pass by pass
     * @param batchMismatch     largest mismatch fraction of the concurrent pass vs the sequential one, within each
     *                          start; null when neither start had a concurrent pass
     * @param floor             the largest of these: the tolerance never goes below it
     * @param logprobDriftFloor largest logprob drift among the same comparisons; null without logprobs
     * @param batchSize         requests in flight in the concurrent pass; 0 when there was none
     */
    public record Calibration(double restartMismatch, Double batchMismatch, double floor, Double logprobDriftFloor,
                              int batchSize) {

        /** No calibration (the repeat check is missing or failed): floor 0. */
        public static final Calibration NONE = new Calibration(0, null, 0, null, 0);

        public Map<String, Object> toMap() {
            return Fields.inOrder("restart_mismatch", restartMismatch, "batch_mismatch", batchMismatch, "floor", floor,
                    "logprob_drift_floor", logprobDriftFloor, "batch_size", batchSize == 0 ? null : batchSize);
        }

        public String describe() {
            return String.format(Locale.ROOT, "baseline vs itself: %s across two independent starts, %s; tolerance"
                            + " floor %s%s", pct(restartMismatch), batchMismatch == null
                            ? "batch sizes not compared (no concurrent pass)"
                            : pct(batchMismatch) + " between batch size 1 and " + batchSize, pct(floor),
                    logprobDriftFloor == null ? "" : String.format(Locale.ROOT, ", logprob drift floor %.3g",
                            logprobDriftFloor));
        }
    }

    /** The calibration from the baseline's first check and its repeat check (a second server start). */
    public static Calibration calibrate(Greedy.ProbeRun first, Greedy.ProbeRun repeat) {
        List<OutputDiff> restart = new ArrayList<>();
        restart.add(OutputDiff.compare(first.sequential(), repeat.sequential()));
        if (first.hasBatched() && repeat.hasBatched()) {
            restart.add(OutputDiff.compare(first.batched(), repeat.batched()));
        }
        List<OutputDiff> batch = new ArrayList<>();
        for (Greedy.ProbeRun r : List.of(first, repeat)) {
            if (r.hasBatched()) {
                batch.add(OutputDiff.compare(r.sequential(), r.batched()));
            }
        }
        double restartMismatch = restart.stream().mapToDouble(OutputDiff::mismatchFraction).max().orElse(0);
        Double batchMismatch = batch.isEmpty() ? null
                : batch.stream().mapToDouble(OutputDiff::mismatchFraction).max().orElse(0);
        Double drift = null;
        for (OutputDiff d : restart) {
            drift = max(drift, d.maxLogprobDrift());
        }
        for (OutputDiff d : batch) {
            drift = max(drift, d.maxLogprobDrift());
        }
        return new Calibration(restartMismatch, batchMismatch,
                Math.max(restartMismatch, batchMismatch == null ? 0 : batchMismatch), drift,
                Math.max(first.batchSize(), repeat.batchSize()));
    }

    /**
     * The thresholds a check is judged with.
     *
     * @param tolerance       the task's {@code correctness.tolerance}
     * @param maxLogprobDrift the task's {@code max_logprob_drift}; null when not configured (reported, not gated)
     * @param calibration     the baseline's calibration ({@link Calibration#NONE} when not measured)
     */
    public record Thresholds(double tolerance, Double maxLogprobDrift, Calibration calibration) {

        /** τ = max(tolerance, floor). */
        public double effectiveTolerance() {
            return Math.max(tolerance, calibration.floor());
        }

        /** The drift limit, never below the baseline's own drift; null when not configured. */
        public Double effectiveMaxDrift() {
            if (maxLogprobDrift == null) {
                return null;
            }
            return calibration.logprobDriftFloor() == null ? maxLogprobDrift
                    : Math.max(maxLogprobDrift, calibration.logprobDriftFloor());
        }
    }

    /**
     * What the gate decided.
     *
     * @param outcome MATCH, OUTPUT_MISMATCH or (the human only) CHANGES_OUTPUTS
     * @param rule    the rule that let the arm pass; null otherwise
     * @param reason  one line, with the numbers
     */
    public record Decision(Outcome outcome, Rule rule, String reason) {

        public boolean fails() {
            return outcome == Outcome.OUTPUT_MISMATCH;
        }
    }

    /**
     * The human's check: MATCH by the baseline rule or the logprob-drift rule, else CHANGES_OUTPUTS (its commit
     * changes the outputs; not a failure).
     */
    public static Decision human(Comparison vsBaseline, Thresholds t) {
        if (withinTolerance(vsBaseline, t)) {
            return new Decision(Outcome.MATCH, Rule.BASELINE, vsBaseline.describe());
        }
        if (nearTiesOnly(vsBaseline, t)) {
            return new Decision(Outcome.MATCH, Rule.LOGPROB_DRIFT, "texts differ only by near-tie argmax flips"
                    + " within max_logprob_drift " + num(t.effectiveMaxDrift()) + ": " + vsBaseline.describe());
        }
        return new Decision(Outcome.CHANGES_OUTPUTS, null, "the human commit changes the outputs: "
                + beyond(vsBaseline, t) + " (reported, not a failure: agents may match the baseline or the human)");
    }

    /** Whether the human's outputs differ from the baseline's beyond the thresholds (its commit changes outputs). */
    public static boolean changesOutputs(Comparison humanVsBaseline, Thresholds t) {
        return !withinTolerance(humanVsBaseline, t);
    }

    /**
     * An agent's check, the rules in order: {@code baseline} (within τ of the baseline, drift within the limit when
     * configured), {@code human} (the human changes outputs and the arm is within τ of the human), {@code
     * logprob_drift} (drift limit configured; vs the baseline or the human the texts differ only by near-tie flips);
     * otherwise OUTPUT_MISMATCH.
     *
     * @param vsHuman         the arm vs the human; null when the human's check has no probes
     * @param humanVsBaseline the human vs the baseline; null when the human's check has no probes
     */
    public static Decision agent(Comparison vsBaseline, Comparison vsHuman, Comparison humanVsBaseline, Thresholds t) {
        if (withinTolerance(vsBaseline, t)) {
            return new Decision(Outcome.MATCH, Rule.BASELINE, vsBaseline.describe());
        }
        boolean humanChanges = humanVsBaseline != null && changesOutputs(humanVsBaseline, t);
        if (vsHuman != null && humanChanges && withinTolerance(vsHuman, t)) {
            return new Decision(Outcome.MATCH, Rule.HUMAN, "reproduces the human, whose commit changes outputs: "
                    + vsHuman.describe() + " (vs baseline: " + vsBaseline.describe() + ")");
        }
        if (nearTiesOnly(vsBaseline, t) || vsHuman != null && nearTiesOnly(vsHuman, t)) {
            Comparison c = nearTiesOnly(vsBaseline, t) ? vsBaseline : vsHuman;
            return new Decision(Outcome.MATCH, Rule.LOGPROB_DRIFT, "texts differ from the "
                    + (c == vsBaseline ? "baseline's" : "human's") + " only by near-tie argmax flips within"
                    + " max_logprob_drift " + num(t.effectiveMaxDrift()) + ": " + c.describe());
        }
        String vsH = vsHuman == null ? "no human outputs to compare with"
                : !humanChanges ? "the human does not change outputs (" + vsHuman.describe() + ")"
                : beyond(vsHuman, t);
        return new Decision(Outcome.OUTPUT_MISMATCH, null, "vs baseline: " + beyond(vsBaseline, t) + "; vs human: "
                + vsH);
    }

    /** The baseline rule: mismatch ≤ τ and, when a drift limit is configured, drift within it. */
    static boolean withinTolerance(Comparison c, Thresholds t) {
        return c.mismatch() <= t.effectiveTolerance() + 1e-12 && !driftExceeded(c, t);
    }

    private static boolean driftExceeded(Comparison c, Thresholds t) {
        Double limit = t.effectiveMaxDrift();
        return limit != null && c.drift() != null && c.drift() > limit;
    }

    /** The logprob-drift rule: configured, logprobs present, drift within it, the other differences within τ. */
    static boolean nearTiesOnly(Comparison c, Thresholds t) {
        Double limit = t.effectiveMaxDrift();
        return limit != null && c.drift() != null && c.drift() <= limit
                && c.unexplainedMismatch(limit) <= t.effectiveTolerance() + 1e-12;
    }

    /** "38 % differ (tolerance 0 %): 5/8 exact …" or the drift that exceeds the limit. */
    private static String beyond(Comparison c, Thresholds t) {
        if (c.mismatch() > t.effectiveTolerance() + 1e-12) {
            return String.format(Locale.ROOT, "%s of the outputs differ (tolerance %s): %s", pct(c.mismatch()),
                    pct(t.effectiveTolerance()), c.describe());
        }
        if (driftExceeded(c, t)) {
            return String.format(Locale.ROOT, "logprob drift %.4g exceeds max_logprob_drift %.4g: %s", c.drift(),
                    t.effectiveMaxDrift(), c.describe());
        }
        return "within the thresholds: " + c.describe();
    }

    private static String pct(double fraction) {
        return String.format(Locale.ROOT, "%.0f %%", fraction * 100);
    }

    private static String num(Double v) {
        return String.format(Locale.ROOT, "%.4g", v);
    }

    private static Double max(Double a, Double b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return Math.max(a, b);
    }
}
