package io.isobench.plan;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One job of a plan: one arm of one task in one measured round (or the arm's correctness check). The plan is data;
 * a job says what would run, not how.
 *
 * @param index          position in the plan (0-based); jobs run in this order
 * @param jobId          stable within the session: {@code <task>/<arm>/r<round>}, {@code <task>/<arm>/check}, or
 *                       {@code <task>/baseline/check-repeat}
 * @param taskId         the task
 * @param arm            arm label: baseline, human, agent:NAME
 * @param round          measured round (0-based); -1 for the correctness check
 * @param kind           what the job does
 * @param mode           serving|throughput|latency|prefix_caching
 * @param argv           offline: the benchmark argv; serving: the server argv with {@code {port}} unresolved
 * @param client         serving: the client flags ({@code vllm bench serve} names); empty otherwise
 * @param env            environment variables the command gets beyond the inherited ones
 * @param cwd            the arm's environment (worktree) the command runs in
 * @param serverStartS   readiness limit (serving), seconds
 * @param runTimeoutS    limit of the benchmark itself, seconds
 * @param gpus           GPUs the job needs (estimate of the task package)
 * @param warmupRequests serving: requests sent and discarded before measuring
 */
public record Job(int index, String jobId, String taskId, String arm, int round, Kind kind, String mode,
                  List<String> argv, List<String> client, Map<String, String> env, Path cwd, int serverStartS,
                  int runTimeoutS, int gpus, int warmupRequests) {

    /** What a job does. */
    public enum Kind {
        /** Greedy outputs of the arm, compared with the baseline's (correctness gate). */
        CHECK,
        /** One measured round. */
        MEASURE
    }

    public Job {
        Objects.requireNonNull(jobId, "jobId");
        argv = List.copyOf(argv);
        client = List.copyOf(client);
        env = Map.copyOf(env);
    }

    public boolean serving() {
        return "serving".equals(mode);
    }

    /** The baseline's second correctness check: the same probes in a server of its own (tolerance calibration). */
    public boolean repeatCheck() {
        return kind == Kind.CHECK && jobId.endsWith("/" + Planner.REPEAT_CHECK);
    }
}
