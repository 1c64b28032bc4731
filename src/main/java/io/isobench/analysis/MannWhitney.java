package io.isobench.analysis;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Two-sided Mann-Whitney U test. {@code u} is the statistic of the first sample x:
 * #{(i, j): x_i > y_j} + ½ #{(i, j): x_i = y_j} (= rank sum of x − n_x(n_x + 1)/2, midranks for ties).
 * Exact (full null distribution) when both n ≤ exactMaxN and no value is tied; otherwise the normal
 * approximation with tie-corrected variance and a continuity correction of ½ towards the mean.
 */
public final class MannWhitney {

    public enum Method {
        EXACT, NORMAL, UNDEFINED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** @param pValue two-sided p-value, {@code null} when undefined (an empty sample, or every value tied) */
    public record Result(double u, Double pValue, Method method) {
    }

    private MannWhitney() {
    }

    public static Result test(double[] x, double[] y, int exactMaxN) {
        Samples.requireFinite(x, "x");
        Samples.requireFinite(y, "y");
        int nx = x.length;
        int ny = y.length;
        if (nx == 0 || ny == 0) {
            return new Result(Double.NaN, null, Method.UNDEFINED);
        }
        int n = nx + ny;
        double[] all = new double[n];
        System.arraycopy(x, 0, all, 0, nx);
        System.arraycopy(y, 0, all, nx, ny);
        Arrays.sort(all);
        // midrank of v = (first index + last index of v in the sorted array) / 2 + 1
        double rankSumX = 0;
        for (double v : x) {
            int lo = lowerBound(all, v);
            int hi = lowerBound(all, Math.nextUp(v)) - 1;
            rankSumX += (lo + hi) / 2.0 + 1.0;
        }
        double u = rankSumX - nx * (nx + 1) / 2.0;
        double tieSum = 0; // sum of t^3 - t over groups of tied values
        for (int i = 0; i < n; ) {
            int j = i;
            while (j + 1 < n && all[j + 1] == all[i]) {
                j++;
            }
            double t = j - i + 1;
            tieSum += t * t * t - t;
            i = j + 1;
        }
        if (tieSum == 0 && nx <= exactMaxN && ny <= exactMaxN) {
            return new Result(u, exactPValue((int) Math.round(u), nx, ny), Method.EXACT);
        }
        double mean = nx * (double) ny / 2.0;
        double variance = nx * (double) ny / 12.0 * ((n + 1) - tieSum / ((double) n * (n - 1)));
        if (!(variance > 0)) {
            return new Result(u, null, Method.UNDEFINED);
        }
        double d = u - mean;
        double z = (d - Math.signum(d) * 0.5) / Math.sqrt(variance);
        return new Result(u, Math.min(1.0, 2.0 * Normal.upperTail(Math.abs(z))), Method.NORMAL);
    }

    /** Two-sided exact p: min(1, 2 · min(P(U ≤ u), P(U ≥ u))) under H0, no ties. */
    static double exactPValue(int u, int nx, int ny) {
        long[] counts = nullCounts(nx, ny);
        long total = 0;
        long le = 0;
        long ge = 0;
        for (int k = 0; k < counts.length; k++) {
            total += counts[k];
            if (k <= u) {
                le += counts[k];
            }
            if (k >= u) {
                ge += counts[k];
            }
        }
        return Math.min(1.0, 2.0 * Math.min(le, ge) / (double) total);
    }

    /**
     * counts[k] = number of the C(nx + ny, nx) orderings with U = k. Recurrence on the largest element: if it is
     * an x it beats all remaining y's: f(i, j, k) = f(i − 1, j, k − j) + f(i, j − 1, k).
     */
    static long[] nullCounts(int nx, int ny) {
        return NULL_COUNTS.computeIfAbsent(nx * 1000 + ny, k -> countOrderings(nx, ny));
    }

    /** Null distributions by (nx, ny): computed once each (a calibration asks for the same few millions of times). */
    private static final ConcurrentHashMap<Integer, long[]> NULL_COUNTS =
            new ConcurrentHashMap<>();

    private static long[] countOrderings(int nx, int ny) {
        long[][][] f = new long[nx + 1][ny + 1][];
        for (int i = 0; i <= nx; i++) {
            for (int j = 0; j <= ny; j++) {
                long[] c = new long[i * j + 1];
                if (i == 0 || j == 0) {
                    c[0] = 1;
                } else {
                    long[] a = f[i - 1][j];
                    long[] b = f[i][j - 1];
                    for (int k = 0; k < a.length; k++) {
                        c[k + j] += a[k];
                    }
                    for (int k = 0; k < b.length; k++) {
                        c[k] += b[k];
                    }
                }
                f[i][j] = c;
            }
        }
        return f[nx][ny];
    }

    private static int lowerBound(double[] sorted, double v) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < v) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
