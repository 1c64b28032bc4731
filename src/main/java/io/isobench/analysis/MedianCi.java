package io.isobench.analysis;

import java.util.Arrays;

/**
 * A median with its seeded percentile-bootstrap confidence interval (the same resampling as the speedup CIs:
 * SplitMix64 draws with replacement, type-7 quantiles), e.g. the median over an agent's tasks of the per-task
 * speedup.
 *
 * @param n      values
 * @param median the sample median
 * @param low    lower bound of the interval; equal to the median when there is one value
 * @param high   upper bound
 */
public record MedianCi(int n, double median, double low, double high) {

    /**
     * @param values     at least one finite value
     * @param config     confidence, resamples and seed
     */
    public static MedianCi of(double[] values, StatsConfig config) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        Samples.requireFinite(values, "values");
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double median = Samples.medianOfSorted(sorted, sorted.length);
        if (values.length == 1) {
            return new MedianCi(1, median, median, median);
        }
        double[] medians = Bootstrap.resampledMedians(values, config.bootstrapSeed(), config.bootstrapResamples());
        double alpha = (1 - config.confidence()) / 2;
        double low = Bootstrap.quantile(medians.clone(), alpha);
        double high = Bootstrap.quantile(medians, 1 - alpha);
        return new MedianCi(values.length, median, low, high);
    }
}
