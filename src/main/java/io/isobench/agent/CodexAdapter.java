package io.isobench.agent;

import java.util.List;

/** The {@code codex} adapter (docs/agents.md). Not yet implemented. */
public final class CodexAdapter implements AgentAdapter {

    @Override
    public String id() {
        return "codex";
    }

    @Override
    public List<String> defaultSecretEnv() {
        return List.of("OPENAI_API_KEY");
    }

    @Override
    public Invocation invocation(AgentLaunch launch) {
        throw new UnsupportedOperationException("codex adapter: not implemented yet");
    }

    @Override
    public Usage observe(String stdoutLine, Usage soFar) {
        return soFar;
    }

    @Override
    public AgentReport parse(AgentOutput output) {
        throw new UnsupportedOperationException("codex adapter: not implemented yet");
    }
}
