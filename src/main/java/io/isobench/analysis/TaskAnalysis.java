package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Statistics and verdicts of one task for one metric (docs/statistics.md): per-arm summaries, the A/A noise band,
 * human vs baseline, every agent vs baseline and vs human, replay validity, opt_base / opt_human, and the rounds
 * kept out with their reasons. Start with {@link #analyse(Input, StatsConfig)}.
 *
 * @param metric          canonical metric name (its unit is in the name)
 * @param better          direction of the metric
 * @param summaries       per arm label ({@code baseline}, {@code baseline-aa}, {@code human}, {@code agent:<name>}),
 *                        input order; descriptive, over each arm's valid rounds
 * @param noiseBand       the task's A/A noise band (with the A/A comparison itself)
 * @param verdicts        human vs baseline, every agent, and the replay validity
 * @param exclusions      rounds kept out of every comparison, with the reason
 * @param config          the method
 */
public record TaskAnalysis(
        String metric,
        Better better,
        Map<String, ArmSummary> summaries,
        NoiseBand noiseBand,
        Verdicts verdicts,
        List<RoundExclusion> exclusions,
        StatsConfig config) {

    /**
     * What to analyse.
     *
     * @param baselineAa the A/A arm ({@code baseline-aa}), or {@code null} when the session ran none
     * @param exclusions rounds that ran but are kept out (their values are not in the samples)
     */
    public record Input(String metric, Better better, ArmSamples baseline, ArmSamples baselineAa, ArmSamples human,
                        List<ArmSamples> agents, List<RoundExclusion> exclusions) {

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
            if (baselineAa != null && baselineAa.arm().kind() != Arm.Kind.BASELINE_AA) {
                throw new IllegalArgumentException("A/A samples must be for the baseline-aa arm");
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
            exclusions = List.copyOf(exclusions == null ? List.of() : exclusions);
        }

        /** Without an A/A arm and without exclusions. */
        public Input(String metric, Better better, ArmSamples baseline, ArmSamples human, List<ArmSamples> agents) {
            this(metric, better, baseline, null, human, agents, List.of());
        }
    }

    /**
     * The comparisons of a task.
     *
     * @param humanVsBaseline human vs baseline
     * @param agents          per agent arm, input order
     * @param replayValidity  {@code valid} only when human vs baseline is better
     */
    public record Verdicts(Comparison humanVsBaseline, List<AgentOutcome> agents, ReplayValidity replayValidity) {
        public Verdicts {
            agents = List.copyOf(agents);
        }
    }

    public TaskAnalysis {
        summaries = Collections.unmodifiableMap(new LinkedHashMap<>(summaries));
        exclusions = List.copyOf(exclusions);
    }

    /** Human vs baseline. */
    public Comparison humanVsBaseline() {
        return verdicts.humanVsBaseline();
    }

    /** Per agent arm, input order. */
    public List<AgentOutcome> agents() {
        return verdicts.agents();
    }

    /** {@code valid} only when human vs baseline is better. */
    public ReplayValidity replayValidity() {
        return verdicts.replayValidity();
    }

    public static TaskAnalysis analyse(Input input, StatsConfig config) {
        Map<String, ArmSummary> summaries = new LinkedHashMap<>();
        summaries.put(input.baseline().arm().label(), ArmSummary.of(input.baseline().values()));
        if (input.baselineAa() != null) {
            summaries.put(input.baselineAa().arm().label(), ArmSummary.of(input.baselineAa().values()));
        }
        summaries.put(input.human().arm().label(), ArmSummary.of(input.human().values()));
        for (ArmSamples a : input.agents()) {
            summaries.put(a.arm().label(), ArmSummary.of(a.values()));
        }
        Better better = input.better();
        ArmSamples base = input.baseline();
        ArmSamples aa = input.baselineAa();
        List<RoundExclusion> ex = input.exclusions();
        NoiseBand band = NoiseBand.none();
        if (aa != null) {
            Pairs aaPairs = Pairs.of(aa, base, null, better);
            Comparison aaCmp = Comparison.compute(aa, base, better, NoiseBand.none(), excluded(ex, aa, base), config,
                    aaPairs);
            band = NoiseBand.of(aaCmp, aaPairs);
        }
        Comparison hb = Comparison.compute(input.human(), base, aa, better, band, excluded(ex, input.human(), base),
                config);
        ReplayValidity validity = ReplayValidity.of(hb.verdict());
        List<AgentOutcome> agents = new ArrayList<>(input.agents().size());
        for (ArmSamples a : input.agents()) {
            Comparison ab = Comparison.compute(a, base, aa, better, band, excluded(ex, a, base), config);
            Comparison ah = Comparison.compute(a, input.human(), null, better, band, excluded(ex, a, input.human()),
                    config);
            agents.add(AgentOutcome.of(ab, ah, hb, validity, config));
        }
        return new TaskAnalysis(input.metric(), better, summaries, band, new Verdicts(hb, agents, validity), ex,
                config);
    }

    public static TaskAnalysis analyse(Input input) {
        return analyse(input, StatsConfig.defaults());
    }

    /** Distinct rounds in which x or its reference was excluded. */
    private static int excluded(List<RoundExclusion> exclusions, ArmSamples x, ArmSamples reference) {
        if (exclusions.isEmpty()) {
            return 0;
        }
        String a = x.arm().label();
        String r = reference.arm().label();
        Set<Integer> rounds = new HashSet<>();
        for (RoundExclusion e : exclusions) {
            if (e.excluded() && (e.arm().equals(a) || e.arm().equals(r))) {
                rounds.add(e.round());
            }
        }
        return rounds.size();
    }

    /** The A/A comparison (baseline-aa vs baseline), or null when the session ran no A/A arm. */
    public Comparison aa() {
        return noiseBand.aa();
    }

    /** Every comparison of the task, A/A first: what a count of tests (expected false wins) counts. */
    public List<Comparison> comparisons() {
        List<Comparison> out = new ArrayList<>();
        if (aa() != null) {
            out.add(aa());
        }
        out.add(humanVsBaseline());
        for (AgentOutcome a : agents()) {
            out.add(a.vsBaseline());
            out.add(a.vsHuman());
        }
        return out;
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
        m.put("noise_floor_pct", noiseBand.bandPct());
        m.put("noise_floor_source", noiseBand.source().label());
        m.put("aa", aa() == null ? null : aa().toMap());
        m.put("human_vs_baseline", humanVsBaseline().toMap());
        List<Object> agentMaps = new ArrayList<>();
        for (AgentOutcome a : agents()) {
            Map<String, Object> am = new LinkedHashMap<>();
            am.put("agent", a.agent());
            am.put("vs_baseline", a.vsBaseline().toMap());
            am.put("vs_human", a.vsHuman().toMap());
            am.put("opt_base", a.optBase());
            am.put("opt_human", a.optHuman());
            agentMaps.add(Collections.unmodifiableMap(am));
        }
        m.put("agents", Collections.unmodifiableList(agentMaps));
        m.put("replay_validity", replayValidity().label());
        List<Object> ex = new ArrayList<>();
        for (RoundExclusion e : exclusions) {
            Map<String, Object> em = new LinkedHashMap<>();
            em.put("arm", e.arm());
            em.put("round", e.round());
            em.put("cause", e.cause().label());
            em.put("detail", e.detail());
            if (!e.excluded()) {
                em.put("excluded", false);
            }
            ex.add(Collections.unmodifiableMap(em));
        }
        m.put("exclusions", Collections.unmodifiableList(ex));
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
        return agents().stream().filter(a -> a.agent().equals(label)).findFirst();
    }
}
