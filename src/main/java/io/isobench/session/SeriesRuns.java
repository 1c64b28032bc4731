package io.isobench.session;

import io.isobench.env.Environment;
import io.isobench.exec.Executor;
import io.isobench.exec.JobResult;
import io.isobench.parse.MetricDictionary;
import io.isobench.plan.Job;
import io.isobench.store.NativeDetails;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The runs of a commit series ({@code isobench track}) through a session's own pieces, so they are measured and
 * stored exactly as a session's measured rounds: the job executed by the executor under the session's
 * {@link RetryPolicy}, a placeholder run holding its process group while it runs (a later attempt reaps what a killed
 * one left), then the run built by the {@link RunRecorder} (primary metric, failure, log artifact, details with the
 * job's place, the environment's commits, its build and the metric resolution) and committed.
 */
public final class SeriesRuns {

    private final Store store;
    private final Executor executor;
    private final Consumer<String> say;
    private final RunRecorder recorder;

    /**
     * @param say where the retry policy's notes go (stderr)
     */
    public SeriesRuns(Store store, Executor executor, Consumer<String> say) {
        this.store = store;
        this.executor = executor;
        this.say = say;
        this.recorder = new RunRecorder(store);
    }

    /** The run id of a job of session {@code sessionId}, as every session names it. */
    public static String runId(String sessionId, Job job) {
        return RunRecorder.runId(sessionId, job);
    }

    /**
     * Measures one job in its commit's environment and commits its run.
     *
     * @param commit      the full commit the run is filed under
     * @param env         the commit's prepared environment (built); not ready: the run fails with its failure
     * @param buildLog    the artifact id of the environment's build log, or null
     * @param planSeed    the seed stored as the job's place
     * @param cancelled   asked while the job runs: true stops it
     */
    public RunRecord run(String sessionId, Job job, String commit, Environment env, String buildLog, long planSeed,
                         BooleanSupplier cancelled) {
        String rid = runId(sessionId, job);
        JobResult result;
        List<RetryPolicy.Saturated> saturated = List.of();
        if (env == null || !env.ready()) {
            result = JobRunner.notReady(env, job);
        } else {
            Job runnable = ArmPreparation.withEnv(job, env.env());
            RetryPolicy.Attempts attempts = RetryPolicy.DEFAULT.run(job.jobId(), att -> executor.execute(runnable,
                    new Executor.Hooks(pgid -> store.putRun(recorder.placeholder(rid, sessionId, job, commit, pgid,
                    att)), cancelled, rid)), say);
            result = attempts.last();
            saturated = attempts.saturated();
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        RetryPolicy.putSaturated(extra, saturated);
        if (env != null && env.build() != null) {
            extra.put("build", env.build().toMap(buildLog));
        }
        extra.put("timings_ms", result.timingsMs());
        if (job.readout() != null && job.readout().primaryDefinition() != null) {
            MetricDictionary.Definition d = job.readout().primaryDefinition();
            extra.put("primary_definition", Map.of("name", d.name(), "unit", d.unit(), "better", d.better().label()));
        }
        if (!result.metricResolutions().isEmpty()) {
            extra.put(RunDetails.METRIC_RESOLUTION, RunDetails.resolutionSection(result.metricResolutions()));
        }
        RunRecord rec = recorder.record(sessionId, job, commit, env, result, new NativeDetails(
                RunRecorder.place(job, planSeed), RunRecorder.envFacts(env), null, extra));
        store.putRun(rec);
        return rec;
    }
}
