package io.isobench.task;

import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.isobench.guard.Secrets;

/** Reads an agent's {@code runner:} block and the suite's {@code agent_prompt:} for {@link SuiteLoader}. */
final class AgentRunnerSection extends SuiteNodes {
    private static final List<String> RUNNER_KEYS = List.of("adapter", "cli", "argv", "base_url", "secrets", "env",
            "budget", "pricing", "sandbox", "limits");
    private static final List<String> BUDGET_KEYS = List.of("wall_s", "turns", "tokens", "usd");
    private static final List<String> PRICING_KEYS = List.of("input_usd_per_mtok", "output_usd_per_mtok");
    private static final List<String> SANDBOX_KEYS = List.of("cpus", "memory_mb", "pids", "cli_dir", "image",
            "gpus");
    private static final List<String> LIMIT_KEYS = List.of("output_mb", "patch_mb", "trajectory_steps");
    private static final List<String> PROMPT_KEYS = List.of("template", "hints");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    AgentRunnerSection(SuiteNodes shared) {
        super(shared);
    }

    AgentRunner runner(NodeTuple t, String field) {
        if (t == null || isNull(t.getValueNode())) {
            return null;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), field, RUNNER_KEYS);
        if (m == null) {
            return null;
        }
        String adapter = string(m.get("adapter"), field + ".adapter", true);
        if (adapter == null) {
            if (!m.containsKey("adapter")) {
                problem(t.getValueNode(), field + ".adapter", "missing (fix: adapter: claude-code, codex or command)");
            }
            return null;
        }
        if (!AgentRunner.ADAPTERS.contains(adapter)) {
            problem(m.get("adapter").getValueNode(), field + ".adapter", "unknown adapter '" + adapter
                    + "' (fix: one of " + String.join(", ", AgentRunner.ADAPTERS) + ")");
            return null;
        }
        List<String> argv = m.containsKey("argv") ? argv(m.get("argv"), field + ".argv", false) : List.of();
        if (adapter.equals("command") && argv != null && argv.isEmpty()) {
            problem(t.getValueNode(), field + ".argv", "missing: the command adapter needs an argv template"
                    + " (fix: argv: [my-agent, --repo, '{repo}', --task-file, '{prompt_file}'])");
        }
        String cli = string(m.get("cli"), field + ".cli", false);
        if (cli != null && (cli.contains("/") || cli.startsWith("."))) {
            cli = resolve(cli).toString();
        }
        String baseUrl = string(m.get("base_url"), field + ".base_url", false);
        if (baseUrl != null && !baseUrl.matches("https?://[^\\s/]+(/\\S*)?")) {
            problem(m.get("base_url").getValueNode(), field + ".base_url", "'" + baseUrl
                    + "' is not an http(s) URL (fix: e.g. https://api.anthropic.com)");
        }
        List<String> secrets = m.containsKey("secrets") ? stringList(m.get("secrets"), field + ".secrets") : List.of();
        List<String> given = secrets == null ? List.of() : secrets;
        for (int i = 0; i < given.size(); i++) {
            if (!ENV_NAME.matcher(given.get(i)).matches()) { // not echoed: it may be the key itself
                problem(m.get("secrets").getValueNode(), field + ".secrets[" + i + "]", "is not a variable name"
                        + " (fix: the NAME of an environment variable, never its value)");
            }
        }
        Map<String, String> env = envMap(m.get("env"), field + ".env");
        Map<String, Double> budget = numbers(m.get("budget"), field + ".budget", BUDGET_KEYS);
        Map<String, Double> pricing = numbers(m.get("pricing"), field + ".pricing", PRICING_KEYS);
        Map<String, Double> limits = numbers(m.get("limits"), field + ".limits", LIMIT_KEYS);
        limits.forEach((k, v) -> {
            if (v <= 0) {
                problem(m.get("limits").getValueNode(), field + ".limits." + k, "must be > 0 (fix: e.g. output_mb:"
                        + " 256, patch_mb: 32, trajectory_steps: 20000)");
            }
        });
        limits.values().removeIf(v -> v <= 0);
        Map<String, String> sandbox = new LinkedHashMap<>();
        NodeTuple st = m.get("sandbox");
        if (st != null && !isNull(st.getValueNode())) {
            Map<String, NodeTuple> sm = mapping(st.getValueNode(), field + ".sandbox", SANDBOX_KEYS);
            if (sm != null) {
                sm.forEach((k, v) -> {
                    String s = string(v, field + ".sandbox." + k, true);
                    if (k.equals("gpus")) {
                        if (s != null && !s.matches("0|[1-9][0-9]{0,2}")) {
                            problem(v.getValueNode(), field + ".sandbox.gpus", "'" + s + "' is not a whole number of"
                                    + " GPUs >= 0 (fix: e.g. gpus: 1; 0 or absent: no GPU)");
                        } else if (s != null) {
                            sandbox.put(k, s);
                        }
                        return;
                    }
                    boolean number = k.equals("cpus") ? s != null && s.matches("[0-9]+(\\.[0-9]+)?")
                            && Double.parseDouble(s) > 0 : !k.equals("memory_mb") && !k.equals("pids")
                            || s != null && s.matches("[1-9][0-9]{0,8}");
                    if (s != null && !number) {
                        problem(v.getValueNode(), field + ".sandbox." + k, "'" + s + "' is not a positive "
                                + (k.equals("cpus") ? "number" : "whole number") + " (fix: e.g. cpus: 2,"
                                + " memory_mb: 4096, pids: 1024)");
                    } else if (s != null) {
                        sandbox.put(k, k.equals("cli_dir") ? resolve(s).toString() : s);
                    }
                });
            }
        }
        return new AgentRunner(adapter, cli, argv == null ? List.of() : argv, baseUrl,
                secrets == null ? List.of() : secrets, env, budget, pricing, sandbox, limits);
    }

    AgentPrompt prompt(NodeTuple t) {
        if (t == null || isNull(t.getValueNode())) {
            return AgentPrompt.DEFAULT;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), "agent_prompt", PROMPT_KEYS);
        if (m == null) {
            return AgentPrompt.DEFAULT;
        }
        Path template = null;
        String tf = string(m.get("template"), "agent_prompt.template", false);
        if (tf != null) {
            template = resolve(tf);
            if (checkPaths && !Files.isRegularFile(template)) {
                problem(m.get("template").getValueNode(), "agent_prompt.template", "no such file " + template
                        + " (fix: a text file with the prompt, relative to the suite's folder)");
            }
        }
        String hints = string(m.get("hints"), "agent_prompt.hints", false);
        if (hints != null && !hints.equals("none") && !hints.equals("subject")) {
            problem(m.get("hints").getValueNode(), "agent_prompt.hints", "'" + hints
                    + "' (fix: none or subject)");
            hints = null;
        }
        return new AgentPrompt(template, hints == null ? "none" : hints);
    }

    private Map<String, Double> numbers(NodeTuple t, String field, List<String> keys) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (t == null || isNull(t.getValueNode())) {
            return out;
        }
        Map<String, NodeTuple> m = mapping(t.getValueNode(), field, keys);
        if (m != null) {
            m.forEach((k, v) -> {
                Double d = decimal(v, field + "." + k, 0, Double.MAX_VALUE);
                if (d != null) {
                    out.put(k, d);
                }
            });
        }
        return out;
    }

    private Map<String, String> envMap(NodeTuple t, String field) {
        Map<String, String> out = new LinkedHashMap<>();
        if (t == null || isNull(t.getValueNode())) {
            return out;
        }
        if (!(t.getValueNode() instanceof MappingNode em)) {
            problem(t.getValueNode(), field, "must be a map of variable to value (fix: env: {VAR: value})");
            return out;
        }
        for (NodeTuple e : em.getValue()) {
            String var = scalarText(e.getKeyNode());
            Node v = e.getValueNode();
            if (!ENV_NAME.matcher(var).matches() || !(v instanceof ScalarNode sv)) {
                problem(e.getKeyNode(), field + "." + var, "must be NAME: value (fix: a variable name and one value)");
                continue;
            }
            if (Secrets.isSecretName(var)) {
                problem(e.getKeyNode(), field + "." + var, "looks like a secret (fix: list its name under"
                        + " runner.secrets and set it in isobench's environment; values in the suite are stored)");
                continue;
            }
            out.put(var, sv.getValue());
        }
        return out;
    }
}
