package io.isobench.analysis;

import java.util.Locale;

/**
 * The task's measured A/A noise band: the paired comparison of the A/A arm ({@code baseline-aa}, the baseline's code
 * started and measured as an arm of its own in every round) with the baseline. Its estimate sets the margin of every
 * other comparison of the task (margin = max(minimum effect, |A/A estimate|)), and its pairs give a per-run variance
 * that comparisons pool with their own (docs/statistics.md, "Noise band").
 *
 * @param source      where it came from
 * @param aa          the A/A comparison (baseline-aa vs baseline); null when there was no A/A arm
 * @param logEstimate ln of the A/A speedup; NaN when not measured
 * @param variance    σ² per run from the A/A pairs; NaN when fewer than two pairs
 * @param df          degrees of freedom of {@code variance} (pairs − 1); 0 when none
 */
public record NoiseBand(Source source, Comparison aa, double logEstimate, double variance, int df) {

    /** Where the band came from. */
    public enum Source {
        /** An A/A arm ran in the session's rounds. */
        AA_ARM,
        /** No A/A arm (or none of its rounds paired with the baseline): only the minimum effect applies. */
        NONE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public NoiseBand {
        if (source == null) {
            throw new IllegalArgumentException("noise band source must not be null");
        }
    }

    public static NoiseBand none() {
        return new NoiseBand(Source.NONE, null, Double.NaN, Double.NaN, 0);
    }

    static NoiseBand of(Comparison aa, Pairs pairs) {
        if (aa == null || pairs.n() == 0 || pairs.undefined()) {
            return new NoiseBand(aa == null ? Source.NONE : Source.AA_ARM, aa, Double.NaN, Double.NaN, 0);
        }
        return new NoiseBand(Source.AA_ARM, aa, pairs.estimate(), pairs.n() < 2 ? Double.NaN : pairs.ownVariance(),
                Math.max(0, pairs.n() - 1));
    }

    /** |A/A speedup − 1| in percent: the band; {@code null} when not measured. */
    public Double bandPct() {
        return Double.isNaN(logEstimate) ? null : Math.expm1(Math.abs(logEstimate)) * 100.0;
    }

    /** The A/A pairs' variance can be pooled: measured from at least two pairs. */
    boolean poolable() {
        return df >= 1 && variance >= 0 && !Double.isNaN(variance);
    }
}
