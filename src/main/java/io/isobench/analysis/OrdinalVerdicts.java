package io.isobench.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.isobench.parse.Better;

/**
 * Verdicts on an ordinal metric — a load sweep's capacity, which takes only the sweep's points (docs/statistics.md
 * §17). The paired-rounds t interval assumes a continuous metric, so none is kept: the comparison carries no interval
 * ({@link Comparison.Variance#ORDINAL}) and is decided by the <b>exact sign test</b> over the paired rounds at the
 * grid's resolution. Per comparison of X with its reference: w rounds where X's value is higher, l lower, t tied;
 * p = the two-sided exact binomial p of max(w, l) among w + l (ties dropped);
 * <ul>
 *   <li>{@code better}: w &gt; l, p ≤ the sign test's level, and the median paired ratio beyond the margin;</li>
 *   <li>{@code worse}: the same the other way;</li>
 *   <li>{@code equivalent}: every paired round tied, in at least as many rounds as the sign test needs
 *       ({@link Comparison#signTestMinPairs}: 6 at 95 %), <b>and</b> the grid fine enough that the same point means
 *       within the margin (grid step ≤ 1 + minimum effect). A tie on a coarser grid says only that a difference, if
 *       any, is smaller than one step: {@code inconclusive: below the sweep's resolution};</li>
 *   <li>otherwise {@code inconclusive}: {@code below the sweep's resolution} when at least half the paired rounds
 *       tie, {@code too few rounds} when fewer untied rounds than the sign test needs, else {@code wide CI} (the
 *       sign test did not reach its level).</li>
 * </ul>
 * With adaptive rounds the sign test's level is the largest nominal level whose sequential error, looking after every
 * round up to the last look, stays within 1 − confidence ({@link #sequentialLevel}; exact, by enumeration), and a
 * comparison no continuation could decide is stopped (not open). A verdict the shared rules decided before the speed
 * was looked at (failed, incorrect, no reference, undefined, workload mismatch, too few valid pairs) is kept. The A/A
 * comparison (the noise band) is decided the same way.
 */
public final class OrdinalVerdicts {

    private OrdinalVerdicts() {
    }

    /**
     * {@code t} with every comparison decided by the sign rule, from each arm's value by round ({@code perRound}: arm
     * label → round → value; the rounds the verdict counted).
     *
     * @param gridStep the ratio between neighbouring points of the sweep's grid (2 for 1, 2, 4, 8)
     * @param design   the session's design (its last look sets the sign test's sequential level)
     * @param look     the look the comparisons were read at
     */
    public static TaskAnalysis apply(TaskAnalysis t, Map<String, ? extends Map<Integer, Double>> perRound,
                                     double gridStep, SequentialDesign design, LookLevels look) {
        Rule rule = new Rule(perRound, gridStep, t.config(), levelFor(design, t.config()), look.interim()
                ? design.maxRounds() - look.rounds() : 0);
        NoiseBand band = t.noiseBand().aa() == null ? t.noiseBand() : NoiseBand.of(rule.decide(t.noiseBand().aa()));
        Comparison hb = TaskAnalysis.checked(rule.decide(t.humanVsBaseline()), band);
        ReplayValidity validity = ReplayValidity.of(hb.verdict());
        List<AgentOutcome> agents = new ArrayList<>();
        for (AgentOutcome a : t.agents()) {
            agents.add(AgentOutcome.of(TaskAnalysis.checked(rule.decide(a.vsBaseline()), band),
                    TaskAnalysis.checked(rule.decide(a.vsHuman()), band), hb, validity, t.config()));
        }
        return new TaskAnalysis(t.metric(), t.better(), t.summaries(), band, new TaskAnalysis.Verdicts(hb, agents,
                validity), t.exclusions(), t.config(), t.stopping());
    }

    /** The sign test's level under {@code design}: 1 − confidence fixed; {@link #sequentialLevel} adaptive. */
    static double levelFor(SequentialDesign design, StatsConfig config) {
        double alpha = 1 - config.confidence();
        return design.adaptive() ? LEVELS.computeIfAbsent(design.maxRounds() + "|" + alpha,
                k -> sequentialLevel(design.maxRounds(), alpha)) : alpha;
    }

    private static final ConcurrentHashMap<String, Double> LEVELS =
            new ConcurrentHashMap<>();

    /** The sign rule at one look. */
    private record Rule(Map<String, ? extends Map<Integer, Double>> perRound, double gridStep, StatsConfig config,
                        double level, int remaining) {

        Comparison decide(Comparison c) {
            if (decidedBefore(c, config)) {
                return c.ordinal(c.verdict(), c.inconclusiveReason(), c.reason(), c.read().open());
            }
            Map<Integer, Double> x = perRound.containsKey(c.arm()) ? perRound.get(c.arm()) : Map.of();
            Map<Integer, Double> r = perRound.containsKey(c.reference()) ? perRound.get(c.reference()) : Map.of();
            int w = 0;
            int l = 0;
            int ties = 0;
            List<Double> ratios = new ArrayList<>();
            for (Map.Entry<Integer, Double> e : x.entrySet()) {
                Double ref = r.get(e.getKey());
                if (ref == null || !(ref > 0) || !(e.getValue() > 0)) {
                    continue;
                }
                int cmp = Double.compare(e.getValue(), ref);
                w += cmp > 0 ? 1 : 0;
                l += cmp < 0 ? 1 : 0;
                ties += cmp == 0 ? 1 : 0;
                ratios.add(e.getValue() / ref);
            }
            double p = signTestP(w, l);
            double median = median(ratios);
            double m = 1 + c.marginPct() / 100.0;
            int need = Comparison.signTestMinPairs(config.confidence());
            String counts = String.format(Locale.ROOT, "sign test over %d paired rounds: %d higher, %d lower, %d tied,"
                    + " p = %s; median ratio %.4f", w + l + ties, w, l, ties, fmtP(p), median);
            boolean higherIsBetter = c.better() == Better.HIGHER;
            boolean up = w > l && p <= level + 1e-12 && median > m;
            boolean down = l > w && p <= level + 1e-12 && median < 1 / m;
            if (up || down) {
                return c.ordinal(up == higherIsBetter ? Verdict.BETTER : Verdict.WORSE, null, counts + " (level "
                        + fmtP(level) + ", beyond the margin " + String.format(Locale.ROOT, "%.2f%%", c.marginPct())
                        + ")", false);
            }
            boolean fine = gridStep <= m + 1e-12;
            if (w == 0 && l == 0 && ties >= need && fine) {
                return c.ordinal(Verdict.EQUIVALENT, null, counts + ": the same point in every round, on a grid"
                        + " finer than the margin", false);
            }
            // could the rounds still to come decide it? (all of them on the leading side)
            boolean reachable = remaining > 0 && signTestP(Math.max(w, l) + remaining, Math.min(w, l)) <= level
                    + 1e-12;
            boolean belowResolution = 2 * ties >= w + l + ties;
            InconclusiveReason why = belowResolution ? InconclusiveReason.BELOW_RESOLUTION
                    : w + l < need ? InconclusiveReason.TOO_FEW_ROUNDS : InconclusiveReason.WIDE_CI;
            String because = counts + (belowResolution ? String.format(Locale.ROOT, ": most rounds on the same"
                    + " point of a grid whose step (x%s) is wider than the margin; a difference, if any, is finer than"
                    + " the sweep can tell", StatsConfig.fmt(gridStep))
                    : String.format(Locale.ROOT, " (a verdict needs p <= %s with the median beyond the margin)",
                    fmtP(level)));
            return c.ordinal(Verdict.INCONCLUSIVE, why, because + (remaining > 0 && !reachable
                    ? "; no outcome of the remaining " + remaining + " round(s) could decide it" : ""), reachable);
        }
    }

    /** Verdicts the shared rules reach before the speed is looked at. */
    private static boolean decidedBefore(Comparison c, StatsConfig config) {
        if (c.verdict() == Verdict.FAILED || c.verdict() == Verdict.INCORRECT) {
            return true;
        }
        if (c.verdict() != Verdict.INCONCLUSIVE) {
            return false;
        }
        return switch (c.inconclusiveReason()) {
            case NO_REFERENCE, UNDEFINED, WORKLOAD_MISMATCH, CLIENT_SATURATED -> true;
            case TOO_FEW_ROUNDS -> c.pairs() < config.minPairedRounds();
            default -> false;
        };
    }

    /**
     * The largest nominal level a of the two-sided exact sign test such that looking after every round 1 … maxRounds
     * (rejecting at the first look whose p ≤ a) errs with probability at most {@code alpha} when there is no effect.
     * Ties only remove looks and shorten the sequence of untied rounds, so the untied worst case bounds every tie
     * pattern; the error of each candidate level (every attainable p-value) is exact, by dynamic programming over the
     * (higher, lower) counts.
     */
    static double sequentialLevel(int maxRounds, double alpha) {
        List<Double> candidates = new ArrayList<>();
        for (int n = 1; n <= maxRounds; n++) {
            for (int k = 0; k <= n; k++) {
                candidates.add(signTestP(k, n - k));
            }
        }
        candidates.sort(null);
        double best = 0;
        for (double a : candidates) {
            if (a > alpha + 1e-12) {
                break;
            }
            if (sequentialError(maxRounds, a) <= alpha + 1e-12) {
                best = Math.max(best, a);
            }
        }
        return best > 0 ? best : alpha;
    }

    /** P(some look 1 … maxRounds has p ≤ a) for fair coins: the sequential sign test's error. */
    static double sequentialError(int maxRounds, double a) {
        double[] mass = new double[maxRounds + 2]; // mass[w] with l = n - w, among sequences not yet stopped
        mass[0] = 1;
        double rejected = 0;
        for (int n = 1; n <= maxRounds; n++) {
            double[] next = new double[maxRounds + 2];
            for (int w = 0; w < n; w++) {
                next[w + 1] += mass[w] / 2;
                next[w] += mass[w] / 2;
            }
            for (int w = 0; w <= n; w++) {
                if (next[w] > 0 && signTestP(w, n - w) <= a + 1e-12) {
                    rejected += next[w];
                    next[w] = 0;
                }
            }
            mass = next;
        }
        return rejected;
    }

    /** Two-sided exact sign test: 2 · P(Bin(w + l, ½) ≥ max(w, l)), at most 1; 1 when nothing differs. */
    static double signTestP(int w, int l) {
        int n = w + l;
        if (n == 0) {
            return 1.0;
        }
        int k = Math.max(w, l);
        double tail = 0;
        for (int i = k; i <= n; i++) {
            tail += Math.exp(logChoose(n, i) - n * Math.log(2));
        }
        return Math.min(1.0, 2 * tail);
    }

    private static double logChoose(int n, int k) {
        double s = 0;
        for (int i = 1; i <= k; i++) {
            s += Math.log(n - k + i) - Math.log(i);
        }
        return s;
    }

    private static double median(List<Double> v) {
        if (v.isEmpty()) {
            return Double.NaN;
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static String fmtP(double p) {
        return String.format(Locale.ROOT, "%.4g", p);
    }
}
