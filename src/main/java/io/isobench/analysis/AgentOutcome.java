package io.isobench.analysis;

/**
 * One agent arm of a task: its comparisons and the GSO-style pair.
 *
 * @param agent      arm label ({@code agent:<name>})
 * @param vsBaseline agent vs baseline
 * @param vsHuman    agent vs human
 * @param optBase    the agent's verdict vs baseline is {@code better}
 * @param optHuman   optBase and agent speedup ≥ {@link StatsConfig#optHumanFraction()} × human speedup (both vs
 *                   baseline, point estimates); false when the human speedup is undefined
 */
public record AgentOutcome(String agent, Comparison vsBaseline, Comparison vsHuman, boolean optBase,
                           boolean optHuman) {

    static AgentOutcome of(Comparison vsBaseline, Comparison vsHuman, Comparison humanVsBaseline,
                           StatsConfig config) {
        boolean optBase = vsBaseline.verdict() == Verdict.BETTER;
        boolean optHuman = optBase && isOptHuman(vsBaseline.speedup(), humanVsBaseline.speedup(),
                config.optHumanFraction());
        return new AgentOutcome(vsBaseline.arm(), vsBaseline, vsHuman, optBase, optHuman);
    }

    /** agentSpeedup ≥ fraction × humanSpeedup; false when either is undefined. */
    public static boolean isOptHuman(Double agentSpeedup, Double humanSpeedup, double fraction) {
        return agentSpeedup != null && humanSpeedup != null && agentSpeedup >= fraction * humanSpeedup;
    }
}
