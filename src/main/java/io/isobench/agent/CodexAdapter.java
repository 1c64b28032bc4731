package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code codex} adapter (docs/agents.md, "Codex"): OpenAI's Codex CLI ({@code @openai/codex}) in
 * {@code codex exec --json} mode, which prints one JSON event per line ({@code thread.started}, {@code turn.started},
 * {@code item.started}/{@code item.completed} for agent messages, reasoning, command executions, file changes and
 * tool calls, {@code turn.completed} with the run's token usage, {@code turn.failed}, {@code error}).
 *
 * <p>Configuration goes into {@code CODEX_HOME/config.toml} ({@code CODEX_HOME} = {@code .codex} in the agent's
 * home): a model provider {@code isobench} pointed at the attempt's base URL that reads its key from the secret's
 * environment variable ({@code env_key}; the value never appears in argv or in the file), approvals never asked,
 * Codex's own sandbox off ({@code danger-full-access}: isobench's sandbox is the wall, and Codex's Landlock/seccomp
 * sandbox does not work in every container), no update check, no analytics, no history file, no plugins (their
 * sync is what makes Codex 0.171 look up {@code api.github.com} and {@code chatgpt.com}). {@code --strict-config}
 * makes a key this CLI version does not know an error instead of a silent no-op.
 *
 * <p>Usage: {@code codex exec --json} prints tokens once, on {@code turn.completed} at the end of the run. While it
 * runs, {@link #observe} counts one model turn per completed tool item (a command, a patch, an MCP or web call) plus
 * the final answer, and {@link #observeLog} reads each response's tokens from the session rollout Codex appends under
 * {@code CODEX_HOME/sessions} ({@link #usageLogDir()}), so isobench enforces turns and tokens mid-run. Codex prints
 * no cost: {@link Usage#costUsd()} stays null.
 */
public final class CodexAdapter implements AgentAdapter {

    /** {@code CODEX_HOME}, relative to the agent's home. */
    static final String CODEX_HOME = ".codex";

    /** The provider id written into the config. */
    static final String PROVIDER = "isobench";

    /** The endpoint used when the suite names none. */
    static final String OPENAI_BASE_URL = "https://api.openai.com/v1";

    /** Item types that are the result of one tool call (each follows one model response). */
    private static final Set<String> TOOL_ITEMS = Set.of("command_execution", "file_change", "mcp_tool_call",
            "web_search", "collab_tool_call");

    private static final ObjectMapper JSON = new ObjectMapper();

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
        List<String> argv = new ArrayList<>(List.of(launch.cli(), "exec", "--json", "--color", "never",
                "--strict-config", "--skip-git-repo-check", "--cd", launch.repoDir()));
        if (launch.model() != null) {
            argv.addAll(List.of("--model", launch.model()));
        }
        argv.add("--");
        argv.add(launch.prompt());
        String codexHome = launch.homeDir() + "/" + CODEX_HOME;
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CODEX_HOME", codexHome);
        return new Invocation(argv, env, Map.of(CODEX_HOME + "/config.toml", config(launch)));
    }

    /** The {@code config.toml} of one attempt. */
    static String config(AgentLaunch launch) {
        String keyEnv = launch.secretEnv().isEmpty() ? "OPENAI_API_KEY" : launch.secretEnv().get(0);
        String base = launch.baseUrl() == null ? OPENAI_BASE_URL : launch.baseUrl();
        return "# written by isobench for one attempt (docs/agents.md, \"Codex\")\n"
                + "model_provider = " + toml(PROVIDER) + "\n"
                + "approval_policy = \"never\"\n"
                + "sandbox_mode = \"danger-full-access\"\n"
                + "check_for_update_on_startup = false\n"
                + "\n[analytics]\nenabled = false\n"
                + "\n[history]\npersistence = \"none\"\n"
                + "\n[features]\nplugins = false\n"
                + "\n[model_providers." + PROVIDER + "]\n"
                + "name = " + toml(PROVIDER) + "\n"
                + "base_url = " + toml(base) + "\n"
                + "env_key = " + toml(keyEnv) + "\n"
                + "wire_api = \"responses\"\n";
    }

    /** A TOML basic string. */
    static String toml(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\u%04X", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    @Override
    public Usage observe(String stdoutLine, Usage soFar) {
        JsonNode ev = read(stdoutLine);
        if (ev == null) {
            return soFar;
        }
        String type = ev.path("type").asText();
        if (type.equals("item.completed") && TOOL_ITEMS.contains(ev.path("item").path("type").asText())) {
            return soFar.plus(1, 0, 0, null);
        }
        if (type.equals("turn.completed")) {
            return withTokens(soFar.plus(1, 0, 0, null), ev.path("usage"));
        }
        return soFar;
    }

    /** The session rollout under {@code CODEX_HOME}: Codex appends it while it runs, with each response's usage. */
    @Override
    public String usageLogDir() {
        return CODEX_HOME + "/sessions";
    }

    /**
     * Tokens from a rollout line: {@code token_usage_record} follows every model response, with the exec turn's
     * cumulative {@code turn_token_usage}; turns stay counted from stdout.
     */
    @Override
    public Usage observeLog(String logLine, Usage soFar) {
        JsonNode ev = read(logLine);
        if (ev == null || !ev.path("type").asText().equals("token_usage_record")) {
            return soFar;
        }
        return withTokens(soFar, ev.path("payload").path("turn_token_usage"));
    }

    /** {@code u} with its tokens raised to the cumulative {@code usage} object's (idempotent: stdout and log agree). */
    private static Usage withTokens(Usage u, JsonNode usage) {
        return new Usage(u.turns(), Math.max(u.tokensIn(), usage.path("input_tokens").asLong(0)),
                Math.max(u.tokensOut(), usage.path("output_tokens").asLong(0)), u.costUsd());
    }

    @Override
    public AgentReport parse(AgentOutput output) {
        Usage usage = Usage.NONE;
        Map<String, Trajectory.Step> steps = new LinkedHashMap<>();
        List<String> errors = new ArrayList<>();
        String lastMessage = "";
        boolean completed = false;
        boolean failed = false;
        int n = 0;
        for (String line : output.stdout().split("\n")) {
            JsonNode ev = read(line);
            if (ev == null) {
                continue;
            }
            usage = observe(line, usage);
            switch (ev.path("type").asText()) {
                case "item.started", "item.updated", "item.completed" -> {
                    JsonNode item = ev.path("item");
                    String id = item.path("id").asText("item#" + n++);
                    Trajectory.Step s = step(item, ev.path("type").asText().equals("item.completed"));
                    if (s != null) {
                        steps.put(id, s);
                    }
                    if (item.path("type").asText().equals("agent_message")) {
                        lastMessage = item.path("text").asText("");
                    }
                }
                case "turn.completed" -> completed = true;
                case "turn.failed" -> {
                    failed = true;
                    errors.add(ev.path("error").path("message").asText(ev.path("error").toString()));
                    steps.put("#" + n++, systemStep("turn failed: " + errors.get(errors.size() - 1)));
                }
                case "error" -> {
                    errors.add(ev.path("message").asText(ev.toString()));
                    steps.put("#" + n++, systemStep(errors.get(errors.size() - 1)));
                }
                default -> {
                }
            }
        }
        Trajectory trajectory = new Trajectory(new ArrayList<>(steps.values()));
        if (completed && !failed && output.exitCode() == 0) {
            return new AgentReport(AttemptStatus.OK, usage, trajectory, firstLine(lastMessage));
        }
        String why;
        if (!errors.isEmpty()) {
            why = errors.get(errors.size() - 1);
        } else if (output.exitCode() != 0) {
            String err = output.stderr().strip();
            why = "codex exited " + output.exitCode() + (err.isEmpty() ? "" : ": " + lastLine(err));
        } else {
            why = "codex printed no turn.completed event";
        }
        return new AgentReport(AttemptStatus.AGENT_CRASH, usage, trajectory, firstLine(why));
    }

    /** The trajectory step of one item, or null for items that are not steps (todo lists). */
    private static Trajectory.Step step(JsonNode item, boolean done) {
        String id = item.path("id").asText();
        return switch (item.path("type").asText()) {
            case "agent_message" -> new Trajectory.Step("agent", item.path("text").asText(""), List.of(), null, null);
            case "reasoning" -> new Trajectory.Step("agent", "", List.of(), null, null, item.path("text").asText(""));
            case "error" -> systemStep(item.path("message").asText(""));
            case "command_execution" -> {
                ObjectNode args = JSON.createObjectNode().put("command", item.path("command").asText());
                String result = done ? "exit " + item.path("exit_code").asText("?") + " ("
                        + item.path("status").asText() + ")\n" + item.path("aggregated_output").asText("") : null;
                yield tool(id, "exec_command", args.toString(), result);
            }
            case "file_change" -> {
                StringBuilder sb = new StringBuilder(item.path("status").asText());
                for (JsonNode c : item.path("changes")) {
                    sb.append('\n').append(c.path("kind").asText()).append(' ').append(c.path("path").asText());
                }
                ObjectNode args = JSON.createObjectNode();
                args.set("changes", item.path("changes"));
                yield tool(id, "apply_patch", args.toString(), done ? sb.toString() : null);
            }
            case "mcp_tool_call" -> {
                ObjectNode args = JSON.createObjectNode();
                args.set("arguments", item.path("arguments"));
                String result = item.has("error") && !item.path("error").isNull() ? item.path("error").toString()
                        : item.path("result").toString();
                yield tool(id, item.path("server").asText() + "." + item.path("tool").asText(), args.toString(),
                        done ? item.path("status").asText() + "\n" + result : null);
            }
            case "web_search" -> tool(id, "web_search",
                    JSON.createObjectNode().put("query", item.path("query").asText()).toString(), null);
            default -> null;
        };
    }

    private static Trajectory.Step systemStep(String message) {
        return new Trajectory.Step("system", message, List.of(), null, null);
    }

    private static Trajectory.Step tool(String id, String name, String args, String result) {
        return new Trajectory.Step("agent", "", List.of(new Trajectory.ToolCall(id, name, args,
                Trajectory.summary(result))), null, null);
    }

    private static JsonNode read(String line) {
        String s = line.strip();
        if (!s.startsWith("{")) {
            return null;
        }
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            return null;
        }
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    private static String lastLine(String s) {
        List<String> lines = s.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
    }
}
