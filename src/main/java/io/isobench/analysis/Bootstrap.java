package io.isobench.analysis;

import java.util.Arrays;

/**
 * Percentile bootstrap of a median (SplitMix64 draws with replacement, type-7 quantiles): the CI of a median over
 * tasks in leaderboards ({@link MedianCi}). Comparisons of arms use paired rounds instead ({@link Comparison}).
 */
final class Bootstrap {

    private Bootstrap() {
    }

    /**
     * Medians of {@code resamples} resamples of {@code values} (n draws with replacement each, in order, from one
     * SplitMix64 stream seeded with {@code streamSeed}).
     */
    static double[] resampledMedians(double[] values, long streamSeed, int resamples) {
        SplitMix64 rng = new SplitMix64(streamSeed);
        PreparedArm arm = new PreparedArm(values);
        double[] out = new double[resamples];
        for (int r = 0; r < resamples; r++) {
            out[r] = arm.resampleMedian(rng);
        }
        return out;
    }

    /**
     * One arm, prepared for fast resampled medians without sorting: a draw of position j counts towards the rank
     * of value j in ascending order (ties broken by position), and the median is read off the cumulative counts.
     * Same result as sorting the drawn values.
     */
    private static final class PreparedArm {
        final int n;
        final double[] sorted;
        final int[] rankOfPosition;
        final int[] counts;

        PreparedArm(double[] values) {
            n = values.length;
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> {
                int c = Double.compare(values[a], values[b]);
                return c != 0 ? c : Integer.compare(a, b);
            });
            sorted = new double[n];
            rankOfPosition = new int[n];
            for (int rank = 0; rank < n; rank++) {
                sorted[rank] = values[order[rank]];
                rankOfPosition[order[rank]] = rank;
            }
            counts = new int[n];
        }

        double resampleMedian(SplitMix64 rng) {
            Arrays.fill(counts, 0);
            for (int i = 0; i < n; i++) {
                counts[rankOfPosition[rng.nextIndex(n)]]++;
            }
            // 0-based order statistics k = (n-1)/2 and, for even n, k+1
            int k = (n - 1) >>> 1;
            int cumulative = 0;
            int rank = 0;
            while (cumulative + counts[rank] <= k) {
                cumulative += counts[rank];
                rank++;
            }
            double lo = sorted[rank];
            if ((n & 1) == 1) {
                return lo;
            }
            if (cumulative + counts[rank] > k + 1) {
                return lo;
            }
            rank++;
            while (counts[rank] == 0) {
                rank++;
            }
            return (lo + sorted[rank]) / 2.0;
        }
    }

    /** Type-7 quantile (see {@link Samples#quantileOfSorted}) by selection; reorders {@code a}. */
    static double quantile(double[] a, double p) {
        int n = a.length;
        double h = (n - 1) * p;
        int lo = (int) Math.floor(h);
        if (lo >= n - 1) {
            select(a, n - 1);
            return a[n - 1];
        }
        select(a, lo);
        double v = a[lo];
        double next = a[lo + 1];
        for (int i = lo + 2; i < n; i++) {
            if (a[i] < next) {
                next = a[i];
            }
        }
        return v + (h - lo) * (next - v);
    }

    /** Quickselect with a three-way partition (bootstrap distributions hold many equal values). */
    private static void select(double[] a, int k) {
        int left = 0;
        int right = a.length - 1;
        while (right > left) {
            double x = a[left];
            double y = a[(left + right) >>> 1];
            double z = a[right];
            double pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z)); // median of three
            // a[left..lt) < pivot, a[lt..i) == pivot, a(gt..right] > pivot
            int lt = left;
            int gt = right;
            int i = left;
            while (i <= gt) {
                double v = a[i];
                if (v < pivot) {
                    swap(a, lt++, i++);
                } else if (v > pivot) {
                    swap(a, i, gt--);
                } else {
                    i++;
                }
            }
            if (k < lt) {
                right = lt - 1;
            } else if (k > gt) {
                left = gt + 1;
            } else {
                return;
            }
        }
    }

    private static void swap(double[] a, int i, int j) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
