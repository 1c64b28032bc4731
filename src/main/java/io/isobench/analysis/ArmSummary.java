package io.isobench.analysis;

import java.util.Arrays;

/**
 * Descriptive statistics of one arm's valid rounds for one metric, in the metric's own unit (the unit is in the
 * metric name, e.g. {@code tpot_ms_mean}). Values are {@code null} when undefined: everything when {@code n = 0};
 * {@code sd} and {@code cv} also when {@code n < 2}; {@code cv} also when the mean is 0.
 *
 * @param cv sample standard deviation / mean, as a fraction (0.05 = 5 %); see {@link #cvPct()}
 */
public record ArmSummary(int n, Double median, Double mean, Double sd, Double cv, Double min, Double max) {

    public ArmSummary {
        if (n < 0) {
            throw new IllegalArgumentException("n (" + n + ") must be >= 0");
        }
    }

    /** Summary of the given samples (any order); they must be finite. */
    public static ArmSummary of(double[] samples) {
        Samples.requireFinite(samples, "samples");
        int n = samples.length;
        if (n == 0) {
            return new ArmSummary(0, null, null, null, null, null, null);
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (double v : sorted) {
            sum += v;
        }
        double mean = sum / n;
        Double sd = null;
        Double cv = null;
        if (n >= 2) {
            double ss = 0;
            for (double v : sorted) {
                ss += (v - mean) * (v - mean);
            }
            sd = Math.sqrt(ss / (n - 1));
            if (mean != 0) {
                cv = sd / Math.abs(mean);
            }
        }
        return new ArmSummary(n, Samples.medianOfSorted(sorted, n), mean, sd, cv, sorted[0], sorted[n - 1]);
    }

    /** CV in percent, or {@code null} when undefined. */
    public Double cvPct() {
        return cv == null ? null : cv * 100.0;
    }
}
