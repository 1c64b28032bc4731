package io.isobench.exec;

import io.isobench.parse.Failure;
import io.isobench.parse.Metric;

import java.util.List;
import java.util.Map;

/**
 * What one job produced.
 *
 * @param failure      classified failure, or null on success
 * @param metrics      metrics (canonical names); empty on failure
 * @param workloadJson workload fingerprint (JSON text) or null
 * @param log          the full log (server + client / benchmark output), not yet redacted
 * @param durationMs   wall time of the job
 * @param timingsMs    phases: start, ready, client, teardown… (harness overhead accounting)
 * @param outputs      CHECK jobs: the greedy texts; empty otherwise
 * @param argv         what ran (server argv for serving, benchmark argv offline), port resolved
 * @param probeJson    CHECK jobs: the probe outputs with token ids/logprobs where returned ({@code Probe.toJson});
 *                     null otherwise
 * @param probeFailure CHECK jobs whose probe set could not run: the {@code ProbeException.Kind} name
 *                     (PROBE_REJECTED, NO_GREEDY_SUPPORT, OFFLINE_PROBE_FAILED); null otherwise
 */
public record JobResult(Failure failure, List<Metric> metrics, String workloadJson, String log, double durationMs,
                        Map<String, Double> timingsMs, List<String> outputs, List<String> argv, String probeJson,
                        String probeFailure) {

    public JobResult(Failure failure, List<Metric> metrics, String workloadJson, String log, double durationMs,
                     Map<String, Double> timingsMs, List<String> outputs, List<String> argv) {
        this(failure, metrics, workloadJson, log, durationMs, timingsMs, outputs, argv, null, null);
    }

    public JobResult {
        metrics = List.copyOf(metrics);
        timingsMs = Map.copyOf(timingsMs);
        outputs = List.copyOf(outputs);
        argv = List.copyOf(argv);
    }

    public boolean success() {
        return failure == null;
    }
}
