package io.isobench.agent;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Where an attempt runs (docs/agents.md, "Sandbox"). {@link LocalSandbox}: a plain process on this machine with an
 * allowlisted environment (no isolation: for trusted agents and development). {@link DockerSandbox}: a container of
 * the baseline arm's image, non-root, CPU/memory limits, only the attempt's repository and home mounted, and no
 * network but a forwarded socket to a host-side proxy that reaches exactly the model endpoint.
 */
public interface AgentSandbox extends AutoCloseable {

    /** {@code local} or {@code docker}: recorded on every attempt. */
    String name();

    /** How {@code dirs} and the model endpoint look from inside. */
    SandboxView view(AttemptDirs dirs);

    /**
     * Starts {@code inv} with stdout and stderr piped (stdin closed). The environment is exactly the sandbox's
     * allowlist, {@code inv.env()} and {@code secrets} (which a docker sandbox passes through an env file, never argv).
     */
    Process start(AttemptDirs dirs, Invocation inv, Map<String, String> secrets) throws IOException;

    /**
     * Gives the attempt in {@code dirs} the leased GPUs {@code ids} (host indexes; empty: none) for every process it
     * starts from now on (docs/agents.md, "GPUs in the sandbox"); returns how they reach it ({@code nvidia-runtime},
     * {@code device-nodes}, {@code local}).
     */
    default String lendGpus(AttemptDirs dirs, List<Integer> ids) {
        if (!ids.isEmpty()) {
            throw new UnsupportedOperationException("the " + name() + " sandbox cannot pass GPUs");
        }
        return "none";
    }

    /** Stops the attempt and everything it started (idempotent). */
    void kill(Process process);

    /**
     * Whether {@link #kill} could not prove {@code process}'s attempt stopped (docker: {@code docker inspect} still
     * showed its container running after every try); such an attempt is recorded as
     * {@link AttemptStatus#SANDBOX_UNSTOPPABLE} and its container removed later.
     */
    default boolean unstoppable(Process process) {
        return false;
    }

    /**
     * The attempt's model usage as the sandbox's egress proxy counts it ({@link EgressMeter}: the source isobench
     * controls), or null where the sandbox does not see the model traffic.
     */
    default EgressMeter meter(AttemptDirs dirs) {
        return null;
    }

    /**
     * Kills what an attempt in {@code dirs} left running when isobench was killed mid-attempt (a resumed session calls
     * it before it clears the folder): only processes provably of that attempt.
     */
    void reap(AttemptDirs dirs);

    /**
     * Ends the attempt in {@code dirs} (its process has ended): releases what the sandbox holds for it and returns
     * the model-endpoint requests it made, one line each ({@code POST /v1/messages 200 1234 B 56 ms}); empty where
     * the sandbox does not see them.
     */
    default List<String> finish(AttemptDirs dirs) {
        return List.of();
    }

    /** Releases what the sandbox holds (proxies, images it built are kept). */
    @Override
    void close();
}
