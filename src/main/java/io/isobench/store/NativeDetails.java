package io.isobench.store;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a native session writes into a run's details, typed: where the run is in its session ({@link Place}: task, job,
 * plan index, role, plan seed), the arm environment's commits ({@link EnvFacts}), an accuracy run's outcome
 * ({@link AccuracyOutcome}), then the free-form sections in the order they were added (gate, probes, review, build,
 * telemetry, a placeholder's process group, …). Turned into the {@code extra_json} text only by
 * {@link RunDetailsCodec#write(NativeDetails)}, in that order (docs/store.md, "A native run's details"); read back
 * through {@link RunDetails}.
 *
 * @param place    where the run is in its session; never null
 * @param env      the arm environment's commits; null when the run has none (a placeholder)
 * @param accuracy an accuracy run's outcome; null for every other run
 * @param sections the free-form sections, keys in the order written (copied; values as Jackson writes them)
 */
public record NativeDetails(Place place, EnvFacts env, AccuracyOutcome accuracy, Map<String, Object> sections) {

    public NativeDetails {
        if (place == null) {
            throw new IllegalArgumentException("a native run's details need its place");
        }
        sections = Collections.unmodifiableMap(new LinkedHashMap<>(sections));
    }

    /**
     * Where a run is in its session. Written in this order, a null field left out.
     *
     * @param task     the task id; never null
     * @param job      the plan's job id ({@code task/arm/...}); null for an arm-level run (build, accuracy placeholder)
     * @param jobIndex the job's index in the plan; null when not recorded (placeholders)
     * @param role     the job's role label ({@code plan.JobRole}: measure, check, check-repeat, accuracy, pilot);
     *                 null for an arm-level run
     * @param planSeed the plan's seed; null when not recorded
     */
    public record Place(String task, String job, Integer jobIndex, String role, Long planSeed) {
        public Place {
            if (task == null) {
                throw new IllegalArgumentException("a native run's details need its task");
            }
        }

        /** An arm-level run's place (a build or accuracy placeholder): the task only. */
        public static Place ofTask(String task) {
            return new Place(task, null, null, null, null);
        }
    }

    /**
     * The commits of the arm's environment; all three keys are written, a null as JSON null.
     *
     * @param intendedCommit the commit the environment was meant to have
     * @param verifiedCommit the commit verified in it
     * @param patchSha256    the sha256 of the agent's patch applied; null for baseline and human
     */
    public record EnvFacts(String intendedCommit, String verifiedCommit, String patchSha256) {
    }

    /**
     * An accuracy run's outcome ({@code accuracy} section, docs/correctness.md).
     *
     * @param command    the accuracy command as run (redacted)
     * @param score      its {@code accuracy_score}; null when it printed none or failed
     * @param rule       the task's comparison settings
     * @param comparison the comparison with the baseline's score; null for the baseline and a failed command
     * @param outcome    REFERENCE, OK, ACCURACY_REGRESSION, ACCURACY_FAILED or NO_REFERENCE
     * @param reason     one line
     */
    public record AccuracyOutcome(List<String> command, Double score, Rule rule, Comparison comparison, String outcome,
                                 String reason) {
        public AccuracyOutcome {
            command = List.copyOf(command);
        }
    }

    /** How an accuracy score is compared: direction and tolerances. */
    public record Rule(boolean higherIsBetter, double toleranceAbs, double toleranceRel) {
    }

    /**
     * An accuracy score against the baseline's.
     *
     * @param baselineScore the baseline's score; null when it has none (NO_REFERENCE)
     * @param delta         score − baseline; null when there is no baseline score
     * @param allowedLoss   the loss the tolerances allow; null when there is no baseline score
     */
    public record Comparison(Double baselineScore, Double delta, Double allowedLoss) {
    }

    /** The details as the ordered map the codec writes (keys in the documented order). */
    Map<String, Object> toMap() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("task", place.task());
        putIfSet(out, "job", place.job());
        putIfSet(out, "job_index", place.jobIndex());
        putIfSet(out, "role", place.role());
        putIfSet(out, "plan_seed", place.planSeed());
        if (env != null) {
            out.put("intended_commit", env.intendedCommit());
            out.put("verified_commit", env.verifiedCommit());
            out.put("patch_sha256", env.patchSha256());
        }
        if (accuracy != null) {
            out.put("accuracy", accuracyMap(accuracy));
        }
        out.putAll(sections);
        return out;
    }

    private static Map<String, Object> accuracyMap(AccuracyOutcome a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", a.command());
        m.put("score", a.score());
        m.put("higher_is_better", a.rule().higherIsBetter());
        m.put("tolerance_abs", a.rule().toleranceAbs());
        m.put("tolerance_rel", a.rule().toleranceRel());
        if (a.comparison() != null) {
            m.put("baseline_score", a.comparison().baselineScore());
            if (a.comparison().delta() != null) {
                m.put("delta", a.comparison().delta());
                m.put("allowed_loss", a.comparison().allowedLoss());
            }
        }
        m.put("outcome", a.outcome());
        m.put("reason", a.reason());
        return m;
    }

    private static void putIfSet(Map<String, Object> out, String key, Object value) {
        if (value != null) {
            out.put(key, value);
        }
    }
}
