package io.isobench.atif;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A trajectory stored before isobench wrote ATIF ({@code schema_version} {@value #PREFIX}…, "ATIF-like") converted to
 * ATIF-v1.7 (docs/agents.md, "ATIF trajectories"). The rule, the writer's own: {@code schema_version} becomes
 * {@value AtifValidator#WRITTEN_VERSION} and {@code session_id} the attempt's session; a blank {@code agent.version}
 * {@code unknown}; a tool call's {@code arguments} text parsed to its JSON object, anything else {@code {"input": v}}
 * with the text in the call's {@code extra.raw_arguments}; a repeated call id within a step {@code ID#N}; metrics and
 * other agent-only fields of a non-agent step moved to that step's {@code extra.isobench_moved}; a result naming no
 * call of its step keeps the name in {@code extra.isobench_source_call_id} and a null {@code source_call_id};
 * {@code final_metrics.total_turns} and {@code total_tool_calls} moved to {@code final_metrics.extra} as
 * {@code isobench_total_turns} and {@code isobench_total_tool_calls}; {@code total_steps} the number of steps; root
 * {@code extra.isobench.format} says it was converted. Every other document is returned unchanged.
 */
public final class LegacyTrajectory {

    /** The {@code schema_version} prefix of the pre-ATIF documents. */
    public static final String PREFIX = "isobench-trajectory-1";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectReader STRICT = JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final List<String> AGENT_ONLY = List.of("model_name", "reasoning_effort", "reasoning_content",
            "tool_calls", "metrics");

    private LegacyTrajectory() {
    }

    /** Whether {@code doc} is a pre-ATIF isobench document. */
    public static boolean isLegacy(JsonNode doc) {
        return doc != null && doc.path("schema_version").asText("").startsWith(PREFIX);
    }

    /** {@code doc} as ATIF-v1.7 when it is a pre-ATIF document ({@code sessionId} may be null), else itself. */
    public static JsonNode toAtif(JsonNode doc, String sessionId) {
        if (!isLegacy(doc)) {
            return doc;
        }
        ObjectNode old = (ObjectNode) doc;
        ObjectNode out = JSON.createObjectNode();
        out.put("schema_version", AtifValidator.WRITTEN_VERSION);
        if (sessionId != null) {
            out.put("session_id", sessionId);
        }
        ObjectNode agent = old.path("agent").isObject() ? old.path("agent").deepCopy() : JSON.createObjectNode();
        if (!agent.path("name").isTextual()) {
            agent.put("name", "unknown");
        }
        if (!agent.path("version").isTextual() || agent.path("version").asText().isBlank()) {
            agent.put("version", "unknown");
        }
        if (agent.has("model_name") && !agent.get("model_name").isTextual()) {
            agent.remove("model_name");
        }
        out.set("agent", agent);
        ArrayNode steps = out.putArray("steps");
        for (JsonNode s : old.path("steps")) {
            steps.add(step(s.deepCopy(), steps.size() + 1));
        }
        if (steps.isEmpty()) {
            steps.addObject().put("step_id", 1).put("source", "system").put("message", "isobench: the stored"
                    + " trajectory held no step");
        }
        ObjectNode fm = old.path("final_metrics").isObject() ? old.path("final_metrics").deepCopy()
                : JSON.createObjectNode();
        ObjectNode fx = JSON.createObjectNode();
        for (String k : List.of("total_turns", "total_tool_calls")) {
            if (fm.has(k)) {
                fx.set("isobench_" + k, fm.remove(k));
            }
        }
        if (!fx.isEmpty()) {
            fm.set("extra", fx);
        }
        fm.put("total_steps", steps.size());
        out.set("final_metrics", fm);
        out.putObject("extra").putObject("isobench").put("format", "isobench-atif-1 (converted on export from "
                + old.path("schema_version").asText() + ")");
        return out;
    }

    private static ObjectNode step(ObjectNode s, int id) {
        s.put("step_id", id);
        String source = s.path("source").asText();
        if (!List.of("user", "agent", "system").contains(source)) {
            s.put("source", "system");
            source = "system";
        }
        if (!s.path("message").isTextual()) {
            s.put("message", s.path("message").isMissingNode() || s.path("message").isNull() ? ""
                    : s.path("message").toString());
        }
        Set<String> ids = new HashSet<>();
        for (JsonNode c : s.path("tool_calls")) {
            ObjectNode call = (ObjectNode) c;
            String callId = call.path("tool_call_id").asText("");
            for (int k = 2; !ids.add(callId); k++) {
                callId = call.path("tool_call_id").asText("") + "#" + k;
            }
            call.put("tool_call_id", callId);
            if (!call.path("function_name").isTextual()) {
                call.put("function_name", "unknown");
            }
            JsonNode args = call.get("arguments");
            if (args == null || !args.isObject()) {
                String raw = args == null || args.isNull() ? "" : args.isTextual() ? args.asText() : args.toString();
                JsonNode parsed = parse(raw);
                if (parsed != null && parsed.isObject()) {
                    call.set("arguments", parsed);
                } else {
                    ObjectNode wrapped = JSON.createObjectNode();
                    wrapped.set("input", parsed == null ? JSON.getNodeFactory().textNode(raw) : parsed);
                    call.set("arguments", wrapped);
                    call.putObject("extra").put("raw_arguments", raw);
                }
            }
        }
        for (JsonNode r : s.path("observation").path("results")) {
            JsonNode ref = r.get("source_call_id");
            if (ref != null && !ref.isNull() && !ids.contains(ref.asText())) {
                ((ObjectNode) r).putNull("source_call_id");
                ((ObjectNode) r).putObject("extra").put("isobench_source_call_id", ref.asText());
            }
        }
        if (!source.equals("agent")) {
            ObjectNode moved = JSON.createObjectNode();
            for (String f : AGENT_ONLY) {
                if (s.has(f)) {
                    moved.set(f, s.remove(f));
                }
            }
            if (!moved.isEmpty()) {
                s.putObject("extra").set("isobench_moved", moved);
            }
        }
        for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!Set.of("step_id", "source", "message", "tool_calls", "observation", "metrics", "extra",
                    "reasoning_content").contains(f)) {
                it.remove();
            }
        }
        return s;
    }

    private static JsonNode parse(String raw) {
        try {
            return raw.isBlank() ? null : STRICT.readTree(raw);
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
