package io.isobench.loadgen;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** numpy-compatible summary statistics: population std, linearly interpolated percentiles. */
final class Stats {

    private Stats() {
    }

    static double mean(double[] v) {
        if (v.length == 0) {
            return 0;
        }
        double s = 0;
        for (double x : v) {
            s += x;
        }
        return s / v.length;
    }

    static double std(double[] v) {
        if (v.length == 0) {
            return 0;
        }
        double m = mean(v);
        double s = 0;
        for (double x : v) {
            s += (x - m) * (x - m);
        }
        return Math.sqrt(s / v.length);
    }

    /** np.percentile(v, p) with linear interpolation; {@code sorted} must be sorted. 0 for an empty array. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        double rank = p / 100.0 * (sorted.length - 1);
        int lo = (int) Math.floor(rank);
        int hi = (int) Math.ceil(rank);
        double frac = rank - lo;
        return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
    }

    static LoadgenResult.Dist dist(double[] valuesMs, List<Double> percentiles) {
        double[] s = valuesMs.clone();
        Arrays.sort(s);
        Map<Double, Double> ps = new LinkedHashMap<>();
        for (double p : percentiles) {
            ps.put(p, percentile(s, p));
        }
        return new LoadgenResult.Dist(valuesMs.length, mean(s), percentile(s, 50), std(s),
                s.length == 0 ? 0 : s[0], s.length == 0 ? 0 : s[s.length - 1], ps);
    }
}
