package io.isobench.task;

import java.nio.file.Path;

/**
 * The suite's agent prompt ({@code agent_prompt:}; docs/agents.md): a template file (null: isobench's default) and
 * the hint policy, the same for every agent and attempt.
 *
 * @param template the template file, or null for the default
 * @param hints    {@code none} (default) or {@code subject} (the human commit's subject line is shown)
 */
public record AgentPrompt(Path template, String hints) {

    public static final AgentPrompt DEFAULT = new AgentPrompt(null, "none");
}
