package io.isobench.analysis;

import io.isobench.parse.Better;

/**
 * The paired rounds of one comparison (docs/statistics.md §5): for every round where the arm X has a valid value and
 * its reference has one, {@code d = ±(ln x − ln ref)}, oriented so that positive is better. The reference of a round is
 * the reference arm's run; a stand-in (the A/A arm, for comparisons against the baseline) takes its place only in a
 * round where the reference has no valid value. One reference run per pair, so every d has the same variance
 * σ²_X + σ²_R, estimated from X's own pairs (no pooling).
 *
 * @param n         paired rounds
 * @param dropped   rounds where X has a valid value but neither the reference nor a stand-in has one
 * @param standIn   pairs whose reference is the stand-in
 * @param estimate  mean of d (log speedup); NaN when n = 0
 * @param variance  sample variance of d (n − 1 denominator); NaN when n &lt; 2
 * @param undefined a value was ≤ 0: no logarithm, no ratio
 */
record Pairs(int n, int dropped, int standIn, double estimate, double variance, boolean undefined) {

    static Pairs of(ArmSamples x, ArmSamples reference, ArmSamples standIn, Better better) {
        int[] xr = x.roundIndex();
        double[] xv = x.values();
        double sign = better == Better.LOWER ? -1.0 : 1.0;
        double[] d = new double[xr.length];
        int n = 0;
        int dropped = 0;
        int stood = 0;
        for (int i = 0; i < xr.length; i++) {
            int ri = reference.indexOfRound(xr[i]);
            double ref;
            if (ri >= 0) {
                ref = reference.values()[ri];
            } else {
                int si = standIn == null ? -1 : standIn.indexOfRound(xr[i]);
                if (si < 0) {
                    dropped++;
                    continue;
                }
                ref = standIn.values()[si];
                stood++;
            }
            if (!(xv[i] > 0) || !(ref > 0)) {
                return new Pairs(0, dropped, 0, Double.NaN, Double.NaN, true);
            }
            d[n++] = sign * (Math.log(xv[i]) - Math.log(ref));
        }
        if (n == 0) {
            return new Pairs(0, dropped, stood, Double.NaN, Double.NaN, false);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += d[i];
        }
        double est = sum / n;
        double ss = 0;
        for (int i = 0; i < n; i++) {
            ss += (d[i] - est) * (d[i] - est);
        }
        return new Pairs(n, dropped, stood, est, n < 2 ? Double.NaN : ss / (n - 1), false);
    }

    /** Degrees of freedom of {@link #variance()}. */
    int df() {
        return n - 1;
    }
}
