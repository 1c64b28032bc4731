package io.isobench.analysis;

import io.isobench.parse.Better;

/** Percentile bootstrap of the oriented ratio of medians (speedup). */
final class Bootstrap {

    private Bootstrap() {
    }

    /** Lower and upper bound of the CI of the speedup of {@code x} over {@code reference}; samples must be > 0. */
    static double[] speedupCi(double[] x, double[] reference, Better better, int resamples, long seed,
                              double confidence) {
        double[] speedups = speedupDistribution(x, reference, better, resamples, seed);
        java.util.Arrays.sort(speedups);
        double alpha = 1.0 - confidence;
        return new double[] {
                Samples.quantileOfSorted(speedups, alpha / 2.0),
                Samples.quantileOfSorted(speedups, 1.0 - alpha / 2.0)};
    }

    /**
     * The unsorted bootstrap distribution. Each resample draws the reference's n indices, then x's n indices, with
     * replacement, from one generator seeded with {@code seed}: the result depends only on (x, reference, seed).
     */
    static double[] speedupDistribution(double[] x, double[] reference, Better better, int resamples, long seed) {
        SplitMix64 rng = new SplitMix64(seed);
        int nx = x.length;
        int nr = reference.length;
        double[] bufX = new double[nx];
        double[] bufR = new double[nr];
        double[] out = new double[resamples];
        boolean lower = better == Better.LOWER;
        for (int r = 0; r < resamples; r++) {
            for (int i = 0; i < nr; i++) {
                bufR[i] = reference[rng.nextIndex(nr)];
            }
            for (int i = 0; i < nx; i++) {
                bufX[i] = x[rng.nextIndex(nx)];
            }
            Samples.sortSmall(bufR, nr);
            Samples.sortSmall(bufX, nx);
            double mr = Samples.medianOfSorted(bufR, nr);
            double mx = Samples.medianOfSorted(bufX, nx);
            out[r] = lower ? mr / mx : mx / mr;
        }
        return out;
    }
}
