package io.isobench.analysis;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The statistical method (docs/statistics.md). Every analysis result carries the config that produced it, so a
 * number never travels without its method: {@link #describe()} for receipts, {@link #toMap()} for JSON.
 *
 * @param confidence         two-sided confidence of a comparison's interval (0.95); the equivalence test (TOST) uses
 *                           the 1 − 2α interval with α = 1 − confidence (90 %)
 * @param minPairedRounds    a comparison with fewer valid paired rounds is {@code inconclusive: too few rounds}
 * @param cvGatePct          a comparison whose paired rounds scatter more than this (per-run CV in percent, round
 *                           drift removed) is {@code inconclusive: noisy}
 * @param minEffectPct       the smallest change worth a verdict: margin = max(this, the A/A band), on the speedup
 *                           ratio, symmetric in log space
 * @param varianceGateAlpha  the one-sided level of the F test that keeps an arm noisier than the A/A pairs from
 *                           borrowing their variance (then its own pairs alone give the interval)
 * @param exactMaxN          Mann-Whitney U (reported, not gating) is exact when both samples have n ≤ this and no ties
 * @param aggregate          the settings of verdicts over tasks: opt_human's fraction, the leaderboards'
 *                           bootstrap
 */
public record StatsConfig(
        double confidence,
        int minPairedRounds,
        double cvGatePct,
        double minEffectPct,
        double varianceGateAlpha,
        int exactMaxN,
        Aggregate aggregate) {

    /**
     * Settings of the verdicts over tasks.
     *
     * @param optHumanFraction   {@code opt_human} needs agent speedup ≥ this × human speedup
     * @param bootstrapResamples resamples of the percentile bootstrap used for medians over tasks (leaderboards)
     * @param bootstrapSeed      seed of that bootstrap (SplitMix64)
     */
    public record Aggregate(double optHumanFraction, int bootstrapResamples, long bootstrapSeed) {
        public Aggregate {
            if (!(optHumanFraction > 0) || Double.isInfinite(optHumanFraction)) {
                throw new IllegalArgumentException("optHumanFraction (" + optHumanFraction
                        + ") must be a positive number");
            }
            if (bootstrapResamples < 100) {
                throw new IllegalArgumentException("bootstrapResamples (" + bootstrapResamples + ") must be >= 100");
            }
        }
    }

    public static final String CI_METHOD = "paired_rounds_log_ratio_t";
    public static final String TEST_METHOD = "mann_whitney_u_two_sided";
    public static final String EQUIVALENCE_METHOD = "tost";
    public static final String NOISE_BAND_METHOD = "aa_arm_paired";
    public static final String RNG = "splitmix64";

    private static final StatsConfig DEFAULTS = new StatsConfig(0.95, 5, 10.0, 2.0, 0.2, 8,
            new Aggregate(0.95, 10_000, 42L));

    public StatsConfig {
        if (!(confidence > 0.5 && confidence < 1.0)) {
            throw new IllegalArgumentException("confidence (" + confidence + ") must be in (0.5, 1)");
        }
        if (minPairedRounds < 2) {
            throw new IllegalArgumentException("minPairedRounds (" + minPairedRounds + ") must be >= 2");
        }
        if (!(cvGatePct > 0) || Double.isInfinite(cvGatePct)) {
            throw new IllegalArgumentException("cvGatePct (" + cvGatePct + ") must be a positive number");
        }
        if (!(minEffectPct >= 0) || Double.isInfinite(minEffectPct)) {
            throw new IllegalArgumentException("minEffectPct (" + minEffectPct + ") must be >= 0");
        }
        if (!(varianceGateAlpha > 0 && varianceGateAlpha < 1)) {
            throw new IllegalArgumentException("varianceGateAlpha (" + varianceGateAlpha + ") must be in (0, 1)");
        }
        if (exactMaxN < 0 || exactMaxN > 30) {
            // the exact null distribution is counted in longs: C(60, 30) still fits, much more would not
            throw new IllegalArgumentException("exactMaxN (" + exactMaxN + ") must be in 0..30");
        }
        java.util.Objects.requireNonNull(aggregate, "aggregate");
    }

    /** {@code opt_human} needs agent speedup ≥ this × human speedup. */
    public double optHumanFraction() {
        return aggregate.optHumanFraction();
    }

    /** Resamples of the percentile bootstrap used for medians over tasks (leaderboards). */
    public int bootstrapResamples() {
        return aggregate.bootstrapResamples();
    }

    /** Seed of that bootstrap (SplitMix64). */
    public long bootstrapSeed() {
        return aggregate.bootstrapSeed();
    }

    /** The defaults: 95 %, 5 paired rounds, CV gate 10 %, minimum effect 2 %, variance gate 0.2, exact MWU n ≤ 8. */
    public static StatsConfig defaults() {
        return DEFAULTS;
    }

    public StatsConfig withBootstrap(int resamples, long seed) {
        return new StatsConfig(confidence, minPairedRounds, cvGatePct, minEffectPct, varianceGateAlpha, exactMaxN,
                new Aggregate(optHumanFraction(), resamples, seed));
    }

    public StatsConfig withGates(int minPairedRounds, double cvGatePct, double minEffectPct) {
        return new StatsConfig(confidence, minPairedRounds, cvGatePct, minEffectPct, varianceGateAlpha, exactMaxN,
                aggregate);
    }

    /** α of the equivalence test: 1 − confidence (its interval is the 1 − 2α one). */
    public double equivalenceAlpha() {
        return 1.0 - confidence;
    }

    /** The margin in log space for a measured A/A band (log of the A/A speedup, any sign; NaN when none). */
    public double marginLog(double aaLogEstimate) {
        double min = Math.log1p(minEffectPct / 100.0);
        return Double.isNaN(aaLogEstimate) ? min : Math.max(min, Math.abs(aaLogEstimate));
    }

    /** One line, for table footers and log lines. */
    public String shortText() {
        return String.format(Locale.ROOT,
                "paired rounds: geometric mean of per-round ratios vs the same round's baseline(s), %s%% t interval; "
                        + "better/worse: CI excludes 1 and estimate beyond the margin; equivalent: %s%% TOST interval "
                        + "inside ±margin; margin = max(A/A band, %s%%); inconclusive below %d paired rounds or paired "
                        + "CV > %s%%; Mann-Whitney U reported, not gating",
                fmt(confidence * 100), fmt((1 - 2 * equivalenceAlpha()) * 100), fmt(minEffectPct), minPairedRounds,
                fmt(cvGatePct));
    }

    /** One paragraph, for report receipts and dataset cards. */
    public String describe() {
        return String.format(Locale.ROOT,
                "Every round runs every arm of a task in a seeded random order. Per round, each arm is compared with "
                        + "the baseline of the same round (with an A/A arm: the geometric mean of the two baseline "
                        + "runs) as a log ratio; the estimate is the mean log ratio (speedup = its exponential, "
                        + "> 1 is better) with a %s%% Student t interval. The per-run variance pools the arm's own "
                        + "paired rounds with the A/A pairs unless an F test (one-sided, alpha %s) says the arm is "
                        + "noisier. Better/worse: the interval excludes 1 and the estimate lies beyond the margin; "
                        + "equivalent: the %s%% interval (TOST, alpha %s) lies inside ±margin; margin = max(|A/A "
                        + "estimate|, %s%%), symmetric in log space. Inconclusive (with the reason) otherwise, with "
                        + "fewer than %d valid paired rounds, or a paired per-run CV above %s%%. A round counts only "
                        + "when its run did the baseline's work (same workload fingerprint, no failed request) on "
                        + "the same hardware. Mann-Whitney U two-sided (exact when both n <= %d and no ties) is "
                        + "reported, not gating. Replay valid when human vs baseline is better; opt_human: agent "
                        + "better than baseline and speedup >= %s x the human's.",
                fmt(confidence * 100), fmt(varianceGateAlpha), fmt((1 - 2 * equivalenceAlpha()) * 100),
                fmt(equivalenceAlpha()), fmt(minEffectPct), minPairedRounds, fmt(cvGatePct), exactMaxN,
                fmt(optHumanFraction()));
    }

    /** Machine form (snake_case keys, insertion-ordered, unmodifiable) for JSON, stored beside every result. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ci_method", CI_METHOD);
        m.put("confidence", confidence);
        m.put("equivalence_method", EQUIVALENCE_METHOD);
        m.put("equivalence_alpha", equivalenceAlpha());
        m.put("min_paired_rounds", minPairedRounds);
        m.put("cv_gate_pct", cvGatePct);
        m.put("min_effect_pct", minEffectPct);
        m.put("noise_band_method", NOISE_BAND_METHOD);
        m.put("variance_gate_alpha", varianceGateAlpha);
        m.put("test_method", TEST_METHOD);
        m.put("test_exact_max_n", exactMaxN);
        m.put("test_gating", false);
        m.put("opt_human_fraction", optHumanFraction());
        m.put("aggregate_ci", "percentile_bootstrap_median");
        m.put("bootstrap_resamples", bootstrapResamples());
        m.put("bootstrap_seed", bootstrapSeed());
        m.put("bootstrap_rng", RNG);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** A setting for text: 0.05, 90, 2.5 (ten significant digits, no trailing zeros). */
    static String fmt(double v) {
        return new java.math.BigDecimal(v).round(new java.math.MathContext(10)).stripTrailingZeros().toPlainString();
    }
}
