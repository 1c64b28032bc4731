package io.isobench.analysis;

import java.util.Locale;

/**
 * The task's measured A/A noise band: the paired comparison of the A/A arm ({@code baseline-aa}, the baseline's code
 * started and measured as an arm of its own in every round) with the baseline. It is a <b>check</b>, not part of any
 * reference or margin (docs/statistics.md §6): its band |A/A speedup − 1| is shown beside every verdict, and when the
 * A/A comparison is itself {@code better} or {@code worse} the task's verdicts are {@code inconclusive: A/A unstable}.
 *
 * @param source      where it came from
 * @param aa          the A/A comparison (baseline-aa vs baseline); null when there was no A/A arm
 * @param logEstimate ln of the A/A speedup; NaN when not measured
 */
public record NoiseBand(Source source, Comparison aa, double logEstimate) {

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
        return new NoiseBand(Source.NONE, null, Double.NaN);
    }

    static NoiseBand of(Comparison aa) {
        if (aa == null) {
            return none();
        }
        return new NoiseBand(Source.AA_ARM, aa, aa.speedup() == null ? Double.NaN : Math.log(aa.speedup()));
    }

    /** |A/A speedup − 1| in percent: the band; {@code null} when not measured. */
    public Double bandPct() {
        return Double.isNaN(logEstimate) ? null : Math.expm1(Math.abs(logEstimate)) * 100.0;
    }

    /** The A/A comparison says the baseline's two environments differ: {@code better} or {@code worse}. */
    public boolean unstable() {
        return aa != null && aa.verdict().significant();
    }
}
