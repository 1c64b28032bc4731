package io.isobench.session;

import io.isobench.store.Pipeline;
import com.fasterxml.jackson.databind.JsonNode;
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
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds a session's runs as the store keeps them: the run ids, the placeholder ({@code NOT_RUN}) a command's process
 * group is recorded under before it starts, and a job's finished run (its primary metric, failure, log artifact).
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
                : io.isobench.plan.AutoSweep.isPilot(job) ? Pipeline.NATIVE_PILOT : Pipeline.NATIVE;
    }

    /** The run id of a job's run. */

    static String runId(String sessionId, Job job) {
        return sessionId + "/" + job.jobId();
    }

    RunRecord placeholder(String rid, String sessionId, Job job, String commit, long pgid, int attempt) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", job.taskId());
        extra.put("job", job.jobId());
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
                .details(RunDetails.of(extra))
                .build();
    }

    /**
     * The placeholder of a command that belongs to an arm rather than to one job (the accuracy command, the build, a
     * pip_pin install), under run id {@code rid}: a resumed session reaps its group like a job's.
     */
    RunRecord armPlaceholder(String rid, String sessionId, ArmSpec a, String commit, String phase, long pgid) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", a.taskId());
        extra.put("phase", phase);
        Leftovers.record(extra, pgid);
        return measured(rid, sessionId, commit, Arm.fromLabel(a.arm()))
                .status(RunRecord.RunStatus.NOT_RUN)
                .pipeline(Pipeline.NATIVE)
                .startedAt(Instant.now())
                .notes("in progress: " + phase)
                .details(RunDetails.of(extra))
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

    RunRecord record(String sessionId, Job job, String commit, Environment env, JobResult result,
                             Failure failure, Map<String, Object> extra) {
        String rid = runId(sessionId, job);
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
        String logSha = null;
        if (result.log() != null && !result.log().isEmpty()) {
            logSha = store.putArtifact("log", Secrets.redact(result.log()).getBytes(StandardCharsets.UTF_8));
        }
        RunRecord.FailureInfo fi = failure == null ? null : new RunRecord.FailureInfo(failure.category().name(),
                Secrets.redact(failure.detail()), Secrets.redact(String.join("\n", failure.evidence())),
                failure.category().retryable());
        String model = job.probes() != null ? job.probes().model()
                : job.client().loadgenFlags().get("model");
        return measured(rid, sessionId, commit, job.arm())
                .round(Math.max(0, job.round()))
                .status(status)
                .failure(fi)
                .mode(job.mode())
                .model(model)
                .pipeline(pipelineOf(job))
                .primary(primary == null ? null : primaryName, primary, primary == null ? null : "measured")
                .workload(result.workloadJson())
                .startedAt(Instant.now().minusMillis((long) result.durationMs()))
                .durationMs(result.durationMs())
                .envRef(env == null ? null : env.envRef())
                .argvJson(json(Secrets.argv(result.argv())))
                .logArtifact(logSha)
                .details(RunDetails.of(extra))
                .metrics(result.metrics())
                .build();
    }

    /**
     * A measured run that lost requests did less work than the others: {@code REQUESTS_FAILED} (its metrics are kept,
     * the analysis excludes the round), with the client's failure reasons; null when none failed.
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
        String reasons = "";
        try {
            JsonNode w = result.workloadJson() == null ? null : JSON.readTree(result.workloadJson());
            JsonNode by = w == null ? null : w.path("failures_by_reason");
            if (by != null && by.isObject() && !by.isEmpty()) {
                List<String> parts = new ArrayList<>();
                by.fields().forEachRemaining(e -> parts.add(e.getKey() + " x" + e.getValue().asText()));
                reasons = ": " + String.join(", ", parts);
            }
        } catch (java.io.IOException e) {
            // no reasons recorded
        }
        String detail = String.format(Locale.ROOT, "%d of %d requests failed%s", (long) failed,
                (long) (failed + completed), reasons);
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
