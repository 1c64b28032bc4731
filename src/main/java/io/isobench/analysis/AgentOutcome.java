package io.isobench.analysis;

import io.isobench.Arm;

/**
 * One agent arm of a task: its comparisons and the GSO-style pair, defined only on replay-valid tasks.
 *
 * @param agent      arm label ({@code agent:<name>})
 * @param vsBaseline agent vs baseline
 * @param vsHuman    agent vs human
 * @param optBase    the agent's verdict vs baseline is {@code better}; {@code null} when the task is not replay-valid
 * @param optHuman   optBase and agent speedup ≥ {@link StatsConfig#optHumanFraction()} × human speedup (both vs
 *                   baseline, point estimates); {@code null} when the task is not replay-valid
 */
public record AgentOutcome(String agent, Comparison vsBaseline, Comparison vsHuman, Boolean optBase,
                           Boolean optHuman) {

    static AgentOutcome of(Comparison vsBaseline, Comparison vsHuman, Comparison humanVsBaseline,
                           ReplayValidity validity, StatsConfig config) {
        if (validity != ReplayValidity.VALID) {
            return new AgentOutcome(vsBaseline.arm(), vsBaseline, vsHuman, null, null);
        }
        boolean optBase = vsBaseline.verdict() == Verdict.BETTER;
        boolean optHuman = optBase && isOptHuman(vsBaseline.speedup(), humanVsBaseline.speedup(),
                config.optHumanFraction());
        return new AgentOutcome(vsBaseline.arm(), vsBaseline, vsHuman, optBase, optHuman);
    }

    /** The agent's name as its arm is labelled ({@code NAME} of {@code agent:NAME}, read by {@link Arm#ofStored}). */
    public String agentName() {
        return Arm.ofStored(agent).agentName();
    }

    /** agentSpeedup ≥ fraction × humanSpeedup; false when either is undefined. */
    public static boolean isOptHuman(Double agentSpeedup, Double humanSpeedup, double fraction) {
        return agentSpeedup != null && humanSpeedup != null && agentSpeedup >= fraction * humanSpeedup;
    }
}
