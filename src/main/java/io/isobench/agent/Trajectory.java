package io.isobench.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An attempt's normalised trajectory, close to Harbor's ATIF (docs/agents.md, "Trajectories"): the steps in order,
 * each from {@code user}, {@code agent} or {@code system}, with its message, tool calls, a summary of each tool's
 * result, and the step's tokens. The raw output it was read from is stored whole beside it.
 */
public record Trajectory(List<Step> steps) {

    public static final Trajectory EMPTY = new Trajectory(List.of());

    /** Longest tool-result summary kept in a step (the raw trajectory keeps everything). */
    public static final int SUMMARY_CHARS = 400;

    private static final ObjectMapper JSON = new ObjectMapper();

    public Trajectory {
        steps = List.copyOf(steps);
    }

    /**
     * One step.
     *
     * @param source    {@code user}, {@code agent} or {@code system}
     * @param message   the text of the step (may be empty)
     * @param toolCalls the tool calls the agent made in this step
     * @param tokensIn  input tokens of the model call behind this step, or null
     * @param tokensOut output tokens of that call, or null
     */
    public record Step(String source, String message, List<ToolCall> toolCalls, Long tokensIn, Long tokensOut) {
        public Step {
            Objects.requireNonNull(source, "source");
            message = message == null ? "" : message;
            toolCalls = List.copyOf(toolCalls);
        }
    }

    /**
     * A tool call and what came back.
     *
     * @param id            the call's id in the agent's protocol
     * @param name          the tool ({@code Bash}, {@code Edit}, {@code shell}, …)
     * @param arguments     the arguments as JSON text
     * @param resultSummary the first {@link #SUMMARY_CHARS} characters of the result, or null when none came
     */
    public record ToolCall(String id, String name, String arguments, String resultSummary) {
    }

    /** A tool result cut to {@link #SUMMARY_CHARS} characters, with the cut said. */
    public static String summary(String result) {
        if (result == null) {
            return null;
        }
        if (result.length() <= SUMMARY_CHARS) {
            return result;
        }
        return result.substring(0, SUMMARY_CHARS) + "… (" + result.length() + " chars; whole in the raw trajectory)";
    }

    /**
     * This trajectory with at most {@code maxSteps} steps: the first {@code maxSteps - 1} and a last {@code system}
     * step saying how many were left out (the raw output is stored beside it). The same trajectory when it fits.
     */
    public Trajectory limitedTo(int maxSteps) {
        if (steps.size() <= maxSteps) {
            return this;
        }
        int kept = Math.max(0, maxSteps - 1);
        List<Step> out = new ArrayList<>(steps.subList(0, kept));
        out.add(new Step("system", "isobench: " + (steps.size() - kept) + " more steps left out (limit"
                + " trajectory_steps " + maxSteps + "; the raw output is stored beside the trajectory)", List.of(),
                null, null));
        return new Trajectory(out);
    }

    public int toolCalls() {
        return steps.stream().mapToInt(s -> s.toolCalls().size()).sum();
    }

    /** The ATIF-like JSON document: {@code schema_version}, {@code agent}, {@code steps}, {@code final_metrics}. */
    public String toJson(String agentName, String agentVersion, String model, Usage total) {
        ObjectNode root = JSON.createObjectNode();
        root.put("schema_version", "isobench-trajectory-1 (ATIF-like)");
        ObjectNode agent = root.putObject("agent");
        agent.put("name", agentName);
        agent.put("version", agentVersion);
        agent.put("model_name", model);
        ArrayNode arr = root.putArray("steps");
        int i = 1;
        for (Step s : steps) {
            ObjectNode o = arr.addObject();
            o.put("step_id", i++);
            o.put("source", s.source());
            o.put("message", s.message());
            if (!s.toolCalls().isEmpty()) {
                ArrayNode calls = o.putArray("tool_calls");
                ArrayNode results = JSON.createArrayNode();
                for (ToolCall c : s.toolCalls()) {
                    ObjectNode call = calls.addObject();
                    call.put("tool_call_id", c.id());
                    call.put("function_name", c.name());
                    call.put("arguments", c.arguments());
                    if (c.resultSummary() != null) {
                        ObjectNode r = results.addObject();
                        r.put("source_call_id", c.id());
                        r.put("content", c.resultSummary());
                    }
                }
                if (!results.isEmpty()) {
                    o.putObject("observation").set("results", results);
                }
            }
            if (s.tokensIn() != null || s.tokensOut() != null) {
                ObjectNode m = o.putObject("metrics");
                if (s.tokensIn() != null) {
                    m.put("prompt_tokens", s.tokensIn());
                }
                if (s.tokensOut() != null) {
                    m.put("completion_tokens", s.tokensOut());
                }
            }
        }
        ObjectNode fm = root.putObject("final_metrics");
        fm.put("total_prompt_tokens", total.tokensIn());
        fm.put("total_completion_tokens", total.tokensOut());
        if (total.costUsd() != null) {
            fm.put("total_cost_usd", total.costUsd());
        }
        fm.put("total_turns", total.turns());
        fm.put("total_steps", steps.size());
        fm.put("total_tool_calls", toolCalls());
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
