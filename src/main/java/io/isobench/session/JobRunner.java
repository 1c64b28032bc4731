package io.isobench.session;

import io.isobench.Arm;
import io.isobench.analysis.AgentAttempts;
import io.isobench.analysis.PilotTable;
import io.isobench.env.Environment;
import io.isobench.env.Hardware;
import io.isobench.env.RecipeApplication;
import io.isobench.exec.Executor;
import io.isobench.exec.JobResult;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.AutoSweep;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Plan;
import io.isobench.probe.Greedy;
import io.isobench.review.ReviewResult;
import io.isobench.store.NativeDetails;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.isobench.session.RunRecorder.runId;

/**
 * Runs one job of a session to its end: in its arm's environment through the executor (retried by the
 * {@link RetryPolicy}), then the correctness gate for a check, then its run committed to the store and reported.
 */
final class JobRunner {

    private final Store store;
    private final Suite suite;
    private final Plan plan;
    private final Hardware hardware;
    private final SessionContext ctx;
    private final Pieces pieces;

    /**
     * The session's pieces a job goes through.
     *
     * @param arms        the arms' reviews
     * @param recorder    builds the job's placeholder and run
     * @param correctness the gate of check runs
     * @param retry       when a failed attempt runs again
     */
    record Pieces(ArmPreparation arms, RunRecorder recorder, CorrectnessGate correctness, RetryPolicy retry) {
    }

    JobRunner(SessionContext ctx, Pieces pieces) {
        this.store = ctx.store();
        this.suite = ctx.suite();
        this.plan = ctx.plan();
        this.hardware = ctx.hardware();
        this.ctx = ctx;
        this.pieces = pieces;
    }

    /** A sweep point as stored in the run's details ({@code store.RunDetails#sweepPoint}). */
    static Map<String, Object> sweepSection(JobSpec.Point p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", p.sweep().kind().label());
        m.put("value", p.value());
        m.put("index", p.index());
        m.put("points", p.sweep().points().size());
        m.put("min_good_fraction", p.sweep().minGoodFraction());
        return m;
    }

    /** Runs one job to its end (retries included), applies the correctness gate and commits the run. */
    void runJob(Job job, String sessionId, ArmPreparation.Arms arms,
                Map<CorrectnessGate.ReferenceKey, Greedy.ProbeRun> reference, Tally tally) {
        ctx.listener().startJob(job);
        String rid = runId(sessionId, job);
        Environment env = arms.envOf(job);
        TaskSpec task = suite.task(job.taskId()).orElseThrow();
        String commit = arms.humanSha().getOrDefault(job.taskId(), task.humanCommit());
        JobResult result;
        List<RetryPolicy.Saturated> saturated = List.of();
        GpuTelemetryRun telemetry = null;
        if (env == null || !env.ready()) {
            result = JobRunner.notReady(env, job);
        } else {
            Job runnable = ArmPreparation.withEnv(job, env.env());
            telemetry = GpuTelemetryRun.start(job, ctx.options().executor().kind(), System.getenv(),
                    ctx.listener()::note);
            try {
                RetryPolicy.Attempts attempts = pieces.retry().run(job.jobId(), att -> ctx.options().executor()
                        .execute(runnable, new Executor.Hooks(pgid -> store.putRun(pieces.recorder().placeholder(rid,
                        sessionId, job, commit, pgid, att)), () -> false, rid)), ctx.listener()::note);
                result = attempts.last();
                saturated = attempts.saturated();
            } catch (RuntimeException e) {
                if (telemetry != null) {
                    telemetry.finish(JobResult.notStarted(null, "", job.argv()), new LinkedHashMap<>(), store);
                }
                throw e;
            }
        }
        // correctness gate
        Failure failure = result.failure();
        Map<String, Object> extra = new LinkedHashMap<>(); // the run's sections (its place and commits: typed)
        if (AutoSweep.isPilot(job)) {
            // a pilot of sweep: auto: its place in the phase and the rule's settings (analysis.PilotTable reads them)
            extra.put(PilotTable.DETAILS_KEY, PilotTable.detailsOf(
                    job.sweepPoint().index() + 1, job.sweepPoint().value(), job.sweepPoint().sweep()));
        } else if (job.sweepPoint() != null) {
            // the run's load point of its task's sweep (docs/loadgen.md, "Load sweeps"): what the capacity is read from
            extra.put("sweep", sweepSection(job.sweepPoint()));
        }
        if (hardware != null) {
            extra.put("hardware_id", hardware.id());
        }
        if (job.arm().kind() == Arm.Kind.AGENT) {
            String name = job.arm().agentName();
            suite.agents().stream().filter(a -> Arm.normalizeAgent(a.name()).equals(name)
                    && a.model() != null).findFirst().ifPresent(a -> extra.put("agent_model", a.model()));
            // the stored attempt the arm measures (run --attempts-of): the export links the arm to it by this id
            plan.arm(job.taskId(), job.arm()).map(ArmSpec::attemptRun)
                    .ifPresent(id -> extra.put(AgentAttempts.ATTEMPT_RUN, id));
        }
        if (env != null && env.artifact() != null) {
            extra.put("artifact", env.artifact());
        }
        extra.put("recipes", env == null ? List.of()
                : env.recipes().stream().map(RecipeApplication::toMap).toList());
        if (env != null && env.build() != null) {
            extra.put("build", env.build().toMap(arms.buildLogs().get(ArmPreparation.ArmKey.of(job))));
        }
        ReviewResult review = pieces.arms().review(job.taskId(), job.arm(), task);
        if (review != null) {
            pieces.arms().putReview(extra, review, job.kind() == Job.Kind.CHECK);
        }
        extra.put("timings_ms", result.timingsMs());
        RetryPolicy.putSaturated(extra, saturated);
        if (telemetry != null) {
            result = telemetry.finish(result, extra, store);
        }
        if (job.readout() != null && job.readout().primaryDefinition() != null) {
            // a generic engine's primary metric may be one the dictionary does not know: its unit and direction
            MetricDictionary.Definition d = job.readout().primaryDefinition();
            extra.put("primary_definition", Map.of("name", d.name(), "unit", d.unit(), "better", d.better().label()));
        }
        if (!result.metricResolutions().isEmpty()) {
            // how finely isobench's own clocks measured (a CPU time in 10 ms ticks vs µs; docs/suite-format.md)
            extra.put(RunDetails.METRIC_RESOLUTION, RunDetails.resolutionSection(result.metricResolutions()));
        }
        if (result.gpus() != null) {
            extra.put("gpus", result.gpus());
        }
        if (result.serverMetricsJson() != null) {
            // the server's /metrics series of the run, content-addressed like the log (docs/server-metrics.md)
            extra.put("server_metrics_artifact_sha256", store.putArtifact("server_metrics",
                    result.serverMetricsJson().getBytes(StandardCharsets.UTF_8)));
        }
        if (job.kind() == Job.Kind.CHECK) {
            CorrectnessGate.Gate gate = pieces.correctness().gate(job, task, result, reference, extra);
            failure = gate.failure() != null ? gate.failure() : failure;
            if (!gate.metrics().isEmpty()) {
                List<Metric> all = new ArrayList<>(result.metrics());
                all.addAll(gate.metrics());
                result = result.withMetrics(all);
            }
        }
        RunRecord rec = pieces.recorder().record(sessionId, job, commit, env, result.withFailure(failure),
                new NativeDetails(RunRecorder.place(job, plan.seed()), RunRecorder.envFacts(env), null, extra));
        store.putRun(rec);
        // the stored outcome counts: the recorder may fail a run the executor finished (NO_METRICS, REQUESTS_FAILED)
        String category = rec.failure() == null ? null : rec.failure().category();
        synchronized (tally) {
            tally.count(category);
            double perJobS = (System.nanoTime() - tally.startNs) / 1e9 / tally.ran;
            long etaS = Math.round(perJobS * (tally.total - tally.done));
            ctx.listener().jobResult(JobProgress.of(tally, job, rec, etaS, plan.rounds()));
        }
    }

    /** A job whose environment is missing or failed: not started, with the environment's failure and log. */
    static JobResult notReady(Environment env, Job job) {
        Failure f = env == null ? new Failure(FailureCategory.ENV_MISSING, "no environment", List.of()) : env.failure();
        return JobResult.notStarted(f, env == null ? "" : env.log(), job.argv());
    }
}
