package io.isobench.analysis;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statistical method (docs/statistics.md). Every analysis result carries the config that produced it, so a
 * number never travels without its method: {@link #describe()} for receipts, {@link #toMap()} for JSON.
 *
 * @param confidence         two-sided confidence of a comparison's interval (0.95); the equivalence test (TOST) uses
 *                           the 1 − 2α interval with α = 1 − confidence (90 %)
 * @param minPairedRounds    a comparison with fewer valid paired rounds is {@code inconclusive: too few rounds}
 * @param cvGatePct          an undecided comparison whose paired rounds scatter more than this (per-run CV in
 *                           percent, round drift removed) is {@code inconclusive: noisy} rather than {@code wide CI}
 * @param minEffectPct       the smallest change worth a verdict: the margin of better / worse and of equivalent, on
 *                           the speedup ratio, symmetric in log space
 * @param exactMaxN          Mann-Whitney U (reported, not gating) is exact when both samples have n ≤ this and no ties
 * @param aggregate          the settings of verdicts over tasks: opt_human's fraction, the leaderboards'
 *                           bootstrap
 */
public record StatsConfig(
        double confidence,
        int minPairedRounds,
        double cvGatePct,
        double minEffectPct,
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
    public static final String NOISE_BAND_METHOD = "aa_arm_paired_check";
    public static final String VARIANCE = "own_pairs";
    public static final String REFERENCE = "baseline_run_aa_stands_in_where_missing";
    public static final String RNG = "splitmix64";

    private static final StatsConfig DEFAULTS = new StatsConfig(0.95, 3, 10.0, 2.0, 8,
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
        if (exactMaxN < 0 || exactMaxN > 30) {
            // the exact null distribution is counted in longs: C(60, 30) still fits, much more would not
            throw new IllegalArgumentException("exactMaxN (" + exactMaxN + ") must be in 0..30");
        }
        Objects.requireNonNull(aggregate, "aggregate");
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

    /** The defaults: 95 %, 3 paired rounds, CV label 10 %, minimum effect 2 %, exact MWU n ≤ 8. */
    public static StatsConfig defaults() {
        return DEFAULTS;
    }

    public StatsConfig withBootstrap(int resamples, long seed) {
        return new StatsConfig(confidence, minPairedRounds, cvGatePct, minEffectPct, exactMaxN,
                new Aggregate(optHumanFraction(), resamples, seed));
    }

    public StatsConfig withGates(int minPairedRounds, double cvGatePct, double minEffectPct) {
        return new StatsConfig(confidence, minPairedRounds, cvGatePct, minEffectPct, exactMaxN, aggregate);
    }

    /** α of the equivalence test: 1 − confidence (its interval is the 1 − 2α one). */
    public double equivalenceAlpha() {
        return 1.0 - confidence;
    }

    /** The margin in log space: ln(1 + minimum effect). The A/A arm is a check, it never widens the margin. */
    public double marginLog() {
        return Math.log1p(minEffectPct / 100.0);
    }

    /** One line, for table footers and log lines. */
    public String shortText() {
        return String.format(Locale.ROOT,
                "paired rounds: mean log ratio vs the same round's baseline run (the A/A run stands in only where it "
                        + "is missing), t interval from the arm's own pairs (%s%% with fixed rounds, repeated CIs with "
                        + "adaptive rounds); better/worse: CI excludes 1 and estimate beyond ±%s%%; equivalent: TOST "
                        + "interval inside ±%s%%; A/A better/worse makes the task inconclusive (A/A unstable); "
                        + "inconclusive below %d paired rounds; Mann-Whitney U reported, not gating",
                fmt(confidence * 100), fmt(minEffectPct), fmt(minEffectPct), minPairedRounds);
    }

    /** One paragraph, for report receipts and dataset cards. */
    public String describe() {
        return String.format(Locale.ROOT,
                "Every round runs every arm of a task in a seeded random order. Per round, each arm is compared with "
                        + "the baseline's run of the same round (the A/A run stands in only in a round where the "
                        + "baseline's is missing) as a log ratio; the estimate is the mean log ratio (speedup = its "
                        + "exponential, > 1 is better) with a Student t interval whose variance comes from the arm's "
                        + "own paired rounds alone: %s%% with a fixed number of rounds, a repeated confidence interval "
                        + "at the look's nominal level with adaptive rounds. Better/worse: the interval excludes 1 and "
                        + "the estimate lies beyond ±%s%%; equivalent: the equivalence interval (TOST: 90%% with fixed "
                        + "rounds) lies inside ±%s%%, symmetric in log space. The A/A arm (the baseline started again) "
                        + "is a check: when it is itself better or worse, every comparison of the task is inconclusive "
                        + "(A/A unstable). Inconclusive (with the reason) otherwise, or with fewer than %d valid "
                        + "paired rounds (noisy when the paired per-run CV exceeds %s%%). A round counts only when its "
                        + "run did the baseline's work (same workload fingerprint, no failed request) on the same "
                        + "hardware. Mann-Whitney U two-sided (exact when both n <= %d and no ties) is reported, not "
                        + "gating. Replay valid when human vs baseline is better; opt_human: agent better than "
                        + "baseline and speedup >= %s x the human's.",
                fmt(confidence * 100), fmt(minEffectPct), fmt(minEffectPct), minPairedRounds, fmt(cvGatePct),
                exactMaxN, fmt(optHumanFraction()));
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
        m.put("variance", VARIANCE);
        m.put("reference", REFERENCE);
        m.put("test_method", TEST_METHOD);
        m.put("test_exact_max_n", exactMaxN);
        m.put("test_gating", false);
        m.put("opt_human_fraction", optHumanFraction());
        m.put("aggregate_ci", "percentile_bootstrap_median");
        m.put("bootstrap_resamples", bootstrapResamples());
        m.put("bootstrap_seed", bootstrapSeed());
        m.put("bootstrap_rng", RNG);
        return Collections.unmodifiableMap(m);
    }

    /** A setting for text: 0.05, 90, 2.5 (ten significant digits, no trailing zeros). */
    static String fmt(double v) {
        if (FMT.size() > 4096) {
            return format(v);
        }
        return FMT.computeIfAbsent(v, StatsConfig::format);
    }

    /** Formatted settings (a calibration formats the same few levels millions of times). */
    private static final ConcurrentHashMap<Double, String> FMT =
            new ConcurrentHashMap<>();

    private static String format(double v) {
        return new BigDecimal(v).round(new MathContext(10)).stripTrailingZeros().toPlainString();
    }
}
