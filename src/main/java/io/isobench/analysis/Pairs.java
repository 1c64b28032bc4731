package io.isobench.analysis;

import io.isobench.parse.Better;

/**
 * The paired rounds of one comparison (docs/statistics.md, "Per comparison"): for every round where the arm X and
 * the reference both have a valid value, {@code d = ±(ln x − ln ref)}, oriented so that positive is better; with a
 * second reference (the A/A arm, for comparisons against the baseline) valid in that round, {@code ln ref} is the mean
 * of the two logs. A round's d then has variance σ²(1 + 1/m) for m reference runs, and gets weight m/(m + 1).
 *
 * @param n            paired rounds
 * @param dropped      rounds where X has a valid value but the reference has none (dropped from this pair)
 * @param estimate     weighted mean of d (log speedup); NaN when n = 0
 * @param weightSum    Σ weights; var(estimate) = σ² / weightSum
 * @param ownVariance  σ² per run estimated from these pairs alone (Σ w (d − estimate)² / (n − 1)); NaN when n < 2
 * @param undefined    a value was ≤ 0: no logarithm, no ratio
 */
record Pairs(int n, int dropped, double estimate, double weightSum, double ownVariance, boolean undefined) {

    static Pairs of(ArmSamples x, ArmSamples reference, ArmSamples secondReference, Better better) {
        int[] xr = x.roundIndex();
        double[] xv = x.values();
        double sign = better == Better.LOWER ? -1.0 : 1.0;
        double[] d = new double[xr.length];
        double[] w = new double[xr.length];
        int n = 0;
        int dropped = 0;
        for (int i = 0; i < xr.length; i++) {
            int ri = reference.indexOfRound(xr[i]);
            if (ri < 0) {
                dropped++;
                continue;
            }
            double ref = reference.values()[ri];
            double xi = xv[i];
            int si = secondReference == null ? -1 : secondReference.indexOfRound(xr[i]);
            double second = si < 0 ? Double.NaN : secondReference.values()[si];
            if (!(xi > 0) || !(ref > 0) || si >= 0 && !(second > 0)) {
                return new Pairs(0, dropped, Double.NaN, 0, Double.NaN, true);
            }
            double lnRef = si < 0 ? Math.log(ref) : (Math.log(ref) + Math.log(second)) / 2.0;
            int m = si < 0 ? 1 : 2;
            d[n] = sign * (Math.log(xi) - lnRef);
            w[n] = m / (m + 1.0);
            n++;
        }
        if (n == 0) {
            return new Pairs(0, dropped, Double.NaN, 0, Double.NaN, false);
        }
        double sw = 0;
        double swd = 0;
        for (int i = 0; i < n; i++) {
            sw += w[i];
            swd += w[i] * d[i];
        }
        double est = swd / sw;
        double ss = 0;
        for (int i = 0; i < n; i++) {
            ss += w[i] * (d[i] - est) * (d[i] - est);
        }
        return new Pairs(n, dropped, est, sw, n < 2 ? Double.NaN : ss / (n - 1), false);
    }

    /** Degrees of freedom of {@link #ownVariance()}. */
    int ownDf() {
        return n - 1;
    }
}
