package io.isobench.agent;

import java.util.List;

/** The {@code claude-code} adapter (docs/agents.md). Not yet implemented. */
public final class ClaudeCodeAdapter implements AgentAdapter {

    @Override
    public String id() {
        return "claude-code";
    }

    @Override
    public List<String> defaultSecretEnv() {
        return List.of("ANTHROPIC_API_KEY");
    }

    @Override
    public Invocation invocation(AgentLaunch launch) {
        throw new UnsupportedOperationException("claude-code adapter: not implemented yet");
    }

    @Override
    public Usage observe(String stdoutLine, Usage soFar) {
        return soFar;
    }

    @Override
    public AgentReport parse(AgentOutput output) {
        throw new UnsupportedOperationException("claude-code adapter: not implemented yet");
    }
}
