package io.isobench.agent;

import java.util.Objects;

/**
 * An adapter's reading of a finished attempt: its status as the agent reported it ({@link AttemptStatus#OK},
 * {@link AttemptStatus#AGENT_CRASH} or {@link AttemptStatus#BUDGET_EXCEEDED}), usage, the normalised trajectory and
 * a one-line detail (the agent's error, or its final message).
 */
public record AgentReport(AttemptStatus status, Usage usage, Trajectory trajectory, String detail) {
    public AgentReport {
        Objects.requireNonNull(status, "status");
        usage = usage == null ? Usage.NONE : usage;
        trajectory = trajectory == null ? Trajectory.EMPTY : trajectory;
        detail = detail == null ? "" : detail;
    }
}
