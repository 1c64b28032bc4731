package io.isobench.exec;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Arm;
import io.isobench.env.Environment;
import io.isobench.guard.Secrets;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.RuleReader;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.review.ReviewResult;
import io.isobench.store.NativeDetails;
import io.isobench.store.RunRecord;
import io.isobench.task.TaskSpec;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

/**
 * The accuracy hook of a task (issue "Correctness and integrity gates", point 3): the task's accuracy command runs
 * once per arm, in the arm's environment, after the benchmark rounds; its score ({@code accuracy_score}) is parsed
 * and compared with the baseline's within the tolerance. The session's recorder stores it as a run of pipeline
 * {@code native-accuracy} (kind MEASURED, round 0, role {@code accuracy}) whose extra_json {@code accuracy} says the
 * outcome: {@code REFERENCE} (baseline), {@code OK},
 * {@code ACCURACY_REGRESSION} (failure OUTPUT_MISMATCH), {@code ACCURACY_FAILED} (the command failed or printed no
 * score), {@code NO_REFERENCE} (the baseline has no score).
 */
public final class Accuracy {

    public static final String METRIC = "accuracy_score";

    private Accuracy() {
    }

    /** Parsed score, or the reason there is none. */
    public record Score(Double value, String problem) {
    }

    /**
     * The arm whose accuracy is measured, in its ready environment.
     *
     * @param commit the commit the arm's runs are recorded under
     * @param job    the arm's accuracy job (its command, settings, mode, limit and env)
     * @param review the arm's patch review; null when none
     */
    public record Target(ArmSpec arm, TaskSpec task, Environment env, String commit, Job job, ReviewResult review) {
    }

    /**
     * The run id of an arm's accuracy run in a session: {@code SESSION/TASK/ARM-LABEL/accuracy}, stored text (old stores
     * are resumed by it), so the arm is written as its label here and never read back from it.
     */
    public static String runId(String sessionId, ArmSpec a) {
        return sessionId + "/" + a.taskId() + "/" + a.arm().label() + "/accuracy";
    }

    /**
     * What an accuracy run measured, for the session's recorder to store (under {@link #runId}).
     *
     * @param result  the executor's result (its log, wall time, argv)
     * @param failure why the arm's accuracy failed or regressed; null when OK or the reference
     * @param score   the parsed {@code accuracy_score} (kept on a regression); null when the command printed none
     * @param outcome the {@code accuracy} section: the outcome against the baseline's score
     * @param model   the task's model
     */
    public record Measured(JobResult result, Failure failure, Double score, NativeDetails.AccuracyOutcome outcome,
                           String model) {
    }

    /**
     * Runs the arm's accuracy job through the executor, in the arm's environment, and compares its score with the
     * baseline's run among {@code previous}; nothing is stored here (the session's recorder stores the run).
     */
    public static Measured run(String sessionId, Target target, Executor executor, LongConsumer groupStarted,
                               Map<String, RunRecord> previous) {
        ArmSpec arm = target.arm();
        TaskSpec task = target.task();
        Job job = target.job().in(target.env().path());
        String runId = runId(sessionId, arm);
        TaskSpec.Accuracy acc = ((JobSpec.Accuracy) job.spec()).settings();
        String model = task.parsedCommand().model() != null ? task.parsedCommand().model() : task.model();
        List<String> command = job.argv().stream().map(Secrets::redact).toList();
        JobResult result = executor.execute(job, new Executor.Hooks(groupStarted, () -> false, runId));
        String text = result.log() == null ? "" : result.log();
        Failure failure = result.failure();
        Double score = null;
        if (failure == null) {
            Score s = parse(text, acc);
            if (s.value() == null) {
                failure = new Failure(FailureCategory.NO_METRICS, "ACCURACY_FAILED: " + s.problem(), lastLines(text));
            } else {
                score = s.value();
            }
        }
        NativeDetails.Rule rule = new NativeDetails.Rule(acc.higherIsBetter(), acc.toleranceAbs(),
                acc.toleranceRel());
        if (failure != null) {
            return new Measured(result, failure, score, new NativeDetails.AccuracyOutcome(command, score, rule, null,
                    "ACCURACY_FAILED", failure.detail()), model);
        }
        if (job.arm().kind() == Arm.Kind.BASELINE) {
            return new Measured(result, null, score, new NativeDetails.AccuracyOutcome(command, score, rule, null,
                    "REFERENCE", "the baseline's score is the reference"), model);
        }
        Double base = baselineScore(previous, sessionId, arm);
        if (base == null) {
            return new Measured(result, null, score, new NativeDetails.AccuracyOutcome(command, score, rule,
                    new NativeDetails.Comparison(null, null, null), "NO_REFERENCE", "the baseline has no accuracy"
                    + " score (its accuracy command failed): nothing to compare with"), model);
        }
        Verdict v = compare(base, score, acc);
        if (v.regression()) {
            failure = new Failure(FailureCategory.OUTPUT_MISMATCH, "ACCURACY_REGRESSION: " + v.reason(),
                    List.of(String.format(Locale.ROOT, "accuracy_score %s vs baseline %s", num(score), num(base))));
        }
        return new Measured(result, failure, score, new NativeDetails.AccuracyOutcome(command, score, rule,
                new NativeDetails.Comparison(base, v.delta(), v.allowedLoss()), v.regression()
                ? "ACCURACY_REGRESSION" : "OK", v.reason()), model);
    }

    /** The failure of an accuracy command that could not start. */
    static Failure cannotStart(List<String> argv, IOException e) {
        return new Failure(FailureCategory.BAD_PERF_COMMAND, "ACCURACY_FAILED: cannot start the accuracy command "
                + argv.get(0) + ": " + e.getMessage(), List.of(String.valueOf(e.getMessage())));
    }

    /**
     * The failure of an ended accuracy command: killed at its limit ({@code exit} null) or a non-zero exit, classified
     * from its output; null when it exited 0 (its score is read next).
     */
    static Failure exitFailure(Integer exit, String text, int timeoutS) {
        if (exit == null) {
            return new Failure(FailureCategory.TIMEOUT, "ACCURACY_FAILED: the accuracy command ran past "
                    + timeoutS + " s and was killed", List.of("timeout " + timeoutS + " s"));
        }
        if (exit == 0) {
            return null;
        }
        Optional<Failure> f = FailureClassifier.classify(text);
        String detail = "ACCURACY_FAILED: the accuracy command exited with code " + exit;
        return f.isPresent() && f.get().category().precedence() == 1
                ? new Failure(f.get().category(), detail + " (" + f.get().detail() + ")", f.get().evidence())
                : new Failure(FailureCategory.UNKNOWN, detail, lastLines(text));
    }

    private static Double baselineScore(Map<String, RunRecord> runs, String sessionId, ArmSpec arm) {
        RunRecord b = runs.get(sessionId + "/" + arm.taskId() + "/baseline/accuracy");
        return b == null || b.status() != RunRecord.RunStatus.SUCCESS ? null : b.primaryValue();
    }

    /** The comparison with the baseline's score. */
    public record Verdict(boolean regression, double delta, double allowedLoss, String reason) {
    }

    /**
     * Regression when the arm's score is worse than the baseline's by more than max(tolerance_abs, tolerance_rel ×
     * |baseline|).
     */
    public static Verdict compare(double baseline, double score, TaskSpec.Accuracy acc) {
        double loss = acc.higherIsBetter() ? baseline - score : score - baseline;
        double allowed = Math.max(acc.toleranceAbs(), acc.toleranceRel() * Math.abs(baseline));
        boolean regression = loss > allowed + 1e-12;
        String reason = String.format(Locale.ROOT, "accuracy_score %s vs baseline %s (%s is better; loss %s, allowed %s)",
                num(score), num(baseline), acc.higherIsBetter() ? "higher" : "lower", num(Math.max(loss, 0)),
                num(allowed));
        return new Verdict(regression, score - baseline, allowed, reason);
    }

    /** The score in the command's output: {@code score_regex} (last match) or {@code json_path} (last JSON object). */
    public static Score parse(String output, TaskSpec.Accuracy acc) {
        if (acc.scoreRegex() != null) {
            String last = RuleReader.lastMatch(output, Pattern.compile(acc.scoreRegex()));
            if (last == null) {
                return new Score(null, "no match of score_regex /" + acc.scoreRegex() + "/ in the accuracy output");
            }
            return score(RuleReader.number(last.strip(), "score_regex matched '" + last.strip() + "'"));
        }
        JsonNode doc = RuleReader.lastJson(output);
        if (doc == null) {
            return new Score(null, "no JSON object in the accuracy output (json_path " + acc.jsonPath() + ")");
        }
        JsonNode n = RuleReader.at(doc, acc.jsonPath());
        if (n == null) {
            return new Score(null, "json_path " + acc.jsonPath() + " is not in the accuracy output's JSON");
        }
        if (n.isNumber()) {
            return new Score(n.asDouble(), null);
        }
        return score(RuleReader.number(n.asText(), "json_path " + acc.jsonPath() + " is '" + n.asText() + "'"));
    }

    private static Score score(RuleReader.Value v) {
        return new Score(v.value(), v.problem());
    }

    private static List<String> lastLines(String text) {
        List<String> lines = text.strip().lines().filter(l -> !l.isBlank()).toList();
        return List.copyOf(lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.4g", v);
    }
}
