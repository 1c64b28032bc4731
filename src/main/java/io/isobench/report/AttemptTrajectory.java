package io.isobench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An attempt's normalised trajectory as the report shows it, read from the stored ATIF-like JSON (artifact kind
 * {@code trajectory}, written by {@code io.isobench.agent.Trajectory#toJson}; docs/agents.md): the steps with their
 * source, message, tool calls with arguments and the summary of each call's result, and tokens. The text is untrusted
 * (agent and tool output): renderers escape every field. A document that does not parse reads as {@link #unreadable}.
 *
 * @param steps      the steps in order
 * @param unreadable why the document could not be read, or null
 */
record AttemptTrajectory(List<Step> steps, String unreadable) {

    private static final ObjectMapper JSON = new ObjectMapper();

    AttemptTrajectory {
        steps = List.copyOf(steps);
    }

    /** One step: {@code user}, {@code agent} or {@code system}. */
    record Step(int id, String source, String message, List<ToolCall> calls, Long tokensIn, Long tokensOut) {
        Step {
            calls = List.copyOf(calls);
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
            Map<String, String> results = new HashMap<>();
            for (JsonNode r : s.path("observation").path("results")) {
                results.put(r.path("source_call_id").asText(""), r.path("content").asText(""));
            }
            List<ToolCall> calls = new ArrayList<>();
            for (JsonNode c : s.path("tool_calls")) {
                calls.add(new ToolCall(c.path("function_name").asText("?"), text(c.path("arguments")),
                        results.get(c.path("tool_call_id").asText(""))));
            }
            JsonNode m = s.path("metrics");
            steps.add(new Step(s.path("step_id").asInt(i), s.path("source").asText("?"), s.path("message").asText(""),
                    calls, m.path("prompt_tokens").isNumber() ? m.path("prompt_tokens").asLong() : null,
                    m.path("completion_tokens").isNumber() ? m.path("completion_tokens").asLong() : null));
        }
        return new AttemptTrajectory(steps, null);
    }

    private static String text(JsonNode n) {
        return n.isMissingNode() || n.isNull() ? "" : n.isTextual() ? n.asText() : n.toString();
    }
}
