package io.isobench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An attempt's trajectory as the report shows it, read from the stored document (artifact kind {@code trajectory}):
 * an ATIF document (v1.0–v1.8: what isobench writes since issue 32, and what {@code isobench agents import} stores;
 * docs/agents.md, "ATIF trajectories") or the pre-ATIF shape older stores hold. The steps with their source, message,
 * reasoning, tool calls with arguments and the result each call got, results that name no call of the step, and
 * tokens and cost. A message or result that is an array of content parts reads as its text parts, an image as
 * {@code [image: PATH]}. The text is untrusted (agent and tool output): renderers escape every field. A document that
 * does not parse reads as {@link #unreadable}.
 *
 * @param steps      the steps in order
 * @param unreadable why the document could not be read, or null
 */
record AttemptTrajectory(List<Step> steps, String unreadable) {

    private static final ObjectMapper JSON = new ObjectMapper();

    AttemptTrajectory {
        steps = List.copyOf(steps);
    }

    /**
     * One step: {@code user}, {@code agent} or {@code system}.
     *
     * @param reasoning the agent's reasoning ({@code reasoning_content}), or null
     * @param results   observation results that name no tool call of the step (their text)
     * @param costUsd   the step's cost, or null
     */
    record Step(int id, String source, String message, String reasoning, List<ToolCall> calls, List<String> results,
                Long tokensIn, Long tokensOut, Double costUsd) {
        Step {
            calls = List.copyOf(calls);
            results = List.copyOf(results);
        }
    }

    /** A tool call with the summary of its result (null when none came back). */
    record ToolCall(String name, String arguments, String result) {
    }

    /** The trajectory of the stored JSON bytes. */
    static AttemptTrajectory parse(byte[] json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            return new AttemptTrajectory(List.of(), "not JSON (" + e.getClass().getSimpleName() + ")");
        }
        if (root == null || !root.path("steps").isArray()) {
            return new AttemptTrajectory(List.of(), "no steps array");
        }
        List<Step> steps = new ArrayList<>();
        int i = 0;
        for (JsonNode s : root.path("steps")) {
            i++;
            Map<String, String> byCall = new LinkedHashMap<>();
            List<String> loose = new ArrayList<>();
            Set<String> callIds = new HashSet<>();
            s.path("tool_calls").forEach(c -> callIds.add(c.path("tool_call_id").asText("")));
            for (JsonNode r : s.path("observation").path("results")) {
                String id = r.path("source_call_id").asText(null);
                String text = content(r.path("content"));
                if (id != null && callIds.contains(id)) {
                    byCall.merge(id, text, (a, b) -> a + "\n" + b);
                } else {
                    loose.add(text);
                }
            }
            List<ToolCall> calls = new ArrayList<>();
            for (JsonNode c : s.path("tool_calls")) {
                calls.add(new ToolCall(c.path("function_name").asText("?"), text(c.path("arguments")),
                        byCall.get(c.path("tool_call_id").asText(""))));
            }
            JsonNode m = s.path("metrics");
            steps.add(new Step(s.path("step_id").asInt(i), s.path("source").asText("?"), content(s.path("message")),
                    s.path("reasoning_content").isTextual() ? s.path("reasoning_content").asText() : null, calls, loose,
                    count(m.path("prompt_tokens")), count(m.path("completion_tokens")),
                    m.path("cost_usd").isNumber() ? m.path("cost_usd").asDouble() : null));
        }
        return new AttemptTrajectory(steps, null);
    }

    /** A message or result: a string, or the text of its content parts (an image as {@code [image: PATH]}). */
    static String content(JsonNode n) {
        if (!n.isArray()) {
            return n.isMissingNode() || n.isNull() ? "" : n.isTextual() ? n.asText() : n.toString();
        }
        StringBuilder b = new StringBuilder();
        for (JsonNode part : n) {
            if (!b.isEmpty()) {
                b.append('\n');
            }
            String type = part.path("type").asText("?");
            b.append(type.equals("text") ? part.path("text").asText("")
                    : "[" + type + ": " + part.path("source").path("path").asText("?") + "]");
        }
        return b.toString();
    }

    private static Long count(JsonNode n) {
        return n.isNumber() ? Long.valueOf(n.asLong()) : null;
    }

    private static String text(JsonNode n) {
        return n.isMissingNode() || n.isNull() ? "" : n.isTextual() ? n.asText() : n.toString();
    }
}
