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
 * @param readout        generic engine adapter: how the job's metrics (and a check's generated text) are read, and
 *                       its primary metric; null for the vllm and toy adapters (their output formats are known)
 */
public record Job(int index, String jobId, String taskId, String arm, int round, Kind kind, String mode,
                  List<String> argv, List<String> client, Map<String, String> env, Path cwd, int serverStartS,
                  int runTimeoutS, int gpus, int warmupRequests, io.isobench.parse.Readout readout) {

    /** A job of the vllm or toy adapter. */
    public Job(int index, String jobId, String taskId, String arm, int round, Kind kind, String mode,
               List<String> argv, List<String> client, Map<String, String> env, Path cwd, int serverStartS,
               int runTimeoutS, int gpus, int warmupRequests) {
        this(index, jobId, taskId, arm, round, kind, mode, argv, client, env, cwd, serverStartS, runTimeoutS, gpus,
                warmupRequests, null);
    }

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

    /** This job with other environment variables. */
    public Job withEnv(Map<String, String> newEnv) {
        return new Job(index, jobId, taskId, arm, round, kind, mode, argv, client, newEnv, cwd, serverStartS,
                runTimeoutS, gpus, warmupRequests, readout);
    }

    /** This job with another argv (an offline probe's placeholders filled in). */
    public Job withArgv(List<String> newArgv) {
        return new Job(index, jobId, taskId, arm, round, kind, mode, newArgv, client, env, cwd, serverStartS,
                runTimeoutS, gpus, warmupRequests, readout);
    }

    /** This job read another way. */
    public Job withReadout(io.isobench.parse.Readout newReadout) {
        return new Job(index, jobId, taskId, arm, round, kind, mode, argv, client, env, cwd, serverStartS, runTimeoutS,
                gpus, warmupRequests, newReadout);
    }

    /** This job at another place of the plan. */
    public Job at(int newIndex, String newJobId, int newRound) {
        return new Job(newIndex, newJobId, taskId, arm, newRound, kind, mode, argv, client, env, cwd, serverStartS,
                runTimeoutS, gpus, warmupRequests, readout);
    }

    /** A generic engine's offline job: its output is read by the declared rules (not a server, not vLLM's format). */
    public boolean generic() {
        return readout != null && !serving();
    }

    public boolean serving() {
        return "serving".equals(mode);
    }

    /** The baseline's second correctness check: the same probes in a server of its own (tolerance calibration). */
    public boolean repeatCheck() {
        return kind == Kind.CHECK && jobId.endsWith("/" + Planner.REPEAT_CHECK);
    }
}
