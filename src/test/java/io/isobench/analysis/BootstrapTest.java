package io.isobench.analysis;

import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BootstrapTest {

    private static final double[] B = {100.0, 101.5, 99.2, 100.8, 100.1};
    private static final double[] X = {90.3, 91.0, 89.7, 90.9, 90.2};

    @Test
    void splitMix64MatchesReferenceVector() {
        // Vigna's splitmix64.c seeded with 1234567
        SplitMix64 rng = new SplitMix64(1234567L);
        assertThat(rng.nextLong()).isEqualTo(6457827717110365317L);
        assertThat(rng.nextLong()).isEqualTo(3203168211198807973L);
        assertThat(Long.toUnsignedString(rng.nextLong())).isEqualTo("9817491932198370423");
    }

    @Test
    void sameSeedSameInterval_otherSeedOtherInterval() {
        double[] a = Bootstrap.speedupCi(X, B, Better.LOWER, 10_000, 42, 0.95);
        double[] b = Bootstrap.speedupCi(X.clone(), B.clone(), Better.LOWER, 10_000, 42, 0.95);
        assertThat(b).containsExactly(a);
        double[] c = Bootstrap.speedupDistribution(X, B, Better.LOWER, 10_000, 43);
        double[] d = Bootstrap.speedupDistribution(X, B, Better.LOWER, 10_000, 42);
        assertThat(c).isNotEqualTo(d);
        // the interval brackets the point estimate and lies above 1
        double point = Samples.median(B) / Samples.median(X);
        assertThat(a[0]).isLessThanOrEqualTo(point).isGreaterThan(1.0);
        assertThat(a[1]).isGreaterThanOrEqualTo(point);
    }

    @Test
    void goldenIntervalForDefaultSeed() {
        // Golden: changing the generator, the draw order or the quantile rule changes published CIs. Update only
        // on purpose, and say so in docs/statistics.md.
        double[] ci = Bootstrap.speedupCi(X, B, Better.LOWER, 10_000, 42, 0.95);
        assertThat(ci[0]).isCloseTo(GOLDEN_LOW, within(1e-12));
        assertThat(ci[1]).isCloseTo(GOLDEN_HIGH, within(1e-12));
        // even n on both sides, higher is better
        double[] b = {100.0, 101.5, 99.2, 100.8};
        double[] x = {90.3, 91.0, 89.7, 90.9, 90.2, 92.0};
        double[] ci2 = Bootstrap.speedupCi(x, b, Better.HIGHER, 10_000, 42, 0.95);
        assertThat(ci2[0]).isCloseTo(0.891709374451868, within(1e-12));
        assertThat(ci2[1]).isCloseTo(0.9163306451612904, within(1e-12));
    }

    @Test
    void countingMedianEqualsSortingTheDrawnValues() {
        Random random = new Random(3);
        for (int n = 1; n <= 12; n++) {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = random.nextInt(4) + 1.0; // ties on purpose
            }
            double[] fast = Bootstrap.resampledMedians(v, 99L, 500);
            SplitMix64 rng = new SplitMix64(99L);
            for (int r = 0; r < 500; r++) {
                double[] draw = new double[n];
                for (int i = 0; i < n; i++) {
                    draw[i] = v[rng.nextIndex(n)];
                }
                java.util.Arrays.sort(draw);
                double median = n % 2 == 1 ? draw[n / 2] : (draw[n / 2 - 1] + draw[n / 2]) / 2;
                assertThat(fast[r]).as("n=%d r=%d", n, r).isEqualTo(median);
            }
        }
    }

    @Test
    void selectionQuantileEqualsSortedQuantile() {
        Random random = new Random(5);
        for (int trial = 0; trial < 200; trial++) {
            int n = 1 + random.nextInt(300);
            double[] a = new double[n];
            for (int i = 0; i < n; i++) {
                a[i] = random.nextInt(trial % 7 + 1) + (trial % 2 == 0 ? random.nextDouble() : 0);
            }
            double[] sorted = a.clone();
            java.util.Arrays.sort(sorted);
            for (double p : new double[] {0.0, 0.025, 0.5, 0.975, 1.0}) {
                assertThat(Bootstrap.quantile(a.clone(), p)).isEqualTo(Samples.quantileOfSorted(sorted, p));
            }
        }
    }

    // reproduced independently by a 20-line Python script following docs/statistics.md (SplitMix64 streams
    // seed / seed + 1, numpy.median, numpy.quantile's default "linear" = type 7)
    static final double GOLDEN_LOW = 1.0985603543743079;
    static final double GOLDEN_HIGH = 1.124031007751938;

    @Test
    void higherIsBetterInvertsTheRatio() {
        double[] low = Bootstrap.speedupDistribution(X, B, Better.LOWER, 1000, 42);
        double[] high = Bootstrap.speedupDistribution(X, B, Better.HIGHER, 1000, 42);
        for (int i = 0; i < low.length; i++) {
            assertThat(high[i]).isCloseTo(1.0 / low[i], within(1e-12));
        }
    }

    @Test
    void percentileIsType7() {
        double[] sorted = {1, 2, 3, 4, 5};
        assertThat(Samples.quantileOfSorted(sorted, 0.0)).isEqualTo(1.0);
        assertThat(Samples.quantileOfSorted(sorted, 1.0)).isEqualTo(5.0);
        assertThat(Samples.quantileOfSorted(sorted, 0.5)).isEqualTo(3.0);
        assertThat(Samples.quantileOfSorted(sorted, 0.1)).isCloseTo(1.4, within(1e-12));
    }

    /**
     * Coverage: 200 synthetic experiments, lognormal samples (sigma 0.05, n = 10 per arm) with a known true
     * ratio of medians; the 95 % percentile interval should contain it in roughly 95 % of them.
     */
    @Test
    void ciCoverageOnSyntheticLognormalData() {
        Random random = new Random(20261125L);
        int experiments = 200;
        int covered = 0;
        double muB = Math.log(50.0);
        double muX = Math.log(45.0);
        double sigma = 0.05;
        double trueSpeedup = Math.exp(muB - muX); // lower is better: B / X of the medians
        for (int e = 0; e < experiments; e++) {
            double[] b = new double[10];
            double[] x = new double[10];
            for (int i = 0; i < 10; i++) {
                b[i] = Math.exp(muB + sigma * random.nextGaussian());
                x[i] = Math.exp(muX + sigma * random.nextGaussian());
            }
            double[] ci = Bootstrap.speedupCi(x, b, Better.LOWER, 1000, 1000L + e, 0.95);
            if (ci[0] <= trueSpeedup && trueSpeedup <= ci[1]) {
                covered++;
            }
        }
        double coverage = covered / (double) experiments;
        System.err.printf("bootstrap CI coverage: %.3f over %d experiments%n", coverage, experiments);
        assertThat(coverage).isBetween(0.85, 0.99);
    }
}
