package io.isobench.analysis;

import io.isobench.parse.Better;

import java.util.Locale;

/**
 * One comparison "arm vs reference" (human vs baseline, agent vs baseline, agent vs human, and the A/A arm vs
 * baseline) for one metric, over paired rounds (docs/statistics.md). Numbers are {@code null} when undefined.
 *
 * @param arm                label of the arm X (e.g. {@code human}, {@code agent:claude_code})
 * @param reference          label of the reference (with the A/A arm: {@code baseline} stands for both baselines)
 * @param n                  valid rounds of X
 * @param nReference         valid rounds of the reference
 * @param pairs              valid paired rounds the estimate uses
 * @param pairsDropped       rounds where X had a valid value but the reference had none (dropped from this pair)
 * @param roundsExcluded     rounds of X or of the reference kept out because the work or hardware differed, or
 *                           requests failed ({@link RoundExclusion})
 * @param medianRatio        median(X) / median(reference) over their valid rounds, not oriented (descriptive)
 * @param speedup            the estimate: exp(mean paired log ratio), oriented so > 1 is better
 * @param deltaPct           the estimate as an improvement in percent (DESIGN §5 formula, positive = better)
 * @param ciLowSpeedup       lower bound of the {@code confidence} interval of the speedup
 * @param ciHighSpeedup      upper bound
 * @param equivLowSpeedup    lower bound of the equivalence (TOST, 1 − 2α) interval
 * @param equivHighSpeedup   upper bound
 * @param df                 degrees of freedom of the t interval
 * @param variance           where the per-run variance came from
 * @param pairedCvPct        per-run CV (percent) of X's paired rounds, round drift removed: what the CV gate reads
 * @param marginPct          the margin: better needs speedup > 1 + margin, worse speedup < 1 / (1 + margin)
 * @param mannWhitneyU       U of X against the reference (pairs X > ref plus half the ties), unpaired
 * @param pValue             two-sided Mann-Whitney p-value (reported, not gating)
 * @param pValueMethod       exact, normal or undefined
 * @param verdict            the verdict
 * @param inconclusiveReason why it is inconclusive; null for every other verdict
 * @param reason             one line that explains the verdict
 * @param config             the method that produced these numbers
 */
public record Comparison(
        String arm,
        String reference,
        Better better,
        int n,
        int nReference,
        int pairs,
        int pairsDropped,
        int roundsExcluded,
        Double medianRatio,
        Double speedup,
        Double deltaPct,
        Double ciLowSpeedup,
        Double ciHighSpeedup,
        Double equivLowSpeedup,
        Double equivHighSpeedup,
        Integer df,
        Variance variance,
        Double pairedCvPct,
        double marginPct,
        Double mannWhitneyU,
        Double pValue,
        MannWhitney.Method pValueMethod,
        Verdict verdict,
        InconclusiveReason inconclusiveReason,
        String reason,
        StatsConfig config) {

    /** Where a comparison's per-run variance came from. */
    public enum Variance {
        /** X's own pairs pooled with the A/A pairs (the F test found X no noisier). */
        POOLED_WITH_AA,
        /** X's own pairs alone: no A/A pairs, or X is noisier than them. */
        OWN_PAIRS,
        /** Not estimated (fewer than two pairs, or nothing to compare). */
        NONE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Comparison {
        if (verdict == null || config == null || better == null || variance == null || pValueMethod == null) {
            throw new IllegalArgumentException("verdict, config, better, variance and pValueMethod must not be null");
        }
        if ((verdict == Verdict.INCONCLUSIVE) != (inconclusiveReason != null)) {
            throw new IllegalArgumentException("an inconclusive verdict, and only that, carries a reason: " + verdict
                    + ", " + inconclusiveReason);
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
        m.put("pairs", pairs);
        m.put("pairs_dropped", pairsDropped);
        m.put("rounds_excluded", roundsExcluded);
        m.put("median_ratio", medianRatio);
        m.put("speedup", speedup);
        m.put("delta_pct", deltaPct);
        m.put("ci_low_speedup", ciLowSpeedup);
        m.put("ci_high_speedup", ciHighSpeedup);
        m.put("equivalence_low_speedup", equivLowSpeedup);
        m.put("equivalence_high_speedup", equivHighSpeedup);
        m.put("df", df);
        m.put("variance", variance.label());
        m.put("paired_cv_pct", pairedCvPct);
        m.put("margin_pct", marginPct);
        m.put("ci_clears_margin", ciClearsMargin());
        m.put("mann_whitney_u", mannWhitneyU);
        m.put("p_value", pValue);
        m.put("p_value_method", pValueMethod.label());
        m.put("verdict", verdict.label());
        m.put("inconclusive_reason", inconclusiveReason == null ? null : inconclusiveReason.label());
        m.put("reason", reason);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The verdict with its inconclusive reason: {@code better}, {@code inconclusive: wide CI}. */
    public String verdictText() {
        return inconclusiveReason == null ? verdict.label() : verdict.label() + ": " + inconclusiveReason.label();
    }

    /** True when the CI lies wholly above or wholly below 1. */
    public boolean ciExcludesOne() {
        return ciLowSpeedup != null && ciHighSpeedup != null && (ciLowSpeedup > 1.0 || ciHighSpeedup < 1.0);
    }

    /** True when the whole CI lies beyond the margin (a stronger statement than better/worse alone). */
    public boolean ciClearsMargin() {
        if (ciLowSpeedup == null || ciHighSpeedup == null) {
            return false;
        }
        double m = 1 + marginPct / 100.0;
        return ciLowSpeedup > m || ciHighSpeedup < 1 / m;
    }

    /**
     * Compares {@code x} with {@code reference} over their paired rounds.
     *
     * @param secondReference the A/A arm when the reference is the baseline (its value joins the baseline's in
     *                        every round where it is valid), else null
     * @param band            the task's noise band ({@link NoiseBand#none()} for the A/A comparison itself)
     * @param roundsExcluded  rounds of X or the reference excluded for workload, failed requests, hardware or clocks
     * @throws IllegalArgumentException for a metric without direction ({@link Better#NONE})
     */
    public static Comparison compute(ArmSamples x, ArmSamples reference, ArmSamples secondReference, Better better,
                                     NoiseBand band, int roundsExcluded, StatsConfig config) {
        return compute(x, reference, better, band, roundsExcluded, config,
                Pairs.of(requireArm(x), requireArm(reference), secondReference, requireDirection(better)));
    }

    /** As the public {@code compute}, with the pairs already formed ({@code p} holds the second reference). */
    static Comparison compute(ArmSamples x, ArmSamples reference, Better better, NoiseBand band, int roundsExcluded,
                              StatsConfig config, Pairs p) {
        if (band == null || config == null) {
            throw new IllegalArgumentException("noise band and config must not be null (use NoiseBand.none())");
        }
        Builder b = new Builder(x, reference, better, band, roundsExcluded, config, p);
        double[] xs = x.values();
        double[] rs = reference.values();
        if (xs.length == 0) {
            return b.done(Verdict.FAILED, null, b.armLabel + " has no valid runs");
        }
        if (rs.length > 0) {
            double mx = Samples.median(xs);
            double mr = Samples.median(rs);
            b.medianRatio = mr == 0 ? null : mx / mr;
            MannWhitney.Result mw = MannWhitney.test(xs, rs, config.exactMaxN());
            b.u = mw.u();
            b.pValue = mw.pValue();
            b.method = mw.method();
        }
        Comparison speed = b.speedVerdict();
        if (!x.failsCorrectness()) {
            return speed;
        }
        return b.done(Verdict.INCORRECT, null, b.armLabel + " failed the correctness gate (speed alone: "
                + speed.verdictText() + "; " + speed.reason() + ")");
    }

    private static ArmSamples requireArm(ArmSamples a) {
        if (a == null) {
            throw new IllegalArgumentException("arm and reference samples must not be null");
        }
        return a;
    }

    private static Better requireDirection(Better better) {
        if (better == null || better == Better.NONE) {
            throw new IllegalArgumentException("metric direction (" + better
                    + ") must be lower or higher: a metric without direction has no better/worse");
        }
        return better;
    }

    /** The computation of one comparison, step by step. */
    private static final class Builder {
        final ArmSamples x;
        final ArmSamples reference;
        final Better better;
        final NoiseBand band;
        final int excluded;
        final StatsConfig config;
        final Pairs p;
        final String armLabel;
        final double marginLog;
        Double medianRatio;
        Double u;
        Double pValue;
        MannWhitney.Method method = MannWhitney.Method.UNDEFINED;
        Double speedup;
        Double delta;
        Double lo;
        Double hi;
        Double eqLo;
        Double eqHi;
        Integer df;
        Variance variance = Variance.NONE;
        Double cv;
        boolean zeroSpread;

        Builder(ArmSamples x, ArmSamples reference, Better better, NoiseBand band, int excluded, StatsConfig config,
                Pairs pairs) {
            this.x = x;
            this.reference = reference;
            this.better = better;
            this.band = band;
            this.excluded = excluded;
            this.config = config;
            this.p = pairs;
            this.armLabel = x.arm().label();
            this.marginLog = config.marginLog(band.logEstimate());
        }

        Comparison done(Verdict v, InconclusiveReason why, String reason) {
            return new Comparison(armLabel, reference.arm().label(), better, x.n(), reference.n(), p.n(), p.dropped(),
                    excluded, medianRatio, speedup, delta, lo, hi, eqLo, eqHi, df, variance, cv,
                    Math.expm1(marginLog) * 100.0, u, pValue, method, v, why, reason, config);
        }

        Comparison speedVerdict() {
            String refLabel = reference.arm().label();
            if (reference.n() == 0) {
                return done(Verdict.INCONCLUSIVE, InconclusiveReason.NO_REFERENCE, refLabel
                        + " (reference) has no valid runs");
            }
            if (p.undefined()) {
                return done(Verdict.INCONCLUSIVE, InconclusiveReason.UNDEFINED,
                        "speedup undefined: a value is <= 0");
            }
            if (p.n() > 0) {
                estimate();
            }
            int min = config.minPairedRounds();
            if (p.n() < min) {
                String counts = String.format(Locale.ROOT, "%d valid paired round%s (< %d)", p.n(),
                        p.n() == 1 ? "" : "s", min);
                if (excluded > 0 && p.n() + excluded >= min) {
                    return done(Verdict.INCONCLUSIVE, InconclusiveReason.WORKLOAD_MISMATCH, counts + ": " + excluded
                            + " round(s) excluded because the work or hardware differed or requests failed");
                }
                return done(Verdict.INCONCLUSIVE, InconclusiveReason.TOO_FEW_ROUNDS, counts
                        + (p.dropped() > 0 ? ", " + p.dropped() + " dropped for want of a reference run" : ""));
            }
            if (cv != null && cv > config.cvGatePct()) {
                return done(Verdict.INCONCLUSIVE, InconclusiveReason.NOISY, String.format(Locale.ROOT,
                        "paired per-run CV %.1f%% > gate %s%%", cv, StatsConfig.fmt(config.cvGatePct())));
            }
            int signMin = signTestMinPairs(config.confidence());
            if (zeroSpread && p.n() < signMin) {
                // a discrete metric (a sweep's capacity) can give the same ratio in every round: its interval has no
                // width, which is no evidence of precision; with no spread to estimate, n agreeing pairs decide only
                // when the exact sign test could: 2 * 0.5^n <= 1 - confidence
                return done(Verdict.INCONCLUSIVE, InconclusiveReason.TOO_FEW_ROUNDS, String.format(Locale.ROOT,
                        "ratio %.4f in each of %d paired rounds: no spread to build an interval from; the exact sign"
                        + " test needs %d agreeing rounds for p <= %s", speedup, p.n(), signMin,
                        StatsConfig.fmt(1 - config.confidence())));
            }
            String ci = String.format(Locale.ROOT, "speedup %.4f, %s%% CI [%.4f, %.4f] (%d pairs, %s)", speedup,
                    StatsConfig.fmt(config.confidence() * 100), lo, hi, p.n(), variance.label());
            String margin = String.format(Locale.ROOT, "margin %.2f%%", Math.expm1(marginLog) * 100);
            double est = Math.log(speedup);
            if (lo > 1.0 && est > marginLog) {
                return done(Verdict.BETTER, null, ci + " lies above 1 and the estimate beyond the " + margin);
            }
            if (hi < 1.0 && est < -marginLog) {
                return done(Verdict.WORSE, null, ci + " lies below 1 and the estimate beyond the " + margin);
            }
            if (Math.log(eqLo) > -marginLog && Math.log(eqHi) < marginLog) {
                return done(Verdict.EQUIVALENT, null, String.format(Locale.ROOT,
                        "%s%% TOST interval [%.4f, %.4f] inside ±%s", StatsConfig.fmt(
                                (1 - 2 * config.equivalenceAlpha()) * 100), eqLo, eqHi, margin));
            }
            return done(Verdict.INCONCLUSIVE, InconclusiveReason.WIDE_CI, ci + " neither beyond nor inside ±"
                    + margin);
        }

        /** Point estimate, variance choice, intervals. */
        void estimate() {
            double est = p.estimate();
            speedup = Math.exp(est);
            // X / reference, not oriented, as the DESIGN §5 improvement formula wants it
            double ratio = better == Better.LOWER ? Math.exp(-est) : Math.exp(est);
            delta = Improvement.pct(better, 1.0, ratio);
            if (p.n() < 2) {
                return;
            }
            double s2 = p.ownVariance();
            int dof = p.ownDf();
            variance = Variance.OWN_PAIRS;
            cv = Math.sqrt(Math.expm1(s2)) * 100.0;
            if (band.poolable() && x.arm().kind() != io.isobench.Arm.Kind.BASELINE_AA) {
                double f = band.variance() > 0 ? s2 / band.variance() : s2 > 0 ? Double.POSITIVE_INFINITY : 0.0;
                double crit = Distributions.fQuantile(1 - config.varianceGateAlpha(), dof, band.df());
                if (f <= crit) {
                    s2 = (dof * s2 + band.df() * band.variance()) / (dof + band.df());
                    dof += band.df();
                    variance = Variance.POOLED_WITH_AA;
                }
            }
            df = dof;
            zeroSpread = s2 == 0;
            double se = Math.sqrt(s2 / p.weightSum());
            double t = Distributions.tQuantile(1 - (1 - config.confidence()) / 2, dof);
            double t2 = Distributions.tQuantile(1 - config.equivalenceAlpha(), dof);
            lo = Math.exp(est - t * se);
            hi = Math.exp(est + t * se);
            eqLo = Math.exp(est - t2 * se);
            eqHi = Math.exp(est + t2 * se);
        }
    }

    /** This comparison with another verdict and reason (a rule that decides again: {@link OrdinalVerdicts}). */
    Comparison withVerdict(Verdict v, InconclusiveReason why, String because) {
        return new Comparison(arm, reference, better, n, nReference, pairs, pairsDropped, roundsExcluded, medianRatio,
                speedup, deltaPct, ciLowSpeedup, ciHighSpeedup, equivLowSpeedup, equivHighSpeedup, df, variance,
                pairedCvPct, marginPct, mannWhitneyU, pValue, pValueMethod, v, why, because, config);
    }

    /**
     * The fewest paired rounds, all in one direction, with which the exact two-sided sign test reaches {@code 1 −
     * confidence}: the smallest n with 2 · 0.5^n ≤ 1 − confidence (6 at 95 %). A comparison whose paired ratios have no
     * spread at all decides only from that many pairs (docs/statistics.md section 7).
     */
    static int signTestMinPairs(double confidence) {
        int n = 1;
        while (2 * Math.pow(0.5, n) > 1 - confidence + 1e-12) {
            n++;
        }
        return n;
    }
}
