package io.isobench.agent;

import java.io.IOException;
import java.util.Map;

/** The docker sandbox (docs/agents.md, "Sandbox"). Not yet implemented. */
public final class DockerSandbox implements AgentSandbox {

    @Override
    public String name() {
        return "docker";
    }

    @Override
    public SandboxView view(AttemptDirs dirs) {
        throw new UnsupportedOperationException("docker sandbox: not implemented yet");
    }

    @Override
    public Process start(AttemptDirs dirs, Invocation inv, Map<String, String> secrets) throws IOException {
        throw new UnsupportedOperationException("docker sandbox: not implemented yet");
    }

    @Override
    public void kill(Process process) {
        process.destroyForcibly();
    }

    @Override
    public void reap(AttemptDirs dirs) {
    }

    @Override
    public void close() {
    }
}
