package io.isobench.probe;

import io.isobench.loadgen.LoadGenerator;
import io.isobench.loadgen.LoadgenConfig;
import io.isobench.loadgen.LoadgenResult;
import io.isobench.loadgen.ServeFlags;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The serving client of every arm: isobench's own load generator, in-process, configured from the task's
 * {@code vllm bench serve} flags (same workload for every arm; DESIGN §4).
 */
final class LoadgenServingClient implements ServingClient {

    @Override
    public Result run(URI baseUrl, String model, Map<String, String> flags, int warmupRequests, long seed) {
        return run(baseUrl, model, flags, warmupRequests, seed, null, () -> { });
    }

    @Override
    public Result run(URI baseUrl, String model, Map<String, String> flags, int warmupRequests, long seed,
                      Path workdir, Runnable measuredStart) {
        List<String> warnings = new ArrayList<>();
        LoadgenConfig config;
        try {
            LoadgenConfig.Builder b = LoadgenConfig.builder().baseUrl(baseUrl).model(model).numWarmups(warmupRequests)
                    .seed(seed).requestTimeout(Duration.ofMinutes(10)).label("isobench-run");
            config = ServeFlags.workload(b, flags, workdir, warnings::add).build();
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
        com.fasterxml.jackson.databind.node.ObjectNode w = r.workloadFingerprint();
        if (!r.summary().failuresByReason().isEmpty()) {
            // why requests failed: kept with the run, not part of the work compared between arms
            r.summary().failuresByReason().forEach(w.putObject("failures_by_reason")::put);
        }
        StringBuilder console = new StringBuilder();
        warnings.forEach(x -> console.append("loadgen: warning: ").append(x).append('\n'));
        return new Result(r.metrics(), w.toString(), console.append(r.consoleBlock()).toString());
    }
}
