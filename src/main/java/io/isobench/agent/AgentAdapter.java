package io.isobench.agent;

import java.util.List;

/**
 * How isobench drives one agent CLI (docs/agents.md): a small sealed family. An adapter builds the attempt's argv
 * (never a shell string), the environment it adds to the sandbox's allowlist, and any config files under the
 * agent's home; it reads usage from the agent's streamed stdout while the attempt runs (so isobench can enforce the
 * budget itself) and parses the whole output into an {@link AgentReport} when it ends.
 */
public sealed interface AgentAdapter permits ClaudeCodeAdapter, CodexAdapter, CommandAdapter {

    /** The adapter's name as written in a suite: {@code claude-code}, {@code codex}, {@code command}. */
    String id();

    /** Environment variable names that carry the agent's API key by default (passed through the env file). */
    List<String> defaultSecretEnv();

    /** The argv that prints the CLI's version (recorded on every attempt). */
    default List<String> versionArgv(AgentLaunch launch) {
        return List.of(launch.cli(), "--version");
    }

    /** The attempt's argv, extra environment and config files, as seen inside the sandbox. */
    Invocation invocation(AgentLaunch launch);

    /**
     * Usage after one more line of the agent's stdout (cumulative): {@code soFar} unchanged when the line says
     * nothing about usage. Called for every line while the attempt runs; must not throw on lines it cannot read.
     */
    Usage observe(String stdoutLine, Usage soFar);

    /**
     * A folder, relative to the agent's home, where the CLI appends a usage log while it runs (JSONL files, possibly
     * in subfolders), or null when the stdout stream is enough. isobench tails every {@code *.jsonl} file in it and
     * gives each new line to {@link #observeLog}, so a CLI that prints usage only at its end can still be stopped
     * mid-run (Codex: its session rollout).
     */
    default String usageLogDir() {
        return null;
    }

    /** Usage after one more line of the usage log (cumulative), like {@link #observe}; must not throw. */
    default Usage observeLog(String logLine, Usage soFar) {
        return soFar;
    }

    /**
     * Whether {@code stdoutLine} is the agent's own last word (Claude Code's {@code result} line): usage it reports
     * past the budget means the CLI stopped at its own limit and is exiting, so isobench does not kill it.
     */
    default boolean isFinal(String stdoutLine) {
        return false;
    }

    /** The finished attempt's status, usage and normalised trajectory, from everything it printed. */
    AgentReport parse(AgentOutput output);

    /** The adapter named {@code id}, or an error naming the choices. */
    static AgentAdapter of(String id) {
        return switch (id) {
            case "claude-code" -> new ClaudeCodeAdapter();
            case "codex" -> new CodexAdapter();
            case "command" -> new CommandAdapter();
            default -> throw new IllegalArgumentException("unknown agent adapter '" + id
                    + "' (fix: one of claude-code, codex, command)");
        };
    }
}
