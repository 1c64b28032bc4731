package io.isobench.agent;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How {@code isobench agents run} runs one agent (the suite's {@code agents[].runner}; docs/agents.md).
 *
 * @param adapter the adapter ({@code claude-code}, {@code codex}, {@code command})
 * @param cli     the CLI's executable on this machine (null: the adapter's command on PATH)
 * @param argv    the {@code command} adapter's argv template; empty for the others
 * @param model   the model (null: the CLI's default)
 * @param baseUrl the model endpoint (null: the CLI's default); a docker sandbox allows exactly this upstream
 * @param secrets names of environment variables holding API keys, read from isobench's environment and given to the
 *                agent through an env file (empty: the adapter's defaults)
 * @param env     other variables for the agent (not secrets: recorded)
 * @param budget  the attempt budget
 * @param pricing {@code input_usd_per_mtok}, {@code output_usd_per_mtok}: prices tokens when the CLI reports no cost
 */
public record AgentConfig(String adapter, String cli, List<String> argv, String model, String baseUrl,
                          List<String> secrets, Map<String, String> env, Budget budget,
                          Map<String, Double> pricing) {
    public AgentConfig {
        Objects.requireNonNull(adapter, "adapter");
        argv = List.copyOf(argv);
        secrets = List.copyOf(secrets);
        env = Map.copyOf(env);
        budget = budget == null ? Budget.NONE : budget;
        pricing = pricing == null ? Map.of() : Map.copyOf(pricing);
    }

    /** The CLI to run: {@link #cli()}, else the adapter's usual command name. */
    public String cliOrDefault() {
        if (cli != null) {
            return cli;
        }
        return switch (adapter) {
            case "claude-code" -> "claude";
            case "codex" -> "codex";
            default -> argv.isEmpty() ? "" : argv.get(0);
        };
    }
}
