package io.isobench.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.atif.AtifValidator;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link Trajectory} written as an ATIF-v1.7 document (docs/agents.md, "ATIF trajectories"; Harbor RFC 0001,
 * harbor 0.20.0). The mapping: {@code schema_version} always {@value AtifValidator#WRITTEN_VERSION};
 * {@code session_id} the agents-run session; a trajectory without steps one {@code system} step saying so (ATIF
 * asks for at least one); {@code agent} the adapter, the CLI's version line ({@code unknown} when
 * none) and the model; steps numbered from 1 in order; a tool call's {@code arguments} always a JSON object (any
 * other value {@code v}, or text that is not JSON, becomes {@code {"input": v}} with the text as it came in the call's
 * {@code extra.raw_arguments}); a blank call id becomes {@code call_STEP_I}, a repeated one within a step gets
 * {@code #N} (the id as it came in {@code extra.isobench_original_tool_call_id}), so ids are unique per step (v1.8's
 * rule); each call's result summary an observation result naming its call; per-step metrics
 * ({@code prompt_tokens} with cached input, {@code completion_tokens}) on agent steps only;
 * {@code final_metrics} with ATIF's keys only and isobench's totals under {@code final_metrics.extra.isobench_*};
 * isobench's own facts under the root {@code extra.isobench}. The document is checked by
 * {@link AtifValidator} in its {@link AtifValidator.Profile#WRITE} profile by whoever stores it.
 */
final class AtifWriter {

    /** isobench's own format note in {@code extra.isobench.format}. */
    static final String FORMAT = "isobench-atif-1";

    /** The one step of a trajectory without steps (ATIF asks for at least one). */
    static final String EMPTY_STEP = "isobench: the agent's output held no step (the raw output is stored beside this"
            + " document)";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectReader STRICT = JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private AtifWriter() {
    }

    static String write(Trajectory t, Trajectory.Header h, Usage total) {
        ObjectNode root = JSON.createObjectNode();
        root.put("schema_version", AtifValidator.WRITTEN_VERSION);
        if (h.sessionId() != null) {
            root.put("session_id", h.sessionId());
        }
        ObjectNode agent = root.putObject("agent");
        agent.put("name", h.agentName());
        agent.put("version", h.agentVersion() == null || h.agentVersion().isBlank() ? "unknown" : h.agentVersion());
        if (h.model() != null) {
            agent.put("model_name", h.model());
        }
        ArrayNode arr = root.putArray("steps");
        int i = 1;
        for (Trajectory.Step s : t.steps()) {
            step(arr.addObject(), i++, s);
        }
        if (t.steps().isEmpty()) {
            step(arr.addObject(), 1, new Trajectory.Step("system", EMPTY_STEP, List.of(), null, null));
        }
        ObjectNode fm = root.putObject("final_metrics");
        fm.put("total_prompt_tokens", total.tokensIn());
        fm.put("total_completion_tokens", total.tokensOut());
        if (total.costUsd() != null) {
            fm.put("total_cost_usd", total.costUsd());
        }
        fm.put("total_steps", arr.size());
        ObjectNode fx = fm.putObject("extra");
        fx.put("isobench_total_turns", total.turns());
        fx.put("isobench_total_tool_calls", t.toolCalls());
        fx.put("isobench_cost_source", total.costUsd() == null ? "none: the agent reported no cost"
                : "reported by the agent (its CLI or usage lines)");
        fx.put("isobench_totals_note", "totals are the attempt's usage as isobench counted it; per-step metrics"
                + " are what the agent's stream showed and may not add up to them");
        ObjectNode x = root.putObject("extra").putObject("isobench");
        x.put("format", FORMAT);
        for (Map.Entry<String, Object> e : h.isobench().entrySet()) {
            x.set(e.getKey(), JSON.valueToTree(e.getValue()));
        }
        x.put("summary_chars", Trajectory.SUMMARY_CHARS);
        x.put("summary_rule", "an observation's content is the first " + Trajectory.SUMMARY_CHARS
                + " characters of the tool's result, the cut said; the whole raw stream is stored beside this"
                + " document (artifact agent-stdout)");
        x.put("redaction", "the attempt's secret values are masked in this document before it is stored");
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void step(ObjectNode o, int id, Trajectory.Step s) {
        o.put("step_id", id);
        o.put("source", s.source());
        o.put("message", s.message());
        if (s.reasoning() != null) {
            o.put("reasoning_content", s.reasoning());
        }
        if (!s.toolCalls().isEmpty()) {
            ArrayNode calls = o.putArray("tool_calls");
            ArrayNode results = JSON.createArrayNode();
            Set<String> ids = new HashSet<>();
            int n = 0;
            for (Trajectory.ToolCall c : s.toolCalls()) {
                ObjectNode call = calls.addObject();
                String callId = c.id() == null || c.id().isBlank() ? "call_" + id + "_" + n : c.id();
                ObjectNode extra = JSON.createObjectNode();
                for (int k = 2; !ids.add(callId); k++) {
                    callId = (c.id() == null || c.id().isBlank() ? "call_" + id + "_" + n : c.id()) + "#" + k;
                    extra.put("isobench_original_tool_call_id", c.id() == null ? "" : c.id());
                }
                n++;
                call.put("tool_call_id", callId);
                call.put("function_name", c.name() == null || c.name().isEmpty() ? "unknown" : c.name());
                call.set("arguments", arguments(c.arguments(), extra));
                if (!extra.isEmpty()) {
                    call.set("extra", extra);
                }
                if (c.resultSummary() != null) {
                    ObjectNode r = results.addObject();
                    r.put("source_call_id", callId);
                    r.put("content", c.resultSummary());
                }
            }
            if (!results.isEmpty()) {
                o.putObject("observation").set("results", results);
            }
        }
        if (s.source().equals("agent") && (s.tokensIn() != null || s.tokensOut() != null)) {
            ObjectNode m = o.putObject("metrics");
            if (s.tokensIn() != null) {
                m.put("prompt_tokens", s.tokensIn());
            }
            if (s.tokensOut() != null) {
                m.put("completion_tokens", s.tokensOut());
            }
        }
    }

    /** A call's arguments as a JSON object: the object itself, else {@code {"input": value}} with the raw kept. */
    static ObjectNode arguments(String raw, ObjectNode extra) {
        String text = raw == null ? "" : raw;
        JsonNode v;
        try {
            v = text.isBlank() ? null : STRICT.readTree(text);
        } catch (JsonProcessingException e) {
            v = null;
        }
        if (v != null && v.isObject()) {
            return (ObjectNode) v;
        }
        ObjectNode wrapped = JSON.createObjectNode();
        if (v == null) {
            wrapped.put("input", text);
        } else {
            wrapped.set("input", v);
        }
        extra.put("raw_arguments", text);
        return wrapped;
    }
}
