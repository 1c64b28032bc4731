package io.isobench.task;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How {@code isobench agents run} runs an agent: the suite's {@code agents[].runner} block (docs/agents.md).
 *
 * @param adapter {@code claude-code}, {@code codex} or {@code command}
 * @param cli     the CLI's executable (relative paths resolve against the suite's folder); null: on PATH
 * @param argv    the {@code command} adapter's argv template; empty for the others
 * @param baseUrl the model endpoint; null: the CLI's default
 * @param secrets names of environment variables with API keys (passed through an env file); empty: the adapter's
 * @param env     other environment for the agent (recorded; never secrets)
 * @param budget  {@code wall_s}, {@code turns}, {@code tokens}, {@code usd} (absent = no limit)
 * @param pricing {@code input_usd_per_mtok}, {@code output_usd_per_mtok}: prices tokens when the CLI reports no cost
 * @param sandbox docker sandbox settings ({@code cpus}, {@code memory_mb}, {@code pids}, {@code cli_dir},
 *                {@code image}, {@code gpus}) as text
 * @param limits  attempt size limits ({@code output_mb}, {@code patch_mb}, {@code trajectory_steps}; absent = the
 *                defaults of docs/agents.md, "Limits")
 */
public record AgentRunner(String adapter, String cli, List<String> argv, String baseUrl, List<String> secrets,
                          Map<String, String> env, Map<String, Double> budget, Map<String, Double> pricing,
                          Map<String, String> sandbox, Map<String, Double> limits) {

    /** The adapters a suite may name. */
    public static final List<String> ADAPTERS = List.of("claude-code", "codex", "command");

    /** GPUs each attempt gets ({@code sandbox.gpus}; 0 when absent: no GPU). */
    public int gpus() {
        return Integer.parseInt(sandbox.getOrDefault("gpus", "0"));
    }

    /** The same runner with one {@code sandbox:} setting replaced ({@code --gpus} overriding {@code gpus}). */
    public AgentRunner withSandbox(String key, String value) {
        Map<String, String> s = new LinkedHashMap<>(sandbox);
        s.put(key, value);
        return new AgentRunner(adapter, cli, argv, baseUrl, secrets, env, budget, pricing, s, limits);
    }

    public AgentRunner {
        Objects.requireNonNull(adapter, "adapter");
        argv = List.copyOf(argv);
        secrets = List.copyOf(secrets);
        env = Map.copyOf(env);
        budget = Map.copyOf(budget);
        pricing = Map.copyOf(pricing);
        sandbox = Map.copyOf(sandbox);
        limits = limits == null ? Map.of() : Map.copyOf(limits);
    }
}
