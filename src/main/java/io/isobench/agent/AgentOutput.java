package io.isobench.agent;

/** Everything a finished attempt printed, whole, and how its process ended. */
public record AgentOutput(String stdout, String stderr, int exitCode) {
}
