package io.isobench.analysis;

import java.util.Locale;

/**
 * Legacy rule for single-run rows (imported ISO-Bench data, DESIGN §12): a stated ±band on one Δ %. Rows with
 * rounds use {@link Verdict} instead.
 */
public final class SingleRunRule {

    /** The band the final ISO-Bench analysis used. */
    public static final double DEFAULT_BAND_PCT = 5.0;

    public enum Outcome {
        WIN, TIE, LOSS, UNDEFINED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private SingleRunRule() {
    }

    public static Outcome classify(Double deltaPct) {
        return classify(deltaPct, DEFAULT_BAND_PCT);
    }

    /** Δ > band → win, Δ < −band → loss, |Δ| ≤ band → tie; {@code null}/non-finite Δ → undefined. */
    public static Outcome classify(Double deltaPct, double bandPct) {
        if (!(bandPct >= 0) || Double.isInfinite(bandPct)) {
            throw new IllegalArgumentException("bandPct (" + bandPct + ") must be >= 0");
        }
        if (deltaPct == null || !Double.isFinite(deltaPct)) {
            return Outcome.UNDEFINED;
        }
        if (deltaPct > bandPct) {
            return Outcome.WIN;
        }
        if (deltaPct < -bandPct) {
            return Outcome.LOSS;
        }
        return Outcome.TIE;
    }
}
