package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Statistics and verdicts of one task for one metric (DESIGN §6): per-arm summaries, the noise floor,
 * human vs baseline, every agent vs baseline and vs human, replay validity, opt_base/opt_human.
 * Start with {@link #analyse(Input, StatsConfig)}.
 *
 * @param metric                canonical metric name (its unit is in the name)
 * @param better                direction of the metric
 * @param summaries             per arm label ({@code baseline}, {@code human}, {@code agent:<name>}), input order
 * @param secondBaselineSummary summary of the second (A/A) baseline arm, {@code null} when there was none
 * @param noiseFloor            A/A noise floor of the task
 * @param humanVsBaseline       human vs baseline
 * @param agents                per agent arm, input order
 * @param replayValidity        {@code valid} only when human vs baseline is better or worse
 * @param config                the method
 */
public record TaskAnalysis(
        String metric,
        Better better,
        Map<String, ArmSummary> summaries,
        ArmSummary secondBaselineSummary,
        NoiseFloor noiseFloor,
        Comparison humanVsBaseline,
        List<AgentOutcome> agents,
        ReplayValidity replayValidity,
        StatsConfig config) {

    /**
     * What to analyse.
     *
     * @param secondBaselineInRoundOrder a second baseline arm of the same session (A/A), or {@code null}
     */
    public record Input(String metric, Better better, ArmSamples baseline, ArmSamples human, List<ArmSamples> agents,
                        double[] secondBaselineInRoundOrder) {

        public Input {
            if (metric == null || metric.isBlank()) {
                throw new IllegalArgumentException("metric must not be blank");
            }
            if (better == null || better == Better.NONE) {
                throw new IllegalArgumentException("metric " + metric + " direction (" + better
                        + ") must be lower or higher");
            }
            if (baseline == null || baseline.arm().kind() != Arm.Kind.BASELINE) {
                throw new IllegalArgumentException("baseline samples must be for the baseline arm");
            }
            if (human == null || human.arm().kind() != Arm.Kind.HUMAN) {
                throw new IllegalArgumentException("human samples must be for the human arm");
            }
            agents = List.copyOf(agents == null ? List.of() : agents);
            Set<String> seen = new HashSet<>();
            for (ArmSamples a : agents) {
                if (a.arm().kind() != Arm.Kind.AGENT) {
                    throw new IllegalArgumentException("agent samples must be for agent arms, got " + a.arm().label());
                }
                if (!seen.add(a.arm().label())) {
                    throw new IllegalArgumentException("agent arm " + a.arm().label() + " appears twice");
                }
            }
            if (secondBaselineInRoundOrder != null) {
                Samples.requireFinite(secondBaselineInRoundOrder, "second baseline samples");
                secondBaselineInRoundOrder = secondBaselineInRoundOrder.clone();
            }
        }

        public Input(String metric, Better better, ArmSamples baseline, ArmSamples human, List<ArmSamples> agents) {
            this(metric, better, baseline, human, agents, null);
        }

        @Override
        public double[] secondBaselineInRoundOrder() {
            return secondBaselineInRoundOrder == null ? null : secondBaselineInRoundOrder.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Input i && metric.equals(i.metric) && better == i.better
                    && baseline.equals(i.baseline) && human.equals(i.human) && agents.equals(i.agents)
                    && Arrays.equals(secondBaselineInRoundOrder, i.secondBaselineInRoundOrder);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(metric, better, baseline, human, agents)
                    + 31 * Arrays.hashCode(secondBaselineInRoundOrder);
        }

        @Override
        public String toString() {
            return "Input[" + metric + ", " + better.label() + ", " + baseline + ", " + human + ", " + agents
                    + (secondBaselineInRoundOrder == null ? "" : ", A/A " + Arrays.toString(secondBaselineInRoundOrder))
                    + "]";
        }
    }

    public TaskAnalysis {
        summaries = Collections.unmodifiableMap(new LinkedHashMap<>(summaries));
        agents = List.copyOf(agents);
    }

    public static TaskAnalysis analyse(Input input, StatsConfig config) {
        Map<String, ArmSummary> summaries = new LinkedHashMap<>();
        summaries.put(input.baseline().arm().label(), ArmSummary.of(input.baseline().values()));
        summaries.put(input.human().arm().label(), ArmSummary.of(input.human().values()));
        for (ArmSamples a : input.agents()) {
            summaries.put(a.arm().label(), ArmSummary.of(a.values()));
        }
        double[] second = input.secondBaselineInRoundOrder;
        ArmSummary secondSummary = second == null ? null : ArmSummary.of(second);
        NoiseFloor floor = NoiseFloor.of(input.baseline().values(), second);
        Better better = input.better();
        MedianCache medians = new MedianCache(config);
        Comparison hb = Comparison.compute(input.human(), input.baseline(), better, floor, config, medians);
        List<AgentOutcome> agents = new ArrayList<>(input.agents().size());
        for (ArmSamples a : input.agents()) {
            Comparison ab = Comparison.compute(a, input.baseline(), better, floor, config, medians);
            Comparison ah = Comparison.compute(a, input.human(), better, floor, config, medians);
            agents.add(AgentOutcome.of(ab, ah, hb, config));
        }
        return new TaskAnalysis(input.metric(), better, summaries, secondSummary, floor, hb, agents,
                ReplayValidity.of(hb.verdict()), config);
    }

    public static TaskAnalysis analyse(Input input) {
        return analyse(input, StatsConfig.defaults());
    }

    /**
     * Machine form (snake_case keys, insertion-ordered, {@code null} kept for undefined values) to store beside the
     * raw samples; includes the method ({@link StatsConfig#toMap()}).
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("metric", metric);
        m.put("better", better.label());
        Map<String, Object> arms = new LinkedHashMap<>();
        summaries.forEach((label, s) -> arms.put(label, summaryMap(s)));
        m.put("arms", arms);
        m.put("second_baseline", secondBaselineSummary == null ? null : summaryMap(secondBaselineSummary));
        m.put("noise_floor_pct", noiseFloor.noiseFloorPct());
        m.put("noise_floor_source", noiseFloor.source().label());
        m.put("human_vs_baseline", humanVsBaseline.toMap());
        List<Object> agentMaps = new ArrayList<>();
        for (AgentOutcome a : agents) {
            Map<String, Object> am = new LinkedHashMap<>();
            am.put("agent", a.agent());
            am.put("vs_baseline", a.vsBaseline().toMap());
            am.put("vs_human", a.vsHuman().toMap());
            am.put("opt_base", a.optBase());
            am.put("opt_human", a.optHuman());
            agentMaps.add(Collections.unmodifiableMap(am));
        }
        m.put("agents", Collections.unmodifiableList(agentMaps));
        m.put("replay_validity", replayValidity.label());
        m.put("method", config.toMap());
        return Collections.unmodifiableMap(m);
    }

    private static Map<String, Object> summaryMap(ArmSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.n());
        m.put("median", s.median());
        m.put("mean", s.mean());
        m.put("sd", s.sd());
        m.put("cv", s.cv());
        m.put("min", s.min());
        m.put("max", s.max());
        return Collections.unmodifiableMap(m);
    }

    /** The outcome of one agent arm by label ({@code agent:<name>}). */
    public java.util.Optional<AgentOutcome> agent(String label) {
        return agents.stream().filter(a -> a.agent().equals(label)).findFirst();
    }
}
