package io.isobench.analysis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MedianCiTest {

    @Test
    void oneValueIsItsOwnInterval() {
        MedianCi m = MedianCi.of(new double[] {1.25}, StatsConfig.defaults());
        assertThat(m).isEqualTo(new MedianCi(1, 1.25, 1.25, 1.25));
    }

    @Test
    void intervalBracketsTheMedianLiesWithinTheDataAndIsSeeded() {
        double[] v = {0.8, 1.1, 1.4, 1.9, 2.2, 5.0, 1.3};
        MedianCi m = MedianCi.of(v, StatsConfig.defaults());
        assertThat(m.median()).isEqualTo(1.4);
        assertThat(m.low()).isLessThanOrEqualTo(m.median()).isGreaterThanOrEqualTo(0.8);
        assertThat(m.high()).isGreaterThanOrEqualTo(m.median()).isLessThanOrEqualTo(5.0);
        assertThat(m.high()).isGreaterThan(m.low());
        assertThat(MedianCi.of(v, StatsConfig.defaults())).isEqualTo(m);
        assertThat(MedianCi.of(new double[] {2, 2, 2, 2}, StatsConfig.defaults()))
                .isEqualTo(new MedianCi(4, 2, 2, 2));
    }

    @Test
    void coversTheTrueMedianAboutAsOftenAsItClaims() {
        // normal samples of 25 with true median 0: a 95 % interval should cover 0 in roughly 95 % of 200 trials
        SplitMix64 rng = new SplitMix64(7);
        int covered = 0;
        for (int t = 0; t < 200; t++) {
            double[] v = new double[25];
            for (int i = 0; i < v.length; i++) {
                double u1 = (rng.nextLong() >>> 11) * 0x1.0p-53 + 1e-12;
                double u2 = (rng.nextLong() >>> 11) * 0x1.0p-53;
                v[i] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
            }
            MedianCi m = MedianCi.of(v, StatsConfig.defaults().withBootstrap(1000, t));
            if (m.low() <= 0 && 0 <= m.high()) {
                covered++;
            }
        }
        assertThat(covered).isBetween(176, 200);
    }

    @Test
    void refusesNoValuesAndNonFiniteOnes() {
        assertThatThrownBy(() -> MedianCi.of(new double[0], StatsConfig.defaults()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MedianCi.of(new double[] {1, Double.NaN}, StatsConfig.defaults()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
