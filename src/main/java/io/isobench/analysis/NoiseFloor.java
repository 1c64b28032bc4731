package io.isobench.analysis;

import java.util.Locale;

/**
 * A/A noise floor of a task: |Δ %| between two measurements of the same code.
 *
 * @param noiseFloorPct |Δ %| between the medians, {@code null} when it could not be measured
 * @param source        how it was measured
 * @param nA            samples on the reference side (first baseline, or the odd rounds)
 * @param nB            samples on the other side (second baseline, or the even rounds)
 */
public record NoiseFloor(Double noiseFloorPct, Source source, int nA, int nB) {

    public enum Source {
        /** Two baseline arms in the same session. */
        TWO_BASELINES,
        /** The baseline's odd rounds (1st, 3rd, …) against its even rounds. */
        SPLIT_ROUNDS,
        /** Not enough baseline data. */
        NONE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public NoiseFloor {
        if (source == null) {
            throw new IllegalArgumentException("noise floor source must not be null");
        }
        if (noiseFloorPct != null && !(noiseFloorPct >= 0)) {
            throw new IllegalArgumentException("noiseFloorPct (" + noiseFloorPct + ") must be >= 0");
        }
    }

    public static NoiseFloor none() {
        return new NoiseFloor(null, Source.NONE, 0, 0);
    }

    /** |Δ %| between the medians of two baseline arms of one session; the first is the reference. */
    public static NoiseFloor fromTwoBaselines(double[] baseline, double[] secondBaseline) {
        Samples.requireFinite(baseline, "baseline");
        Samples.requireFinite(secondBaseline, "secondBaseline");
        if (baseline.length == 0 || secondBaseline.length == 0) {
            return new NoiseFloor(null, Source.NONE, baseline.length, secondBaseline.length);
        }
        return new NoiseFloor(absPct(Samples.median(baseline), Samples.median(secondBaseline)), Source.TWO_BASELINES,
                baseline.length, secondBaseline.length);
    }

    /**
     * |Δ %| between the medians of the baseline's odd rounds (1st, 3rd, …: the reference) and even rounds
     * (2nd, 4th, …). {@code samplesInRoundOrder} must be in the order the rounds ran; needs ≥ 2 samples.
     */
    public static NoiseFloor fromSplitRounds(double[] samplesInRoundOrder) {
        Samples.requireFinite(samplesInRoundOrder, "samplesInRoundOrder");
        int n = samplesInRoundOrder.length;
        if (n < 2) {
            return new NoiseFloor(null, Source.NONE, n, 0);
        }
        double[] odd = new double[(n + 1) / 2];
        double[] even = new double[n / 2];
        for (int i = 0; i < n; i++) {
            if ((i & 1) == 0) {
                odd[i / 2] = samplesInRoundOrder[i];
            } else {
                even[i / 2] = samplesInRoundOrder[i];
            }
        }
        return new NoiseFloor(absPct(Samples.median(odd), Samples.median(even)), Source.SPLIT_ROUNDS, odd.length,
                even.length);
    }

    /** The two-baseline floor when both baselines have runs, else the split-rounds floor of the first. */
    public static NoiseFloor of(double[] baseline, double[] secondBaselineOrNull) {
        if (secondBaselineOrNull != null && secondBaselineOrNull.length > 0 && baseline.length > 0) {
            return fromTwoBaselines(baseline, secondBaselineOrNull);
        }
        return fromSplitRounds(baseline);
    }

    /** The |Δ %| a change must exceed: max(noise floor, minimum effect). */
    public double thresholdPct(double minEffectPct) {
        return noiseFloorPct == null ? minEffectPct : Math.max(noiseFloorPct, minEffectPct);
    }

    private static Double absPct(double reference, double other) {
        if (reference == 0.0) {
            return null;
        }
        // |(B − X)/B| = |(X − B)/B|: the same for both metric directions
        return Math.abs((other - reference) / reference) * 100.0;
    }
}
