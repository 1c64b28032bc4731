package io.isobench.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An attempt's normalised trajectory, written as Harbor's ATIF-v1.7 ({@link #toJson(Header, Usage)}; docs/agents.md,
 * "ATIF trajectories"): the steps in order, each from {@code user}, {@code agent} or {@code system}, with its message,
 * the agent's reasoning, tool calls, a summary of each tool's result, and the step's tokens. Tool calls, reasoning and
 * tokens belong to {@code agent} steps only (ATIF's rule; a step that breaks it is refused). The raw output it was
 * read from is stored whole beside it.
 */
public record Trajectory(List<Step> steps) {

    public static final Trajectory EMPTY = new Trajectory(List.of());

    /** Longest tool-result summary kept in a step (the raw trajectory keeps everything). */
    public static final int SUMMARY_CHARS = 400;

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
     * @param reasoning the agent's reasoning text shown with the step ({@code reasoning_content}), or null
     */
    public record Step(String source, String message, List<ToolCall> toolCalls, Long tokensIn, Long tokensOut,
                       String reasoning) {
        public Step {
            Objects.requireNonNull(source, "source");
            if (!List.of("user", "agent", "system").contains(source)) {
                throw new IllegalArgumentException("step source " + source + ": user, agent or system");
            }
            message = message == null ? "" : message;
            toolCalls = List.copyOf(toolCalls);
            if (!source.equals("agent") && (!toolCalls.isEmpty() || tokensIn != null || tokensOut != null
                    || reasoning != null)) {
                throw new IllegalArgumentException("a " + source + " step with tool calls, tokens or reasoning"
                        + " (ATIF: agent steps only)");
            }
        }

        /** A step without reasoning. */
        public Step(String source, String message, List<ToolCall> toolCalls, Long tokensIn, Long tokensOut) {
            this(source, message, toolCalls, tokensIn, tokensOut, null);
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

    /**
     * Who made a trajectory and where it belongs: the ATIF document's header.
     *
     * @param sessionId    the agents-run session id ({@code session_id}), or null
     * @param agentName    the adapter ({@code agent.name})
     * @param agentVersion the agent CLI's version line ({@code agent.version}; null or blank: {@code unknown})
     * @param model        the model ({@code agent.model_name}), or null
     * @param isobench     isobench's facts of the attempt (task, attempt, prompt sha256, budget …), written under the
     *                     root {@code extra.isobench}
     */
    public record Header(String sessionId, String agentName, String agentVersion, String model,
                         Map<String, Object> isobench) {
        public Header {
            Objects.requireNonNull(agentName, "agentName");
            isobench = isobench == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(isobench));
        }

        /** A header without session or attempt facts. */
        public static Header of(String agentName, String agentVersion, String model) {
            return new Header(null, agentName, agentVersion, model, Map.of());
        }
    }

    /** The ATIF document ({@link AtifWriter}) of {@link Header#of}{@code (agentName, agentVersion, model)}. */
    public String toJson(String agentName, String agentVersion, String model, Usage total) {
        return toJson(Header.of(agentName, agentVersion, model), total);
    }

    /** The ATIF-v1.7 document of this trajectory (docs/agents.md, "ATIF trajectories"; {@link AtifWriter}). */
    public String toJson(Header header, Usage total) {
        return AtifWriter.write(this, header, total);
    }
}
