package io.isobench.probe;

import io.isobench.loadgen.LoadFidelity;
import io.isobench.parse.Metric;

import java.net.URI;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The pinned client of serving runs (DESIGN §4): the same workload for every arm, from the task's
 * {@code vllm bench serve} flags. Blocking; throws {@link ClientFailure} when no request completed.
 */
public interface ServingClient {

    /**
     * Sends {@code workload} to the server at {@code baseUrl}, calling {@code measuredStart} once, when the warm-up
     * requests are done and before the first measured request is sent (the server-metrics scraper marks the
     * measured phase there: docs/server-metrics.md).
     *
     * @param baseUrl {@code http://host:port}
     */
    Result run(URI baseUrl, Workload workload, Runnable measuredStart);

    /** As {@link #run(URI, Workload, Runnable)}, with no one to tell when the measured phase starts. */
    default Result run(URI baseUrl, Workload workload) {
        return run(baseUrl, workload, () -> { });
    }

    /**
     * What the client sends, the same for every arm of a task: the server it talks to is the arm's, the rest is here.
     *
     * @param model          the served model name
     * @param flags          client flags in {@code vllm bench serve} names (without leading dashes) → value
     * @param warmupRequests requests sent first and discarded
     * @param seed           seed of the synthetic prompts
     * @param workdir        where a relative {@code dataset-path} (vLLM's {@code benchmarks/sonnet.txt}) is read
     *                       from: the arm's worktree; null = the current folder
     */
    record Workload(String model, Map<String, String> flags, int warmupRequests, long seed, Path workdir) {
        public Workload {
            flags = Collections.unmodifiableMap(new LinkedHashMap<>(flags)); // in the task's order
        }

        /** A workload whose relative dataset paths are read from the current folder. */
        public Workload(String model, Map<String, String> flags, int warmupRequests, long seed) {
            this(model, flags, warmupRequests, seed, null);
        }
    }

    /**
     * What the client measured.
     *
     * @param metrics      metrics (canonical names)
     * @param workloadJson the workload fingerprint (JSON text, as stored with the run)
     * @param lost         why requests failed, by reason; {@link LostRequests#NONE} when none did
     * @param console      the console block for the log
     * @param fidelity     whether the load delivered was the load configured (schedule lag, the client's check of
     *                     itself; docs/loadgen.md); null when the client did not measure it
     */
    record Result(List<Metric> metrics, String workloadJson, LostRequests lost, String console,
                  LoadFidelity fidelity) {
        public Result {
            Objects.requireNonNull(lost, "lost");
        }

        /** A result without a fidelity check. */
        public Result(List<Metric> metrics, String workloadJson, LostRequests lost, String console) {
            this(metrics, workloadJson, lost, console, null);
        }

        /** A result in which no request failed for a known reason. */
        public Result(List<Metric> metrics, String workloadJson, String console) {
            this(metrics, workloadJson, LostRequests.NONE, console);
        }
    }

    /** The client could not measure (every request failed, or the server went away). */
    final class ClientFailure extends RuntimeException {
        public ClientFailure(String message) {
            super(message);
        }
    }
}
