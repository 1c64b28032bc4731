package io.isobench.analysis;

import java.util.Arrays;

/** Small primitive-array helpers shared by the statistics; no boxing on hot paths. */
final class Samples {

    private Samples() {
    }

    static void requireFinite(double[] values, String what) {
        if (values == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        for (int i = 0; i < values.length; i++) {
            if (!Double.isFinite(values[i])) {
                throw new IllegalArgumentException(what + "[" + i + "] (" + values[i] + ") must be finite");
            }
        }
    }

    static boolean allPositive(double[] values) {
        for (double v : values) {
            if (!(v > 0)) {
                return false;
            }
        }
        return true;
    }

    /** Median of the first {@code n} values of an ascending array. */
    static double medianOfSorted(double[] sorted, int n) {
        int mid = n >>> 1;
        return (n & 1) == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }

    static double median(double[] values) {
        double[] copy = values.clone();
        sortSmall(copy, copy.length);
        return medianOfSorted(copy, copy.length);
    }

    /** Sorts the first {@code n} values: insertion sort for the small arrays of a bootstrap, else Arrays.sort. */
    static void sortSmall(double[] a, int n) {
        if (n > 32) {
            Arrays.sort(a, 0, n);
            return;
        }
        for (int i = 1; i < n; i++) {
            double v = a[i];
            int j = i - 1;
            while (j >= 0 && a[j] > v) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }

    /** Quantile of an ascending array by linear interpolation between order statistics (Hyndman-Fan type 7). */
    static double quantileOfSorted(double[] sorted, double p) {
        int n = sorted.length;
        double h = (n - 1) * p;
        int lo = (int) Math.floor(h);
        if (lo >= n - 1) {
            return sorted[n - 1];
        }
        return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
    }
}
