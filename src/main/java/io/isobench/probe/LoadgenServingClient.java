package io.isobench.probe;

import io.isobench.loadgen.DatasetSpec;
import io.isobench.loadgen.LoadGenerator;
import io.isobench.loadgen.LoadgenConfig;
import io.isobench.loadgen.LoadgenResult;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The serving client of every arm: isobench's own load generator, in-process, configured from the task's
 * {@code vllm bench serve} flags (same workload for every arm; DESIGN §4).
 */
final class LoadgenServingClient implements ServingClient {

    @Override
    public Result run(URI baseUrl, String model, Map<String, String> flags, int warmupRequests, long seed) {
        LoadgenConfig.Builder b = LoadgenConfig.builder().baseUrl(baseUrl).model(model)
                .numPrompts(intFlag(flags, "num-prompts", 1000))
                .numWarmups(warmupRequests)
                .ignoreEos(flags.containsKey("ignore-eos") && !"false".equals(flags.get("ignore-eos")))
                .seed(flags.containsKey("seed") ? Long.parseLong(flags.get("seed").strip()) : seed)
                .requestTimeout(Duration.ofMinutes(10))
                .label("isobench-run");
        if (flags.containsKey("max-concurrency")) {
            b.maxConcurrency(intFlag(flags, "max-concurrency", 1));
        }
        if (flags.containsKey("request-rate")) {
            String r = flags.get("request-rate").strip();
            b.requestRate(r.equalsIgnoreCase("inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(r));
        }
        if (flags.containsKey("burstiness")) {
            b.burstiness(Double.parseDouble(flags.get("burstiness").strip()));
        }
        String dataset = flags.getOrDefault("dataset-name", "random");
        if (dataset.equals("sharegpt") && flags.containsKey("dataset-path")) {
            b.dataset(DatasetSpec.sharegpt(Path.of(flags.get("dataset-path")), intFlag(flags, "sharegpt-output-len", 0)));
        } else {
            b.dataset(DatasetSpec.random(intFlag(flags, "random-input-len", 1024), intFlag(flags, "random-output-len", 128),
                    doubleFlag(flags, "random-range-ratio", 0.0), intFlag(flags, "random-prefix-len", 0)));
        }
        LoadgenResult r;
        try {
            r = LoadGenerator.run(b.build(), null);
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
        return new Result(r.metrics(), w.toString(), r.consoleBlock());
    }

    private static int intFlag(Map<String, String> flags, String name, int dflt) {
        String v = flags.get(name);
        try {
            return v == null ? dflt : Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static double doubleFlag(Map<String, String> flags, String name, double dflt) {
        String v = flags.get(name);
        try {
            return v == null ? dflt : Double.parseDouble(v.strip());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
