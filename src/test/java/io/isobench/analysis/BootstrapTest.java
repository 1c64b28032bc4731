package io.isobench.analysis;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BootstrapTest {

    @Test
    void splitMix64MatchesReferenceVector() {
        // Vigna's splitmix64.c seeded with 1234567
        SplitMix64 rng = new SplitMix64(1234567L);
        assertThat(rng.nextLong()).isEqualTo(6457827717110365317L);
        assertThat(rng.nextLong()).isEqualTo(3203168211198807973L);
        assertThat(Long.toUnsignedString(rng.nextLong())).isEqualTo("9817491932198370423");
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
                Arrays.sort(draw);
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
            Arrays.sort(sorted);
            for (double p : new double[] {0.0, 0.025, 0.5, 0.975, 1.0}) {
                assertThat(Bootstrap.quantile(a.clone(), p)).isEqualTo(Samples.quantileOfSorted(sorted, p));
            }
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
}
