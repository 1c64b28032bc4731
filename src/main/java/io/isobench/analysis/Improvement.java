package io.isobench.analysis;

import io.isobench.parse.Better;

/** DESIGN §5 improvement formula (a contract). */
public final class Improvement {

    private Improvement() {
    }

    /**
     * Improvement of {@code value} over {@code reference} in percent, positive = better: lower-is-better
     * {@code (B − X)/B × 100}, higher-is-better {@code (X − B)/B × 100}. {@code null} (never 0, never NaN) when a
     * value is missing or not finite, B = 0, or the metric has no direction.
     */
    public static Double pct(Better better, Double reference, Double value) {
        if (reference == null || value == null || better == null || better == Better.NONE
                || !Double.isFinite(reference) || !Double.isFinite(value) || reference == 0.0) {
            return null;
        }
        double b = reference;
        double x = value;
        return better == Better.LOWER ? (b - x) / b * 100.0 : (x - b) / b * 100.0;
    }
}
