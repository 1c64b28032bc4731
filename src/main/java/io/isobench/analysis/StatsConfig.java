package io.isobench.analysis;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The statistical method (DESIGN §6, a contract). Every analysis result carries the config that produced it,
 * so a number never travels without its method: {@link #describe()} for receipts, {@link #toMap()} for JSON.
 *
 * @param bootstrapResamples resamples of the percentile bootstrap of the ratio of medians
 * @param bootstrapSeed      seed of the bootstrap generator (SplitMix64); every comparison restarts from it
 * @param confidence         two-sided confidence of the bootstrap interval, e.g. 0.95
 * @param exactMaxN          Mann-Whitney U is exact when both samples have n ≤ this and there are no ties
 * @param minValidRounds     an arm with fewer valid rounds makes a comparison {@code inconclusive}
 * @param cvGatePct          an arm whose CV (sample sd / mean) exceeds this many percent makes it {@code inconclusive}
 * @param minEffectPct       |Δ %| must exceed max(noise floor, this) for {@code better}/{@code worse}
 * @param optHumanFraction   {@code opt_human} needs agent speedup ≥ this × human speedup
 */
public record StatsConfig(
        int bootstrapResamples,
        long bootstrapSeed,
        double confidence,
        int exactMaxN,
        int minValidRounds,
        double cvGatePct,
        double minEffectPct,
        double optHumanFraction) {

    public static final String CI_METHOD = "percentile_bootstrap_ratio_of_medians";
    public static final String TEST_METHOD = "mann_whitney_u_two_sided";
    public static final String NOISE_FLOOR_METHOD = "aa_two_baselines_else_odd_even_rounds";
    public static final String RNG = "splitmix64";

    private static final StatsConfig DEFAULTS = new StatsConfig(10_000, 42L, 0.95, 8, 3, 10.0, 2.0, 0.95);

    public StatsConfig {
        if (bootstrapResamples < 100) {
            throw new IllegalArgumentException("bootstrapResamples (" + bootstrapResamples + ") must be >= 100");
        }
        if (!(confidence > 0.5 && confidence < 1.0)) {
            throw new IllegalArgumentException("confidence (" + confidence + ") must be in (0.5, 1)");
        }
        if (exactMaxN < 0) {
            throw new IllegalArgumentException("exactMaxN (" + exactMaxN + ") must be >= 0");
        }
        if (exactMaxN > 30) {
            // the exact null distribution is counted in longs: C(60, 30) still fits, much more would not
            throw new IllegalArgumentException("exactMaxN (" + exactMaxN + ") must be <= 30");
        }
        if (minValidRounds < 1) {
            throw new IllegalArgumentException("minValidRounds (" + minValidRounds + ") must be >= 1");
        }
        if (!(cvGatePct > 0) || Double.isInfinite(cvGatePct)) {
            throw new IllegalArgumentException("cvGatePct (" + cvGatePct + ") must be a positive number");
        }
        if (!(minEffectPct >= 0) || Double.isInfinite(minEffectPct)) {
            throw new IllegalArgumentException("minEffectPct (" + minEffectPct + ") must be >= 0");
        }
        if (!(optHumanFraction > 0) || Double.isInfinite(optHumanFraction)) {
            throw new IllegalArgumentException("optHumanFraction (" + optHumanFraction + ") must be a positive number");
        }
    }

    /** The DESIGN §6 defaults: 10,000 resamples, seed 42, 95 %, exact MWU up to n = 8, 3 rounds, CV 10 %, 2 %, 0.95. */
    public static StatsConfig defaults() {
        return DEFAULTS;
    }

    public StatsConfig withBootstrap(int resamples, long seed) {
        return new StatsConfig(resamples, seed, confidence, exactMaxN, minValidRounds, cvGatePct, minEffectPct,
                optHumanFraction);
    }

    public StatsConfig withGates(int minValidRounds, double cvGatePct, double minEffectPct) {
        return new StatsConfig(bootstrapResamples, bootstrapSeed, confidence, exactMaxN, minValidRounds, cvGatePct,
                minEffectPct, optHumanFraction);
    }

    /** One line, for table footers and log lines. */
    public String shortText() {
        return String.format(Locale.ROOT,
                "median ratio, %s%% percentile bootstrap CI (%d resamples, seed %d); Mann-Whitney U two-sided "
                        + "(exact n<=%d, no ties); inconclusive n<%d or CV>%s%%; better/worse: CI excludes 1 and "
                        + "|delta|>max(noise floor, %s%%)",
                fmt(confidence * 100), bootstrapResamples, bootstrapSeed, exactMaxN, minValidRounds, fmt(cvGatePct),
                fmt(minEffectPct));
    }

    /** One paragraph, for report receipts and dataset cards. */
    public String describe() {
        return String.format(Locale.ROOT,
                "Per arm: median of the valid rounds. Speedup = ratio of medians oriented so that > 1 is better, "
                        + "with a %s%% percentile bootstrap CI (%d resamples, each arm resampled independently, "
                        + "SplitMix64 seed %d). Mann-Whitney U two-sided p-value (exact when both n <= %d and no ties, "
                        + "else normal approximation with tie and continuity corrections), reported, not gating. "
                        + "Inconclusive when an arm has < %d valid rounds or CV > %s%%. Better/worse only when the CI "
                        + "excludes 1 and |delta| > max(noise floor, %s%%); noise floor = |delta %%| between two "
                        + "baseline arms of the session, else between the baseline's odd and even rounds. "
                        + "opt_human: opt_base and agent speedup >= %s x human speedup.",
                fmt(confidence * 100), bootstrapResamples, bootstrapSeed, exactMaxN, minValidRounds, fmt(cvGatePct),
                fmt(minEffectPct), fmt(optHumanFraction));
    }

    /** Machine form (snake_case keys, insertion-ordered, unmodifiable) for JSON, stored beside every result. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ci_method", CI_METHOD);
        m.put("bootstrap_resamples", bootstrapResamples);
        m.put("bootstrap_seed", bootstrapSeed);
        m.put("bootstrap_rng", RNG);
        m.put("confidence", confidence);
        m.put("test_method", TEST_METHOD);
        m.put("test_exact_max_n", exactMaxN);
        m.put("test_gating", false);
        m.put("min_valid_rounds", minValidRounds);
        m.put("cv_gate_pct", cvGatePct);
        m.put("min_effect_pct", minEffectPct);
        m.put("noise_floor_method", NOISE_FLOOR_METHOD);
        m.put("opt_human_fraction", optHumanFraction);
        return java.util.Collections.unmodifiableMap(m);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
