package io.isobench.probe;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.loadgen.LoadGenerator;
import io.isobench.loadgen.LoadgenConfig;
import io.isobench.loadgen.LoadgenResult;
import io.isobench.loadgen.ServeFlags;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The serving client of every arm: isobench's own load generator, in-process, configured from the task's
 * {@code vllm bench serve} flags (same workload for every arm; DESIGN §4). Requests that failed are in the result by
 * reason ({@link LostRequests}), and in the workload fingerprint as {@code failures_by_reason} (kept with the run,
 * not part of the work compared between arms). The load's fidelity (schedule lag, the client's check of itself) is in
 * the result as the load generator measured it, for the run's details ({@code client_check}, {@code schedule}).
 */
final class LoadgenServingClient implements ServingClient {

    @Override
    public Result run(URI baseUrl, Workload workload, Runnable measuredStart) {
        List<String> warnings = new ArrayList<>();
        LoadgenConfig config;
        try {
            LoadgenConfig.Builder b = LoadgenConfig.builder().baseUrl(baseUrl).model(workload.model())
                    .numWarmups(workload.warmupRequests()).seed(workload.seed()).requestTimeout(Duration.ofMinutes(10))
                    .label("isobench-run");
            config = ServeFlags.workload(b, workload.flags(), workload.workdir(), warnings::add).build();
        } catch (IllegalArgumentException e) {
            throw new ClientFailure("loadgen: " + e.getMessage());
        }
        LoadgenResult r;
        try {
            r = LoadGenerator.run(config, null, measuredStart);
        } catch (RuntimeException e) {
            throw new ClientFailure("loadgen: " + e.getMessage());
        }
        if (r.summary().completed() == 0) {
            throw new ClientFailure("loadgen: no request completed (" + r.summary().failed() + " failed)");
        }
        LostRequests lost = LostRequests.of(r.summary().failuresByReason());
        ObjectNode w = r.workloadFingerprint();
        if (!lost.isEmpty()) {
            lost.byReason().forEach(w.putObject("failures_by_reason")::put);
        }
        StringBuilder console = new StringBuilder();
        warnings.forEach(x -> console.append("loadgen: warning: ").append(x).append('\n'));
        return new Result(r.metrics(), w.toString(), lost, console.append(r.consoleBlock()).toString(),
                r.fidelity());
    }
}
