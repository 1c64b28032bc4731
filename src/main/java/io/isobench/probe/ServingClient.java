package io.isobench.probe;

import io.isobench.parse.Metric;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The pinned client of serving runs (DESIGN §4): the same workload for every arm, from the task's
 * {@code vllm bench serve} flags. Blocking; throws {@link ClientFailure} when no request completed.
 */
public interface ServingClient {

    /**
     * @param baseUrl        {@code http://host:port}
     * @param model          the served model name
     * @param flags          client flags in {@code vllm bench serve} names (without leading dashes) → value
     * @param warmupRequests requests sent first and discarded
     * @param seed           seed of the synthetic prompts
     */
    Result run(URI baseUrl, String model, Map<String, String> flags, int warmupRequests, long seed);

    /**
     * As {@link #run(URI, String, Map, int, long)}, with a relative {@code dataset-path} (vLLM's
     * {@code benchmarks/sonnet.txt}) read from {@code workdir}, the arm's worktree; null = the current folder.
     */
    default Result run(URI baseUrl, String model, Map<String, String> flags, int warmupRequests, long seed,
                       Path workdir) {
        return run(baseUrl, model, flags, warmupRequests, seed, workdir, () -> { });
    }

    /**
     * As {@link #run(URI, String, Map, int, long, java.nio.file.Path)}, calling {@code measuredStart} once, when the
     * warm-up requests are done and before the first measured request is sent (the server-metrics scraper marks the
     * measured phase there: docs/server-metrics.md).
     */
    default Result run(URI baseUrl, String model, Map<String, String> flags, int warmupRequests, long seed,
                       Path workdir, Runnable measuredStart) {
        return run(baseUrl, model, flags, warmupRequests, seed);
    }

    /** Metrics (canonical names), the workload fingerprint (JSON text) and the console block for the log. */
    record Result(List<Metric> metrics, String workloadJson, String console) {
    }

    /** The client could not measure (every request failed, or the server went away). */
    final class ClientFailure extends RuntimeException {
        public ClientFailure(String message) {
            super(message);
        }
    }
}
