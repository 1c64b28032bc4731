package io.isobench.session;

import io.isobench.plan.AutoSweep;
import io.isobench.store.Pipeline;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.env.Environment;
import io.isobench.exec.Accuracy;
import io.isobench.exec.JobResult;
import io.isobench.guard.Secrets;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.JobRole;
import io.isobench.probe.LostRequests;
import io.isobench.review.ReviewResult;
import io.isobench.store.NativeDetails;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one writer of a session's runs as the store keeps them: the run ids, the placeholder ({@code NOT_RUN}) a
 * command's process group is recorded under before it starts, a job's finished run (its primary metric, failure, log
 * artifact) and an arm's accuracy run. Every run's details are {@link NativeDetails} (typed place with the job's
 * {@link JobRole}, environment commits, accuracy outcome, then the sections, the load's fidelity last), turned into
 * text in one place ({@code store.RunDetailsCodec}).
 */
final class RunRecorder {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Store store;

    RunRecorder(Store store) {
        this.store = store;
    }

    /** The run id of an arm's accuracy run ({@link Accuracy#runId}). */
    static String accuracyRunId(String sessionId, ArmSpec a) {
        return Accuracy.runId(sessionId, a);
    }

    /** A check's, a {@code sweep: auto} pilot's or a measured round's pipeline. */
    static Pipeline pipelineOf(Job job) {
        return job.kind() == Job.Kind.CHECK ? Pipeline.NATIVE_CHECK
                : AutoSweep.isPilot(job) ? Pipeline.NATIVE_PILOT : Pipeline.NATIVE;
    }

    /** The run id of a job's run. */

    static String runId(String sessionId, Job job) {
        return sessionId + "/" + job.jobId();
    }

    /** A finished job's place in the session, as its run's details record it. */
    static NativeDetails.Place place(Job job, long planSeed) {
        return new NativeDetails.Place(job.taskId(), job.jobId(), job.index(), job.role().label(), planSeed);
    }

    /** The commits of an arm's environment as a run's details record them; null without an environment. */
    static NativeDetails.EnvFacts envFacts(Environment env) {
        return env == null ? null : new NativeDetails.EnvFacts(env.intendedCommit(), env.verifiedCommit(),
                env.patchSha256());
    }

    RunRecord placeholder(String rid, String sessionId, Job job, String commit, long pgid, int attempt) {
        Map<String, Object> extra = new LinkedHashMap<>();
        Leftovers.record(extra, pgid);
        extra.put("attempt", attempt);
        return measured(rid, sessionId, commit, job.arm())
                .round(Math.max(0, job.round()))
                .status(RunRecord.RunStatus.NOT_RUN)
                .mode(job.mode())
                .pipeline(pipelineOf(job))
                .startedAt(Instant.now())
                .argvJson(json(job.argv()))
                .notes("in progress")
                .details(RunDetails.of(new NativeDetails(new NativeDetails.Place(job.taskId(), job.jobId(), null,
                        job.role().label(), null), null, null, extra)))
                .build();
    }

    /**
     * The placeholder of a command that belongs to an arm rather than to one job (the accuracy command, the build, a
     * pip_pin install), under run id {@code rid}: a resumed session reaps its group like a job's.
     */
    RunRecord armPlaceholder(String rid, String sessionId, ArmSpec a, String commit, String phase, long pgid) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("phase", phase);
        Leftovers.record(extra, pgid);
        return measured(rid, sessionId, commit, a.arm())
                .status(RunRecord.RunStatus.NOT_RUN)
                .pipeline(Pipeline.NATIVE)
                .startedAt(Instant.now())
                .notes("in progress: " + phase)
                .details(RunDetails.of(new NativeDetails(NativeDetails.Place.ofTask(a.taskId()), null, null, extra)))
                .build();
    }

    /** A measured run of this session on {@code commit} for {@code arm}: the fields every record shares. */
    private static RunRecord.Builder measured(String rid, String sessionId, String commit, Arm arm) {
        return RunRecord.builder(rid)
                .session(sessionId)
                .kind(RunRecord.RunKind.MEASURED)
                .commit(commit, shortOf(commit))
                .agent(arm.agentName())
                .arm(arm);
    }

    /**
     * A job's finished run: its primary metric (a measured round without one, or one that lost requests, fails
     * here), failure, log artifact and {@code details}.
     *
     * @param commit the task's commit the run is filed under
     * @param env    the arm's environment (its commits, its reference); null when it has none
     * @param result the job's result as judged: its failure the correctness gate's where a check ran
     */
    RunRecord record(String sessionId, Job job, String commit, Environment env, JobResult result,
                     NativeDetails details) {
        String rid = runId(sessionId, job);
        Failure failure = result.failure();
        String primaryName = job.readout() != null ? job.readout().primary()
                : MetricDictionary.primaryMetric(job.mode());
        Double primary = null;
        if (failure == null || failure.category() == FailureCategory.OUTPUT_MISMATCH) {
            for (Metric m : result.metrics()) {
                if (m.name().equals(primaryName)) {
                    primary = m.value();
                }
            }
        }
        RunRecord.RunStatus status = failure == null ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED;
        if (job.kind() == Job.Kind.MEASURE && failure == null && primary == null) {
            failure = new Failure(FailureCategory.NO_METRICS, "no " + primaryName + " in the output", List.of());
            status = RunRecord.RunStatus.FAILED;
        }
        if (job.kind() == Job.Kind.MEASURE && failure == null) {
            failure = lostRequests(result);
            status = failure == null ? status : RunRecord.RunStatus.FAILED;
        }
        return measured(rid, sessionId, commit, job.arm())
                .round(Math.max(0, job.round()))
                .status(status)
                .failure(failureInfo(failure))
                .mode(job.mode())
                .model(job.model())
                .pipeline(pipelineOf(job))
                .primary(primary == null ? null : primaryName, primary, primary == null ? null : "measured")
                .workload(result.workloadJson())
                .startedAt(Instant.now().minusMillis((long) result.durationMs()))
                .durationMs(result.durationMs())
                .envRef(env == null ? null : env.envRef())
                .argvJson(json(Secrets.argv(result.argv())))
                .logArtifact(logArtifact(result.log()))
                .details(RunDetails.of(withFidelity(details, result)))
                .metrics(result.metrics())
                .build();
    }

    /**
     * The run's details with the load's fidelity its client measured (docs/loadgen.md): a {@code client_check} section
     * (saturated, reasons, the numbers; a saturated run's round is excluded, docs/statistics.md) and, for a run with
     * an arrival schedule, a {@code schedule} section; unchanged when the client measured neither.
     */
    static NativeDetails withFidelity(NativeDetails details, JobResult result) {
        if (result.clientCheck() == null && result.schedule() == null) {
            return details;
        }
        Map<String, Object> sections = new LinkedHashMap<>(details.sections());
        if (result.clientCheck() != null) {
            sections.put(RunDetails.CLIENT_CHECK, RunDetails.clientCheckSection(result.clientCheck()));
        }
        if (result.schedule() != null) {
            sections.put(RunDetails.SCHEDULE, RunDetails.scheduleSection(result.schedule()));
        }
        return new NativeDetails(details.place(), details.env(), details.accuracy(), sections);
    }

    /**
     * An arm's accuracy run (under {@link Accuracy#runId}): its score as primary metric (kept on a regression), the
     * {@code accuracy} outcome, the environment's commits and the patch review's findings.
     */
    RunRecord accuracy(String sessionId, Accuracy.Target target, Accuracy.Measured m) {
        ArmSpec arm = target.arm();
        Environment env = target.env();
        Map<String, Object> sections = new LinkedHashMap<>();
        ReviewResult review = target.review();
        if (review != null && review.suspicious()) {
            sections.put("review_findings", review.reasons());
            sections.put("review_fails_arm", review.failsArm());
        }
        // plan index: after every job of the plan; the job id as every store has it
        NativeDetails details = new NativeDetails(new NativeDetails.Place(arm.taskId(), arm.taskId() + "/"
                + arm.arm() + "/accuracy", Integer.MAX_VALUE / 2, JobRole.ACCURACY.label(), null), envFacts(env),
                m.outcome(), sections);
        Double score = m.score();
        JobResult result = m.result();
        return measured(Accuracy.runId(sessionId, arm), sessionId, target.commit(), target.job().arm())
                .status(m.failure() == null ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED)
                .failure(failureInfo(m.failure()))
                .mode(target.job().mode())
                .model(m.model())
                .pipeline(Pipeline.NATIVE_ACCURACY)
                .primary(score == null ? null : Accuracy.METRIC, score, score == null ? null : "measured")
                .startedAt(Instant.now().minusMillis((long) result.durationMs()))
                .durationMs(result.durationMs())
                .envRef(env.envRef())
                .argvJson(json(m.outcome().command()))
                .logArtifact(logArtifact(result.log()))
                .details(RunDetails.of(details))
                .metrics(score == null ? List.of() : List.of(Metric.of(Accuracy.METRIC, score)))
                .build();
    }

    /** The redacted log as an artifact; null when there is none. */
    private String logArtifact(String log) {
        return log == null || log.isEmpty() ? null
                : store.putArtifact("log", Secrets.redact(log).getBytes(StandardCharsets.UTF_8));
    }

    private static RunRecord.FailureInfo failureInfo(Failure failure) {
        return failure == null ? null : new RunRecord.FailureInfo(failure.category().name(),
                Secrets.redact(failure.detail()), Secrets.redact(String.join("\n", failure.evidence())),
                failure.category().retryable());
    }

    /**
     * A measured run that lost requests did less work than the others: {@code REQUESTS_FAILED} (its metrics are kept,
     * the analysis excludes the round), with the client's reasons ({@link JobResult#lostRequests}, typed: never read
     * back from the workload JSON); null when none failed.
     */
    static Failure lostRequests(JobResult result) {
        double failed = 0;
        double completed = 0;
        for (Metric m : result.metrics()) {
            if (m.name().equals("failed_requests")) {
                failed = m.value();
            } else if (m.name().equals("completed_requests")) {
                completed = m.value();
            }
        }
        if (!(failed > 0)) {
            return null;
        }
        LostRequests lost = result.lostRequests();
        String detail = String.format(Locale.ROOT, "%d of %d requests failed%s", (long) failed,
                (long) (failed + completed), lost.isEmpty() ? "" : ": " + lost.describe());
        return new Failure(FailureCategory.REQUESTS_FAILED, detail, List.of(detail));
    }

    static String shortOf(String commit) {
        return commit == null ? null : commit.length() <= 8 ? commit : commit.substring(0, 8);
    }


    static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
