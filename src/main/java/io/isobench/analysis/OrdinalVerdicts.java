package io.isobench.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Verdicts on an ordinal metric — a load sweep's capacity, which takes only the sweep's points (docs/statistics.md
 * section 17): the paired-rounds t interval, its CV gate and TOST assume a continuous metric, so the verdict is
 * decided again by the <b>exact sign test</b> over the paired rounds (the interval stays in the record, as a
 * description). Per comparison of X with its reference: w rounds where X's value is higher, l lower, t tied;
 * p = the two-sided exact binomial p of max(w, l) among w + l (ties dropped);
 * <ul>
 *   <li>{@code better}: w &gt; l, p ≤ 1 − confidence, and the median paired ratio beyond the margin;</li>
 *   <li>{@code worse}: the same the other way;</li>
 *   <li>{@code equivalent}: every paired round tied, in at least as many rounds as the sign test needs
 *       ({@link Comparison#signTestMinPairs}: 6 at 95 %) — the same point, at the sweep's resolution;</li>
 *   <li>otherwise {@code inconclusive}: {@code too few rounds} when w + l is below that count (no outcome could
 *       reach the level), else {@code wide CI}.</li>
 * </ul>
 * A verdict the shared rules decided before the speed was looked at (failed, incorrect, no reference, undefined,
 * workload mismatch, too few valid pairs) is kept. The A/A comparison (the noise band) is left as computed.
 */
public final class OrdinalVerdicts {

    private OrdinalVerdicts() {
    }

    /**
     * {@code t} with its human-vs-baseline and agent comparisons decided by the sign rule, from each arm's value by
     * round ({@code perRound}: arm label → round → value; the rounds the verdict counted).
     */
    public static TaskAnalysis apply(TaskAnalysis t, Map<String, ? extends Map<Integer, Double>> perRound,
                                     StatsConfig config) {
        Comparison hb = decide(t.humanVsBaseline(), perRound, config);
        ReplayValidity validity = ReplayValidity.of(hb.verdict());
        List<AgentOutcome> agents = new ArrayList<>();
        for (AgentOutcome a : t.agents()) {
            agents.add(AgentOutcome.of(decide(a.vsBaseline(), perRound, config), decide(a.vsHuman(), perRound,
                    config), hb, validity, config));
        }
        return new TaskAnalysis(t.metric(), t.better(), t.summaries(), t.noiseBand(),
                new TaskAnalysis.Verdicts(hb, agents, validity), t.exclusions(), t.config());
    }

    static Comparison decide(Comparison c, Map<String, ? extends Map<Integer, Double>> perRound, StatsConfig config) {
        if (decidedBefore(c, config)) {
            return c;
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
        double alpha = 1 - config.confidence();
        double p = signTestP(w, l);
        double median = median(ratios);
        double m = 1 + c.marginPct() / 100.0;
        int need = Comparison.signTestMinPairs(config.confidence());
        String counts = String.format(Locale.ROOT, "sign test over %d paired rounds: %d higher, %d lower, %d tied,"
                + " p = %s; median ratio %.4f", w + l + ties, w, l, ties, fmtP(p), median);
        boolean higherIsBetter = c.better() == io.isobench.parse.Better.HIGHER;
        boolean up = w > l && p <= alpha + 1e-12 && median > m;
        boolean down = l > w && p <= alpha + 1e-12 && median < 1 / m;
        if (up || down) {
            return c.withVerdict(up == higherIsBetter ? Verdict.BETTER : Verdict.WORSE, null, counts + " (beyond"
                    + " the margin " + String.format(Locale.ROOT, "%.2f%%", c.marginPct()) + ")");
        }
        if (w == 0 && l == 0 && ties >= need) {
            return c.withVerdict(Verdict.EQUIVALENT, null, counts + ": the same point in every round");
        }
        return c.withVerdict(Verdict.INCONCLUSIVE, w + l < need && ties < need ? InconclusiveReason.TOO_FEW_ROUNDS
                : InconclusiveReason.WIDE_CI, counts + String.format(Locale.ROOT, " (a verdict needs p <= %s with the"
                + " median beyond the margin, or every one of >= %d rounds tied)", fmtP(alpha), need));
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
            case NO_REFERENCE, UNDEFINED, WORKLOAD_MISMATCH -> true;
            case TOO_FEW_ROUNDS -> c.pairs() < config.minPairedRounds();
            default -> false;
        };
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
