package io.isobench.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.env.ArmSetup;
import io.isobench.env.Environment;
import io.isobench.env.RecipeApplication;
import io.isobench.exec.SessionSetup;
import io.isobench.guard.Secrets;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.review.Check;
import io.isobench.review.Finding;
import io.isobench.review.PatchReview;
import io.isobench.review.ReviewConfig;
import io.isobench.review.ReviewResult;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.isobench.session.RunRecorder.accuracyRunId;
import static io.isobench.session.RunRecorder.runId;

/**
 * Makes a session's arms ready: registers the tasks, runs the plan's setup steps, reviews the agents' patches (once
 * per arm) and prepares the environment (and build) of every arm that still has a run to do. An arm whose patch the
 * review fails is not prepared at all: its patch is never applied, built or measured ({@code PATCH_REJECTED}).
 */
final class ArmPreparation {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Store store;
    private final Suite suite;
    private final Plan plan;
    private final SessionContext ctx;
    private final RunRecorder recorder;
    private final Map<ArmKey, Optional<ReviewResult>> reviews = new ConcurrentHashMap<>();

    ArmPreparation(SessionContext ctx, RunRecorder recorder) {
        this.store = ctx.store();
        this.suite = ctx.suite();
        this.plan = ctx.plan();
        this.ctx = ctx;
        this.recorder = recorder;
    }

    /** One arm of one task: what the prepared environments, build logs and reviews are keyed by. */
    record ArmKey(String taskId, Arm arm) {
        static ArmKey of(Job j) {
            return new ArmKey(j.taskId(), j.arm());
        }

        static ArmKey of(ArmSpec a) {
            return new ArmKey(a.taskId(), a.arm());
        }
    }

    /**
     * The arms made ready for this attempt.
     *
     * @param envs      the arms' environments
     * @param buildLogs the artifact id of each built arm's build log
     * @param humanSha  the human arm's commit per task, as its environment resolved it
     */
    record Arms(Map<ArmKey, Environment> envs, Map<ArmKey, String> buildLogs, Map<String, String> humanSha) {

        /** The environment of the job's arm, or null when it was not made in this attempt. */
        Environment envOf(Job j) {
            return envs.get(ArmKey.of(j));
        }
    }

    /** The environments of the arms that have a run left in this attempt (re-made on resume: known-clean). */
    Arms prepare(Attempt attempt) {
        String sessionId = attempt.sessionId();
        Set<String> finished = attempt.finished();

        for (TaskSpec t : suite.tasks()) {
            store.putTask(TaskRecord.builder(t.id()).repo(suite.engine().repo())
                    .commit(t.humanCommit(), t.parentCommit()).perfCommand(t.perfCommand()).model(t.model()).gpus(null, t.gpus()).build());
        }

        SessionSetup.run(plan, suite.run().timeouts().buildS(), this::say);
        // environments (cheap with worktrees; re-made on resume so they are known-clean)
        Map<ArmKey, Environment> envs = new LinkedHashMap<>();
        Set<ArmKey> neededArms = new HashSet<>();
        for (Job j : plan.jobs()) {
            if (!finished.contains(runId(sessionId, j))) {
                neededArms.add(ArmKey.of(j));
            }
        }
        Map<String, String> humanSha = new HashMap<>();
        Map<ArmKey, String> buildLogs = new HashMap<>();
        for (ArmSpec a : plan.arms()) {
            if (!neededArms.contains(ArmKey.of(a))) {
                continue;
            }
            TaskSpec task = suite.task(a.taskId()).orElseThrow();
            String buildRun = openRunOf(sessionId, a, finished);
            ArmSetup setup = new ArmSetup(suite.recipesFor(a.taskId(), a.label()),
                    suite.buildArgv(task), suite.run().timeouts().buildS(), pgid -> store.putRun(
                    recorder.armPlaceholder(buildRun, sessionId, a, task.humanCommit(), "build", pgid)));
            // the review comes first: a patch it fails is never applied (a sparse file's binary patch, issue 27)
            ReviewResult review = a.patch() == null ? null : review(a.taskId(), a.arm(), task);
            Environment env = review != null && review.failsArm() ? rejected(review)
                    : ctx.options().executor().prepare(a, plan.repo(), setup);
            envs.put(ArmKey.of(a), env);
            if (env.build() != null) {
                buildLogs.put(ArmKey.of(a), store.putArtifact("build_log",
                        Secrets.redact(env.build().log()).getBytes(StandardCharsets.UTF_8)));
            }
            if (a.arm().equals(Arm.HUMAN) && env.intendedCommit() != null) {
                humanSha.put(a.taskId(), env.intendedCommit());
            }
            say(String.format(Locale.ROOT, "env %s %s: %s", a.taskId(), a.label(), env.ready()
                    ? (env.verifiedCommit() == null ? env.envRef() : "at " + env.verifiedCommit().substring(0, 12)
                    + (a.patch() == null ? "" : " + patch"))
                    + (env.recipes().isEmpty() ? "" : " + recipes " + String.join(",",
                    env.recipes().stream().map(RecipeApplication::name).toList()))
                    + (env.build() == null ? "" : String.format(Locale.ROOT, ", built in %.1f s",
                    env.build().durationMs() / 1000))
                    : env.failure().category() + " — " + env.failure().detail()));
        }
        return new Arms(envs, buildLogs, humanSha);
    }

    /** The environment of an arm whose patch the review failed: not made, the failing findings as its reason. */
    private static Environment rejected(ReviewResult review) {
        List<String> failing = review.findings().stream()
                .filter(f -> f.severity() == Finding.Severity.ERROR)
                .map(Finding::oneLine).toList();
        String detail = "the patch review fails the arm; its patch was not applied: " + String.join("; ", failing);
        return Environment.failed(null, null, new Failure(FailureCategory.PATCH_REJECTED, detail, failing),
                detail + "\n");
    }

    private void say(String line) {
        ctx.listener().note(line);
    }

    /** The job with the arm's recipe variables added (the perf_command's own {@code VAR=value} prefix wins). */
    static Job withEnv(Job job, Map<String, String> armEnv) {
        if (armEnv.isEmpty()) {
            return job;
        }
        Map<String, String> env = new LinkedHashMap<>(armEnv);
        env.putAll(job.env());
        return job.withEnv(env);
    }

    /** The patch review of an agent arm (once per arm); null for baseline/human or an unreadable patch. */
    ReviewResult review(String taskId, Arm arm, TaskSpec task) {
        return reviews.computeIfAbsent(new ArmKey(taskId, arm), k -> {
            Path patch = plan.arm(taskId, arm).map(ArmSpec::patch).orElse(null);
            if (patch == null) {
                return Optional.empty();
            }
            try {
                return Optional.of(PatchReview.review(patch, reviewConfig(task))); // streamed, bounded memory
            } catch (IOException | UncheckedIOException e) {
                return Optional.empty();
            }
        }).orElse(null);
    }

    /** The review settings of a task: defaults, the files its perf_command names, then the suite's review keys. */
    public static ReviewConfig reviewConfig(TaskSpec task) {
        ReviewConfig rc = ReviewConfig.defaults().withPerfCommand(task.perfCommand());
        if (task.generic() != null) {
            rc = rc.withEngineRoots(List.of()); // the default roots are vLLM's; a generic engine names its own
        }
        TaskSpec.Review r = task.review();
        if (r == null) {
            return rc;
        }
        if (r.failOn() != null) {
            Set<Check> checks = new HashSet<>();
            for (String n : r.failOn()) {
                checks.add(Check.valueOf(n.toUpperCase(Locale.ROOT)));
            }
            rc = rc.withFailingChecks(checks);
        }
        if (r.maxPatchLines() != null || r.maxPatchBytes() != null) {
            rc = rc.withMaxPatch(r.maxPatchLines() != null ? r.maxPatchLines() : rc.maxChangedLines(),
                    r.maxPatchBytes() != null ? r.maxPatchBytes() : rc.maxPatchBytes());
        }
        if (r.engineRoots() != null) {
            rc = rc.withEngineRoots(r.engineRoots());
        }
        return rc;
    }

    /**
     * Review fields of a run's extra_json: {@code review_findings} (one line per finding: SUSPICIOUS_PATCH reasons),
     * {@code review_fails_arm}, {@code review_failing} (the findings the suite marks as failing the arm); the check
     * run also carries {@code review} (the whole review with every evidence hunk) and the artifact
     * {@code patch_review}.
     */
    void putReview(Map<String, Object> extra, ReviewResult review, boolean full) {
        if (review.suspicious()) {
            extra.put("review_findings", review.reasons());
            extra.put("review_fails_arm", review.failsArm());
            extra.put("review_failing", review.findings().stream()
                    .filter(f -> f.severity() == Finding.Severity.ERROR)
                    .map(Finding::oneLine).toList());
        }
        if (full) {
            try {
                extra.put("review", JSON.readTree(review.json()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            extra.put("review_artifact_sha256", store.putArtifact("patch_review",
                    review.json().getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** The run id an arm's build or pip group is recorded under: its first unfinished job, else its accuracy run. */
    private String openRunOf(String sessionId, ArmSpec a, Set<String> finished) {
        for (Job j : plan.jobs()) {
            if (j.taskId().equals(a.taskId()) && j.arm().equals(a.arm())
                    && !finished.contains(runId(sessionId, j))) {
                return runId(sessionId, j);
            }
        }
        return accuracyRunId(sessionId, a);
    }
}
