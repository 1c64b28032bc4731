package io.isobench.agent;

/**
 * How an attempt looks from inside its sandbox: the CLI's executable, the repository (working directory), the
 * agent's home, the prompt file, and the model endpoint's base URL the agent must be given.
 */
public record SandboxView(String cli, String repoDir, String homeDir, String promptFile, String baseUrl) {
}
