package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code claude-code} adapter (docs/agents.md, "Claude Code"): the npm {@code @anthropic-ai/claude-code} CLI in
 * headless print mode with streamed JSON ({@code -p --output-format stream-json --verbose}), its permission checks
 * bypassed (the sandbox is the wall, not the agent's own prompts), its turn and USD limits from the budget, and every
 * kind of non-essential traffic (updates, telemetry, error reports) switched off so it talks only to the model
 * endpoint. Usage is read from each {@code assistant} line (once per message id) while it runs and from the final
 * {@code result} line at the end; the trajectory from the {@code assistant}, {@code user} (tool results) and
 * {@code system} lines.
 */
public final class ClaudeCodeAdapter implements AgentAdapter {

    /** Environment that keeps the CLI off every host but the model endpoint, and lets it run as root in a sandbox. */
    static final Map<String, String> QUIET_ENV = quietEnv();

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Message ids whose usage {@link #observe} has counted (ids are unique per API response; bounded). */
    private final Map<String, long[]> seen = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> e) {
            return size() > 10_000;
        }
    });

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
        List<String> argv = new ArrayList<>(List.of(launch.cli(), "--print", "--output-format", "stream-json",
                "--verbose", "--permission-mode", "bypassPermissions", "--no-session-persistence"));
        if (launch.model() != null && !launch.model().isBlank()) {
            argv.addAll(List.of("--model", launch.model()));
        }
        Budget b = launch.budget();
        if (b.turns() != null) {
            argv.addAll(List.of("--max-turns", Integer.toString(b.turns())));
        }
        if (b.usd() != null) {
            argv.addAll(List.of("--max-budget-usd", String.format(Locale.ROOT, "%.6f", b.usd())));
        }
        argv.add("--");
        argv.add(launch.prompt());
        Map<String, String> env = new LinkedHashMap<>(QUIET_ENV);
        if (launch.baseUrl() != null && !launch.baseUrl().isBlank()) {
            env.put("ANTHROPIC_BASE_URL", launch.baseUrl());
        }
        return new Invocation(argv, env, Map.of());
    }

    private static Map<String, String> quietEnv() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("DISABLE_AUTOUPDATER", "1");
        m.put("DISABLE_TELEMETRY", "1");
        m.put("DISABLE_ERROR_REPORTING", "1");
        m.put("DISABLE_BUG_COMMAND", "1");
        m.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        m.put("CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "1");
        m.put("IS_SANDBOX", "1");
        return Collections.unmodifiableMap(m);
    }

    @Override
    public Usage observe(String stdoutLine, Usage soFar) {
        JsonNode o = readLine(stdoutLine);
        if (o == null) {
            return soFar;
        }
        switch (o.path("type").asText()) {
            case "assistant" -> {
                JsonNode msg = o.path("message");
                String id = msg.path("id").asText("");
                if (id.isEmpty() || !msg.has("usage") || synthetic(o)) {
                    return soFar;
                }
                long in = inputTokens(msg.path("usage"));
                long out = msg.path("usage").path("output_tokens").asLong(0);
                long[] before = seen.putIfAbsent(id, new long[] {in, out});
                if (before == null) {
                    return add(soFar, 1, in, out);
                }
                synchronized (before) {
                    long dIn = Math.max(0, in - before[0]);
                    long dOut = Math.max(0, out - before[1]);
                    before[0] = Math.max(before[0], in);
                    before[1] = Math.max(before[1], out);
                    return dIn == 0 && dOut == 0 ? soFar : add(soFar, 0, dIn, dOut);
                }
            }
            case "result" -> {
                return resultUsage(o, soFar);
            }
            default -> {
                return soFar;
            }
        }
    }

    @Override
    public boolean isFinal(String stdoutLine) {
        String t = stdoutLine.strip();
        if (!t.startsWith("{") || !t.contains("\"result\"")) {
            return false;
        }
        try {
            return "result".equals(JSON.readTree(t).path("type").asText());
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public AgentReport parse(AgentOutput output) {
        ClaudeTranscript t = ClaudeTranscript.read(output.stdout());
        JsonNode result = t.result();
        if (result == null) {
            String err = lastLine(output.stderr());
            return new AgentReport(AttemptStatus.AGENT_CRASH, t.streamedUsage(), t.trajectory(),
                    "claude-code printed no result line (exit " + output.exitCode() + ")"
                            + (err.isEmpty() ? "" : ": " + err));
        }
        Usage usage = resultUsage(result, t.streamedUsage());
        String subtype = result.path("subtype").asText("");
        boolean isError = result.path("is_error").asBoolean(false);
        String text = firstLine(result.path("result").asText(""));
        AttemptStatus status;
        String detail;
        if (subtype.equals("error_max_turns")) {
            status = AttemptStatus.BUDGET_EXCEEDED;
            detail = "claude-code stopped at its --max-turns limit (" + usage.turns() + " turns)";
        } else if (subtype.equals("error_max_budget_usd")) {
            status = AttemptStatus.BUDGET_EXCEEDED;
            detail = String.format(Locale.ROOT, "claude-code stopped at its --max-budget-usd limit ($%.4f spent)",
                    usage.costUsd() == null ? 0.0 : usage.costUsd());
        } else if (subtype.equals("success") && !isError) {
            status = AttemptStatus.OK;
            detail = text;
        } else {
            status = AttemptStatus.AGENT_CRASH;
            String errors = errors(result);
            String api = result.path("api_error_status").isNumber()
                    ? " (API " + result.path("api_error_status").asInt() + " "
                    + result.path("api_error_type").asText("") + ")" : "";
            detail = "claude-code " + (subtype.isEmpty() || subtype.equals("success") ? "error" : subtype) + api
                    + (text.isEmpty() ? "" : ": " + text) + (errors.isEmpty() ? "" : ": " + errors);
        }
        return new AgentReport(status, usage, t.trajectory(), detail);
    }

    /**
     * The final {@code result} line's totals with the turns counted in the stream ({@code streamed}: one per assistant
     * message id, the CLI's own error messages not counted). Tokens (cached input included) and USD are the sums of
     * the line's {@code modelUsage} (every model the session used); its {@code usage} only when that is absent or
     * empty, because 2.1.332 puts the last turn's usage there, not the session's, when it stops at
     * {@code --max-budget-usd}. The line's {@code num_turns} is not used: at {@code --max-turns N} the CLI reports
     * N + 1 (the turn it refused to start) and after an API error 1, while isobench counts model responses.
     */
    static Usage resultUsage(JsonNode result, Usage streamed) {
        int turns = streamed.turns();
        JsonNode models = result.path("modelUsage");
        Double usd = result.path("total_cost_usd").isNumber() ? result.get("total_cost_usd").asDouble()
                : streamed.costUsd();
        if (models.isObject() && !models.isEmpty()) {
            long in = 0;
            long out = 0;
            for (JsonNode m : models) {
                in += m.path("inputTokens").asLong(0) + m.path("cacheReadInputTokens").asLong(0)
                        + m.path("cacheCreationInputTokens").asLong(0);
                out += m.path("outputTokens").asLong(0);
            }
            return new Usage(turns, in, out, usd);
        }
        JsonNode u = result.path("usage");
        if (!u.isObject()) {
            return new Usage(turns, streamed.tokensIn(), streamed.tokensOut(), usd);
        }
        return new Usage(turns, inputTokens(u), u.path("output_tokens").asLong(0), usd);
    }

    /**
     * Whether an {@code assistant} line is the CLI's own message (an API error shown as the assistant's text, model
     * {@code <synthetic>}), not a model response: no turn, no tokens.
     */
    static boolean synthetic(JsonNode line) {
        return line.path("is_api_error_message").asBoolean(false)
                || "<synthetic>".equals(line.path("message").path("model").asText());
    }

    /** {@code u} plus turns and tokens, its cost kept ({@link Usage#plus} unboxes a null cost). */
    static Usage add(Usage u, int turns, long in, long out) {
        return new Usage(u.turns() + turns, u.tokensIn() + in, u.tokensOut() + out, u.costUsd());
    }

    /** Input tokens of an API usage object, cached input (created and read) included. */
    static long inputTokens(JsonNode usage) {
        return usage.path("input_tokens").asLong(0) + usage.path("cache_creation_input_tokens").asLong(0)
                + usage.path("cache_read_input_tokens").asLong(0);
    }

    /** One stdout line as JSON, or null when it is not a JSON object. */
    static JsonNode readLine(String line) {
        String s = line.strip();
        if (!s.startsWith("{")) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(s);
            return n != null && n.isObject() ? n : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String errors(JsonNode result) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : result.path("errors")) {
            out.add(e.isTextual() ? e.asText() : e.toString());
        }
        return firstLine(String.join("; ", out));
    }

    static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip() + " …";
    }

    private static String lastLine(String s) {
        List<String> lines = s.strip().lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
    }
}
