package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Statistics and verdicts of one task for one metric (docs/statistics.md): per-arm summaries, the A/A noise band,
 * human vs baseline, every agent vs baseline and vs human, replay validity, opt_base / opt_human, and the rounds
 * kept out with their reasons. Start with {@link #analyse(Input, StatsConfig)}.
 *
 * @param metric          canonical metric name (its unit is in the name)
 * @param better          direction of the metric
 * @param summaries       per arm (baseline, its A/A twin, human, every agent), input order; descriptive, over each
 *                        arm's valid rounds; {@link #toMap} writes the arms' labels
 * @param noiseBand       the task's A/A noise band (with the A/A comparison itself)
 * @param verdicts        human vs baseline, every agent, and the replay validity
 * @param exclusions      rounds kept out of every comparison, with the reason
 * @param config          the method
 * @param stopping        how many rounds the verdicts read and why (a fixed design: every round run)
 */
public record TaskAnalysis(
        String metric,
        Better better,
        Map<Arm, ArmSummary> summaries,
        NoiseBand noiseBand,
        Verdicts verdicts,
        List<RoundExclusion> exclusions,
        StatsConfig config,
        Stopping stopping) {

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

        /**
         * The baseline's and the human's samples of {@code metric}: no A/A arm, no agent, no exclusion (add them by
         * name: {@link #withBaselineAa}, {@link #withAgents}, {@link #withExclusions}).
         */
        public static Input of(String metric, Better better, ArmSamples baseline, ArmSamples human) {
            return new Input(metric, better, baseline, null, human, List.of(), List.of());
        }

        /** This input with the A/A arm's samples ({@code null}: the session ran none). */
        public Input withBaselineAa(ArmSamples aa) {
            return new Input(metric, better, baseline, aa, human, agents, exclusions);
        }

        /** This input with the agent arms' samples, in plan order. */
        public Input withAgents(List<ArmSamples> agentSamples) {
            return new Input(metric, better, baseline, baselineAa, human, agentSamples, exclusions);
        }

        /** This input with the rounds kept out (their values are not in the samples). */
        public Input withExclusions(List<RoundExclusion> kept) {
            return new Input(metric, better, baseline, baselineAa, human, agents, kept);
        }

        /** What a look after {@code rounds} rounds sees: the rounds before it (values and exclusions). */
        public Input before(int rounds) {
            List<ArmSamples> a = new ArrayList<>();
            for (ArmSamples x : agents) {
                a.add(x.before(rounds));
            }
            return new Input(metric, better, baseline.before(rounds), baselineAa == null ? null
                    : baselineAa.before(rounds), human.before(rounds), a, exclusions.stream()
                    .filter(e -> e.round() < rounds).toList());
        }

        /** The last round any arm has a value or an exclusion in, plus one. */
        public int roundsSpanned() {
            int n = Math.max(baseline.roundsSpanned(), human.roundsSpanned());
            n = Math.max(n, baselineAa == null ? 0 : baselineAa.roundsSpanned());
            for (ArmSamples x : agents) {
                n = Math.max(n, x.roundsSpanned());
            }
            for (RoundExclusion e : exclusions) {
                n = Math.max(n, e.round() + 1);
            }
            return n;
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
        if (stopping == null) {
            throw new IllegalArgumentException("stopping must not be null (Stopping.fixed for a fixed design)");
        }
    }

    /** This analysis with other verdicts (a rule that decides again: {@link OrdinalVerdicts}). */
    TaskAnalysis withVerdicts(Verdicts v) {
        return new TaskAnalysis(metric, better, summaries, noiseBand, v, exclusions, config, stopping);
    }

    /** This analysis with how it stopped. */
    TaskAnalysis withStopping(Stopping s) {
        return new TaskAnalysis(metric, better, summaries, noiseBand, verdicts, exclusions, config, s);
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

    /** Every round, read once with a fixed design's levels (95 %, the 90 % TOST interval). */
    public static TaskAnalysis analyse(Input input, StatsConfig config) {
        int rounds = input.roundsSpanned();
        return at(input, LookLevels.of(SequentialDesign.fixed(Math.max(1, rounds)), rounds, config), config)
                .withStopping(Stopping.fixed(rounds));
    }

    public static TaskAnalysis analyse(Input input) {
        return analyse(input, StatsConfig.defaults());
    }

    /**
     * The task's rounds read by {@code design}: a fixed design once over every round; an adaptive design look by look
     * ({@link SequentialAnalysis}), its verdicts those of the look it stops at.
     *
     * @param roundsRun rounds the session ran for the task (its looks go no further)
     */
    public static TaskAnalysis analyse(Input input, SequentialDesign design, int roundsRun, StatsConfig config) {
        return SequentialAnalysis.replay(design, roundsRun, config, n -> at(input.before(n),
                LookLevels.of(design, n, config), config));
    }

    /** Every comparison of the task read at one look; the A/A check applied. */
    static TaskAnalysis at(Input input, LookLevels look, StatsConfig config) {
        Map<Arm, ArmSummary> summaries = new LinkedHashMap<>();
        summaries.put(input.baseline().arm(), ArmSummary.of(input.baseline().values()));
        if (input.baselineAa() != null) {
            summaries.put(input.baselineAa().arm(), ArmSummary.of(input.baselineAa().values()));
        }
        summaries.put(input.human().arm(), ArmSummary.of(input.human().values()));
        for (ArmSamples a : input.agents()) {
            summaries.put(a.arm(), ArmSummary.of(a.values()));
        }
        Better better = input.better();
        ArmSamples base = input.baseline();
        ArmSamples aa = input.baselineAa();
        List<RoundExclusion> ex = input.exclusions();
        NoiseBand band = aa == null ? NoiseBand.none() : NoiseBand.of(Comparison.compute(aa, base, null, better,
                excluded(ex, aa, base), config, look));
        Comparison hb = checked(Comparison.compute(input.human(), base, aa, better, excluded(ex, input.human(), base),
                config, look), band);
        ReplayValidity validity = ReplayValidity.of(hb.verdict());
        List<AgentOutcome> agents = new ArrayList<>(input.agents().size());
        for (ArmSamples a : input.agents()) {
            Comparison ab = checked(Comparison.compute(a, base, aa, better, excluded(ex, a, base), config, look), band);
            Comparison ah = checked(Comparison.compute(a, input.human(), null, better, excluded(ex, a, input.human()),
                    config, look), band);
            agents.add(AgentOutcome.of(ab, ah, hb, validity, config));
        }
        return new TaskAnalysis(input.metric(), better, summaries, band, new Verdicts(hb, agents, validity), ex,
                config, Stopping.fixed(look.rounds()));
    }

    /**
     * The A/A check (docs/statistics.md §6): when the A/A comparison is itself better or worse, the baseline's two
     * environments differ, and no speed verdict of the task can be trusted; outcomes (failed, incorrect) stay.
     */
    static Comparison checked(Comparison c, NoiseBand band) {
        if (!band.unstable() || !c.verdict().aboutSpeed()) {
            return c;
        }
        Comparison aa = band.aa();
        return c.withVerdict(Verdict.INCONCLUSIVE, InconclusiveReason.AA_UNSTABLE, String.format(Locale.ROOT,
                "the A/A arm (the baseline started again) is %s than the baseline: speedup %.4f, %s [%.4f, %.4f];"
                + " the baseline does not repeat itself, so no speed verdict of the task holds (speed alone: %s; %s)",
                aa.verdict().label(), aa.speedup(), aa.read().ciText(), aa.ciLowSpeedup(), aa.ciHighSpeedup(),
                c.verdictText(), c.reason()));
    }

    /** Distinct rounds in which x or its reference was excluded, and those excluded for a saturated client. */
    private static Comparison.Excluded excluded(List<RoundExclusion> exclusions, ArmSamples x, ArmSamples reference) {
        if (exclusions.isEmpty()) {
            return Comparison.Excluded.of(0);
        }
        String a = x.arm().label();
        String r = reference.arm().label();
        Set<Integer> rounds = new HashSet<>();
        Set<Integer> saturated = new HashSet<>();
        Set<Integer> armSaturated = new HashSet<>();
        Set<Integer> refSaturated = new HashSet<>();
        for (RoundExclusion e : exclusions) {
            if (e.excluded() && (e.arm().equals(a) || e.arm().equals(r))) {
                rounds.add(e.round());
                if (e.cause() == RoundExclusion.Cause.CLIENT_SATURATED) {
                    saturated.add(e.round());
                    (e.arm().equals(a) ? armSaturated : refSaturated).add(e.round());
                }
            }
        }
        return new Comparison.Excluded(rounds.size(), saturated.size(), armSaturated.size(), refSaturated.size());
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
        summaries.forEach((arm, s) -> arms.put(arm.label(), summaryMap(s)));
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
        m.put("stopping", stopping.toMap());
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
    public Optional<AgentOutcome> agent(String label) {
        return agents().stream().filter(a -> a.agent().equals(label)).findFirst();
    }
}
