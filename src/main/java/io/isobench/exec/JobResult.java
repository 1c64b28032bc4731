package io.isobench.exec;

import io.isobench.loadgen.LoadFidelity;
import io.isobench.parse.Failure;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricResolution;
import io.isobench.probe.LostRequests;
import io.isobench.probe.ProbeException;
import io.isobench.store.RunDetails;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one job produced.
 *
 * @param failure      classified failure, or null on success
 * @param metrics      metrics (canonical names); empty on failure
 * @param workloadJson workload fingerprint (JSON text) or null
 * @param lostRequests serving MEASURE jobs whose client ran here: why requests failed, by reason, as the client knew
 *                     it ({@link LostRequests#NONE} otherwise, and where only the failed count came back)
 * @param log          the full log (server + client / benchmark output), not yet redacted
 * @param durationMs   wall time of the job
 * @param timingsMs    phases: start, ready, client, teardown… (harness overhead accounting)
 * @param outputs      CHECK jobs: the greedy texts; empty otherwise
 * @param argv         what ran (server argv for serving, benchmark argv offline), port resolved
 * @param probeJson    CHECK jobs: the probe outputs with token ids/logprobs where returned: {@code Greedy.ProbeRun}'s
 *                     JSON object (sequential and concurrent pass), or in older results a bare array of probes
 *                     ({@code Probe.toJson}, sequential only); null otherwise
 * @param probeFailure CHECK jobs whose probe set could not run: the {@code ProbeException.Kind} name
 *                     (PROBE_REJECTED, NO_GREEDY_SUPPORT, OFFLINE_PROBE_FAILED); null otherwise
 * @param gpus         the GPU ids the job held on this node ({@code CUDA_VISIBLE_DEVICES} form, e.g. {@code 0,1}); null
 *                     when it held none or the cluster placed it
 * @param serverMetricsJson serving MEASURE jobs run here: the server's scraped {@code /metrics} series
 *                     ({@code ServerMetricsScraper.Series.toJson()}, stored as a {@code server_metrics} artifact);
 *                     null otherwise
 * @param measuredWindow serving MEASURE jobs whose client ran here: the measured phase's wall-clock bounds (the GPU
 *                     energy window, docs/gpu-telemetry.md); null otherwise (offline jobs: the whole job counts)
 * @param metricResolutions per metric isobench measured itself ({@code command_wall_s}, {@code command_cpu_s}): its
 *                     resolution and how it was measured (stored as {@code extra_json.metric_resolution}); empty when
 *                     none
 * @param schedule     serving MEASURE jobs whose client ran here with an arrival schedule: intended against actual
 *                     send times (stored as the {@code schedule} section); null otherwise
 * @param clientCheck  serving MEASURE jobs whose client ran here: the load generator's check of itself (stored as the
 *                     {@code client_check} section; saturated: the round is excluded, docs/statistics.md); null
 *                     otherwise
 */
public record JobResult(Failure failure, List<Metric> metrics, String workloadJson, LostRequests lostRequests,
                        String log, double durationMs,
                        Map<String, Double> timingsMs, List<String> outputs, List<String> argv, String probeJson,
                        String probeFailure, String gpus, String serverMetricsJson,
                        MeasuredWindow measuredWindow, Map<String, MetricResolution> metricResolutions,
                        RunDetails.Schedule schedule, RunDetails.ClientCheck clientCheck) {

    /** A job that never started ({@code failure}: why; {@code log}: what preparing it printed): no time, no metrics. */
    public static JobResult notStarted(Failure failure, String log, List<String> argv) {
        return new JobResult(failure, List.of(), null, LostRequests.NONE, log, 0, Map.of(), List.of(), argv, null, null,
                null, null, null, Map.of(), null, null);
    }

    /**
     * A job's result timed from {@code startNs} ({@code System.nanoTime()} when it began) to now.
     *
     * @param failure classified failure, or null on success
     */
    static JobResult ended(long startNs, Failure failure, List<Metric> metrics, String workloadJson, String log,
                           Map<String, Double> timingsMs, List<String> argv) {
        return new JobResult(failure, metrics, workloadJson, LostRequests.NONE, log,
                (System.nanoTime() - startNs) / 1e6, timingsMs, List.of(), argv, null, null, null, null, null, Map.of(), null, null);
    }

    /** A failed job's result (no metrics, no workload), timed from {@code startNs} to now. */
    static JobResult failed(long startNs, Failure failure, String log, Map<String, Double> timingsMs,
                            List<String> argv) {
        return ended(startNs, failure, List.of(), null, log, timingsMs, argv);
    }

    public JobResult {
        metrics = List.copyOf(metrics);
        lostRequests = lostRequests == null ? LostRequests.NONE : lostRequests;
        timingsMs = Map.copyOf(timingsMs);
        outputs = List.copyOf(outputs);
        argv = List.copyOf(argv);
        metricResolutions = metricResolutions == null ? Map.of() : Map.copyOf(metricResolutions);
    }

    /** This result as run on the given GPUs. */
    public JobResult withGpus(String gpuIds) {
        return new JobResult(failure, metrics, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                probeJson, probeFailure, gpuIds, serverMetricsJson, measuredWindow, metricResolutions, schedule, clientCheck);
    }

    /** This result with the probe outputs of a check ({@code Greedy.ProbeRun.toJson()}; null: none). */
    public JobResult withProbes(String json) {
        return new JobResult(failure, metrics, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                json, probeFailure, gpus, serverMetricsJson, measuredWindow, metricResolutions, schedule, clientCheck);
    }

    /** This result with the greedy texts of a check. */
    public JobResult withOutputs(List<String> texts) {
        return new JobResult(failure, metrics, workloadJson, lostRequests, log, durationMs, timingsMs, texts, argv,
                probeJson, probeFailure, gpus, serverMetricsJson, measuredWindow, metricResolutions, schedule, clientCheck);
    }

    /** This result of a check whose probe set could not run, and why (null: it ran). */
    public JobResult withProbeFailure(ProbeException.Kind kind) {
        return new JobResult(failure, metrics, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                probeJson, kind == null ? null : kind.name(), gpus, serverMetricsJson, measuredWindow,
                metricResolutions, schedule, clientCheck);
    }

    /** This result with other metrics (the correctness gate adds its own). */
    public JobResult withMetrics(List<Metric> all) {
        return new JobResult(failure, all, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                probeJson, probeFailure, gpus, serverMetricsJson, measuredWindow, metricResolutions, schedule, clientCheck);
    }

    /** This result as judged after it ran: {@code f} (null: success) instead of the executor's failure. */
    public JobResult withFailure(Failure f) {
        return f == failure ? this : withOutcome(f, log, durationMs);
    }

    /** This result with another failure, log and wall time (a wrapping executor adds its own lines and phases). */
    public JobResult withOutcome(Failure f, String fullLog, double wallMs) {
        return new JobResult(f, metrics, workloadJson, lostRequests, fullLog, wallMs, timingsMs, outputs, argv,
                probeJson, probeFailure, gpus, serverMetricsJson, measuredWindow, metricResolutions, schedule, clientCheck);
    }

    /** This result with the server's scraped {@code /metrics} series (JSON) and its summaries added to the metrics. */
    public JobResult withServerMetrics(String seriesJson, List<Metric> summaries) {
        List<Metric> all = new ArrayList<>(metrics);
        all.addAll(summaries);
        return new JobResult(failure, all, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                probeJson, probeFailure, gpus, seriesJson, measuredWindow, metricResolutions, schedule, clientCheck);
    }

    /** This result with its measured phase's wall-clock bounds (null: none known, the whole job counts). */
    public JobResult withMeasuredWindow(MeasuredWindow window) {
        return new JobResult(failure, metrics, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                probeJson, probeFailure, gpus, serverMetricsJson, window, metricResolutions, schedule, clientCheck);
    }

    /** This result with the reasons its client's failed requests were lost for. */
    public JobResult withLostRequests(LostRequests lost) {
        return new JobResult(failure, metrics, workloadJson, lost, log, durationMs, timingsMs, outputs, argv, probeJson,
                probeFailure, gpus, serverMetricsJson, measuredWindow, metricResolutions, schedule, clientCheck);
    }

    /** This result with the resolution of the metrics isobench measured itself. */
    public JobResult withMetricResolutions(Map<String, MetricResolution> resolutions) {
        return new JobResult(failure, metrics, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                probeJson, probeFailure, gpus, serverMetricsJson, measuredWindow, resolutions, schedule, clientCheck);
    }

    /**
     * This result with the load's fidelity as the client measured it (null: not measured): its schedule and its check
     * of itself, in the store's form.
     */
    public JobResult withFidelity(LoadFidelity f) {
        RunDetails.Schedule sch = f == null || f.schedule() == null ? null : schedule(f.schedule());
        RunDetails.ClientCheck cc = f == null ? null : new RunDetails.ClientCheck(f.client().saturated(),
                f.client().reasons(), f.client().cpuBusyPct(), f.client().loopLagMsP99(), f.client().loopLagMsMax(),
                f.client().sendLagMsP99());
        return new JobResult(failure, metrics, workloadJson, lostRequests, log, durationMs, timingsMs, outputs, argv,
                probeJson, probeFailure, gpus, serverMetricsJson, measuredWindow, metricResolutions, sch, cc);
    }

    private static RunDetails.Schedule schedule(LoadFidelity.Schedule s) {
        return new RunDetails.Schedule(s.requests(), s.lagMsP50(), s.lagMsP99(), s.lagMsMax(), s.lateThresholdMs(),
                s.latePct(), s.configuredRateRps(), s.deliveredRateRps(), s.configuredMaxConcurrency(),
                s.deliveredConcurrencyMean());
    }

    public boolean success() {
        return failure == null;
    }
}
