package io.isobench.analysis;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class MannWhitneyTest {

    @Test
    void textbookExactValues() {
        // all of x below all of y: U = 0, P(U <= 0) = 1 / C(6,3) = 1/20, two-sided 0.1
        MannWhitney.Result r = MannWhitney.test(new double[] {1, 2, 3}, new double[] {4, 5, 6}, 8);
        assertThat(r.method()).isEqualTo(MannWhitney.Method.EXACT);
        assertThat(r.u()).isEqualTo(0.0);
        assertThat(r.pValue()).isCloseTo(0.1, within(1e-15));
        // n1 = n2 = 4 fully separated: 2 / C(8,4) = 2/70
        r = MannWhitney.test(new double[] {5, 6, 7, 8}, new double[] {1, 2, 3, 4}, 8);
        assertThat(r.u()).isEqualTo(16.0);
        assertThat(r.pValue()).isCloseTo(2.0 / 70.0, within(1e-15));
        // perfectly interleaved: U at the centre -> p = 1
        r = MannWhitney.test(new double[] {1, 4}, new double[] {2, 3}, 8);
        assertThat(r.u()).isEqualTo(2.0);
        assertThat(r.pValue()).isEqualTo(1.0);
    }

    @Test
    void nullDistributionCountsSumToBinomial() {
        long[] c = MannWhitney.nullCounts(8, 8);
        long total = 0;
        for (long v : c) {
            total += v;
        }
        assertThat(total).isEqualTo(12_870L); // C(16, 8)
        assertThat(c).hasSize(65);
        assertThat(c[0]).isEqualTo(1L);
        assertThat(c[1]).isEqualTo(1L);
        assertThat(c[2]).isEqualTo(2L);
        assertThat(c[32]).isGreaterThan(c[31]); // mode at n1 n2 / 2
    }

    /** Independent check: the exact p-value against a full enumeration of rank assignments for n1, n2 ≤ 6. */
    @Test
    void exactMatchesFullEnumeration() {
        Random random = new Random(7);
        for (int nx = 1; nx <= 6; nx++) {
            for (int ny = 1; ny <= 6; ny++) {
                for (int trial = 0; trial < 4; trial++) {
                    double[] x = new double[nx];
                    double[] y = new double[ny];
                    // distinct values: a random permutation of 1..N split into x and y
                    int n = nx + ny;
                    int[] perm = permutation(n, random);
                    for (int i = 0; i < nx; i++) {
                        x[i] = perm[i];
                    }
                    for (int j = 0; j < ny; j++) {
                        y[j] = perm[nx + j];
                    }
                    MannWhitney.Result r = MannWhitney.test(x, y, 8);
                    assertThat(r.method()).isEqualTo(MannWhitney.Method.EXACT);
                    assertThat(r.pValue()).as("nx=%d ny=%d", nx, ny)
                            .isCloseTo(enumeratedPValue(x, y), within(1e-12));
                    assertThat(r.u()).isEqualTo(pairCount(x, y));
                }
            }
        }
    }

    @Test
    void normalApproximationWithTiesMatchesHandComputation() {
        // x = {1,2,2,3,5}, y = {2,3,4,4,6,7}, N = 11. Sorted with midranks:
        // 1:1 | 2,2,2: 3 | 3,3: 5.5 | 4,4: 7.5 | 5: 9 | 6: 10 | 7: 11
        // R_x = 1 + 3 + 3 + 5.5 + 9 = 21.5, U_x = 21.5 - 15 = 6.5, mean = 15
        // ties: 3^3-3 + 2^3-2 + 2^3-2 = 36; var = 30/12 * (12 - 36/110) = 29.1818...
        // z = (6.5 - 15 + 0.5) / sqrt(29.1818) = -1.480928...; p = 2 Q(1.480916) = 0.138626 (scipy agrees)
        double[] x = {1, 2, 2, 3, 5};
        double[] y = {2, 3, 4, 4, 6, 7};
        MannWhitney.Result r = MannWhitney.test(x, y, 8);
        assertThat(r.method()).isEqualTo(MannWhitney.Method.NORMAL);
        assertThat(r.u()).isEqualTo(6.5);
        double z = -8.0 / Math.sqrt(2.5 * (12.0 - 36.0 / 110.0));
        assertThat(z).isCloseTo(-1.480928, within(1e-6));
        assertThat(r.pValue()).isCloseTo(0.13862587987892763, within(1e-12));
        // symmetric: swapping the samples gives U' = n1 n2 - U and the same p
        MannWhitney.Result s = MannWhitney.test(y, x, 8);
        assertThat(s.u()).isEqualTo(30 - 6.5);
        assertThat(s.pValue()).isCloseTo(r.pValue(), within(1e-15));
    }

    @Test
    void largeSamplesUseNormalWithoutTies() {
        double[] x = new double[9];
        double[] y = new double[9];
        for (int i = 0; i < 9; i++) {
            x[i] = i;
            y[i] = 100 + i;
        }
        MannWhitney.Result r = MannWhitney.test(x, y, 8);
        assertThat(r.method()).isEqualTo(MannWhitney.Method.NORMAL);
        // U = 0, mean 40.5, var = 81/12 * 19 = 128.25, z = -40/sqrt(128.25) = -3.53209
        assertThat(r.pValue()).isCloseTo(2 * Normal.upperTail(40 / Math.sqrt(128.25)), within(1e-15))
                .isCloseTo(4.1229e-4, within(1e-7));
    }

    @Test
    void degenerateInputsGiveUndefinedP() {
        assertThat(MannWhitney.test(new double[0], new double[] {1}, 8).pValue()).isNull();
        MannWhitney.Result allTied = MannWhitney.test(new double[] {3, 3, 3}, new double[] {3, 3}, 8);
        assertThat(allTied.pValue()).isNull();
        assertThat(allTied.method()).isEqualTo(MannWhitney.Method.UNDEFINED);
    }

    @Test
    void normalTailMatchesKnownValues() {
        assertThat(Normal.upperTail(1.96)).isCloseTo(0.024997895148220435, within(1e-15));
        assertThat(Normal.upperTail(0.5)).isCloseTo(0.3085375387259869, within(1e-15));
        assertThat(Normal.upperTail(2.9999)).isCloseTo(0.001350341282954925, within(1e-15));
        assertThat(Normal.upperTail(3.0)).isCloseTo(0.0013498980316300933, within(1e-15));
        assertThat(Normal.upperTail(5.0)).isCloseTo(2.866515718791933e-07, within(1e-19));
        assertThat(Normal.upperTail(8.0)).isCloseTo(6.22096057427174e-16, within(1e-26));
        assertThat(Normal.upperTail(-1.96)).isCloseTo(1 - 0.024997895148220435, within(1e-15));
        assertThat(Normal.upperTail(0)).isEqualTo(0.5);
    }

    private static double enumeratedPValue(double[] x, double[] y) {
        int nx = x.length;
        int n = nx + y.length;
        double observed = pairCount(x, y);
        long le = 0;
        long ge = 0;
        long total = 0;
        // x occupies the ranks of the set bits; U = rank sum of x - nx(nx+1)/2
        for (int mask = 0; mask < (1 << n); mask++) {
            if (Integer.bitCount(mask) != nx) {
                continue;
            }
            int rankSum = 0;
            for (int i = 0; i < n; i++) {
                if ((mask & (1 << i)) != 0) {
                    rankSum += i + 1;
                }
            }
            double u = rankSum - nx * (nx + 1) / 2.0;
            total++;
            if (u <= observed) {
                le++;
            }
            if (u >= observed) {
                ge++;
            }
        }
        return Math.min(1.0, 2.0 * Math.min(le, ge) / total);
    }

    private static double pairCount(double[] x, double[] y) {
        double u = 0;
        for (double a : x) {
            for (double b : y) {
                u += a > b ? 1 : a == b ? 0.5 : 0;
            }
        }
        return u;
    }

    private static int[] permutation(int n, Random random) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i + 1;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}
