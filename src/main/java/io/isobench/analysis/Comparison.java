package io.isobench.analysis;

import io.isobench.parse.Better;

import java.util.Locale;

/**
 * One comparison "arm vs reference" (H vs B, A vs B, A vs H) for one metric. Numbers are {@code null} when
 * undefined (an arm without valid runs, a non-positive sample).
 *
 * @param arm               label of the arm X (e.g. {@code human}, {@code agent:claude_code})
 * @param reference         label of the reference B
 * @param n                 valid rounds of X
 * @param nReference        valid rounds of B
 * @param medianRatio       median(X) / median(B), not oriented
 * @param speedup           oriented so > 1 is better: B/X for lower-is-better, X/B for higher-is-better
 * @param deltaPct          DESIGN §5 improvement in percent, positive = better
 * @param ciLowSpeedup      lower bound of the bootstrap CI of the speedup
 * @param ciHighSpeedup     upper bound of the bootstrap CI of the speedup
 * @param mannWhitneyU      U of X against B (pairs X > B plus half the ties)
 * @param pValue            two-sided Mann-Whitney p-value (reported, not gating)
 * @param pValueMethod      exact, normal or undefined
 * @param thresholdPct      the |Δ %| a significant change must exceed: max(noise floor, minimum effect)
 * @param verdict           the verdict of DESIGN §6
 * @param reason            one line that explains the verdict
 * @param config            the method that produced these numbers
 */
public record Comparison(
        String arm,
        String reference,
        Better better,
        int n,
        int nReference,
        Double medianRatio,
        Double speedup,
        Double deltaPct,
        Double ciLowSpeedup,
        Double ciHighSpeedup,
        Double mannWhitneyU,
        Double pValue,
        MannWhitney.Method pValueMethod,
        double thresholdPct,
        Verdict verdict,
        String reason,
        StatsConfig config) {

    public Comparison {
        if (verdict == null || config == null || better == null) {
            throw new IllegalArgumentException("verdict, config and better must not be null");
        }
    }

    /**
     * Flat machine form with snake_case keys (insertion-ordered, unmodifiable; {@code null} values kept), without
     * the config: store it once per task ({@link TaskAnalysis#toMap()}).
     */
    public java.util.Map<String, Object> toMap() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("arm", arm);
        m.put("reference", reference);
        m.put("better", better.label());
        m.put("n", n);
        m.put("n_reference", nReference);
        m.put("median_ratio", medianRatio);
        m.put("speedup", speedup);
        m.put("delta_pct", deltaPct);
        m.put("ci_low_speedup", ciLowSpeedup);
        m.put("ci_high_speedup", ciHighSpeedup);
        m.put("mann_whitney_u", mannWhitneyU);
        m.put("p_value", pValue);
        m.put("p_value_method", pValueMethod.label());
        m.put("threshold_pct", thresholdPct);
        m.put("verdict", verdict.label());
        m.put("reason", reason);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** True when the CI lies wholly above or wholly below 1. */
    public boolean ciExcludesOne() {
        return ciLowSpeedup != null && ciHighSpeedup != null && (ciLowSpeedup > 1.0 || ciHighSpeedup < 1.0);
    }

    /**
     * Compares {@code x} against {@code reference} under the noise floor of the task.
     *
     * @throws IllegalArgumentException for a metric without direction ({@link Better#NONE})
     */
    public static Comparison compute(ArmSamples x, ArmSamples reference, Better better, NoiseFloor noiseFloor,
                                     StatsConfig config) {
        return compute(x, reference, better, noiseFloor, config, new MedianCache(config));
    }

    static Comparison compute(ArmSamples x, ArmSamples reference, Better better, NoiseFloor noiseFloor,
                              StatsConfig config, MedianCache medians) {
        if (better == null || better == Better.NONE) {
            throw new IllegalArgumentException("metric direction (" + better
                    + ") must be lower or higher: a metric without direction has no better/worse");
        }
        if (x == null || reference == null || noiseFloor == null || config == null) {
            throw new IllegalArgumentException("arm, reference, noise floor and config must not be null"
                    + " (use NoiseFloor.none() when there is none)");
        }
        double threshold = noiseFloor.thresholdPct(config.minEffectPct());
        String armLabel = x.arm().label();
        String refLabel = reference.arm().label();
        double[] xs = x.values();
        double[] rs = reference.values();
        if (xs.length == 0) {
            return new Comparison(armLabel, refLabel, better, 0, rs.length, null, null, null, null, null, null, null,
                    MannWhitney.Method.UNDEFINED, threshold, Verdict.FAILED, armLabel + " has no valid runs", config);
        }
        Double ratio = null;
        Double speedup = null;
        Double delta = null;
        Double ciLow = null;
        Double ciHigh = null;
        Double u = null;
        Double p = null;
        MannWhitney.Method method = MannWhitney.Method.UNDEFINED;
        boolean positive = Samples.allPositive(xs) && Samples.allPositive(rs);
        if (rs.length > 0) {
            double mx = Samples.median(xs);
            double mr = Samples.median(rs);
            delta = Improvement.pct(better, mr, mx);
            MannWhitney.Result mw = MannWhitney.test(xs, rs, config.exactMaxN());
            u = mw.u();
            p = mw.pValue();
            method = mw.method();
            if (positive) {
                ratio = mx / mr;
                speedup = better == Better.LOWER ? mr / mx : mx / mr;
                double[] ci = Bootstrap.speedupCi(medians.asArm(x), medians.asReference(reference), better,
                        config.confidence());
                ciLow = ci[0];
                ciHigh = ci[1];
            }
        }
        Judged speed = speedVerdict(x, reference, rs.length, positive, delta, ciLow, ciHigh, threshold, config);
        Verdict verdict = speed.verdict();
        String reason = speed.reason();
        if (x.failsCorrectness()) {
            reason = armLabel + " failed the correctness gate (speed alone: " + verdict.label() + "; " + reason + ")";
            verdict = Verdict.INCORRECT;
        }
        return new Comparison(armLabel, refLabel, better, xs.length, rs.length, ratio, speedup, delta, ciLow, ciHigh,
                u, p, method, threshold, verdict, reason, config);
    }

    private static Judged speedVerdict(ArmSamples x, ArmSamples reference, int nRef, boolean positive, Double delta,
                                         Double ciLow, Double ciHigh, double threshold, StatsConfig config) {
        if (nRef == 0) {
            return v(Verdict.INCONCLUSIVE, reference.arm().label() + " (reference) has no valid runs");
        }
        for (ArmSamples a : new ArmSamples[] {x, reference}) {
            if (a.n() < config.minValidRounds()) {
                return v(Verdict.INCONCLUSIVE, String.format(Locale.ROOT, "%s has %d valid rounds (< %d)",
                        a.arm().label(), a.n(), config.minValidRounds()));
            }
        }
        for (ArmSamples a : new ArmSamples[] {x, reference}) {
            ArmSummary s = ArmSummary.of(a.values());
            if (s.cv() == null) {
                return v(Verdict.INCONCLUSIVE, a.arm().label() + " CV undefined (mean 0)");
            }
            if (s.cvPct() > config.cvGatePct()) {
                return v(Verdict.INCONCLUSIVE, String.format(Locale.ROOT, "%s CV %.1f%% > gate %s%%",
                        a.arm().label(), s.cvPct(), num(config.cvGatePct())));
            }
        }
        if (!positive || delta == null || ciLow == null) {
            return v(Verdict.INCONCLUSIVE, "speedup undefined (a sample is <= 0)");
        }
        String ci = String.format(Locale.ROOT, "speedup CI [%.4f, %.4f]", ciLow, ciHigh);
        String d = String.format(Locale.ROOT, "delta %+.2f%%", delta);
        String t = String.format(Locale.ROOT, "threshold %.2f%%", threshold);
        boolean excludes = ciLow > 1.0 || ciHigh < 1.0;
        if (!excludes) {
            return v(Verdict.TIE, ci + " includes 1");
        }
        if (ciLow > 1.0 && delta > threshold) {
            return v(Verdict.BETTER, ci + " excludes 1 and " + d + " > " + t);
        }
        if (ciHigh < 1.0 && delta < -threshold) {
            return v(Verdict.WORSE, ci + " excludes 1 and " + d + " < -" + t);
        }
        return v(Verdict.TIE, ci + " excludes 1 but |" + d + "| <= " + t);
    }

    private record Judged(Verdict verdict, String reason) {
    }

    private static Judged v(Verdict verdict, String reason) {
        return new Judged(verdict, reason);
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
