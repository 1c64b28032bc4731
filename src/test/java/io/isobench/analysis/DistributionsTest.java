package io.isobench.analysis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Reference values from scipy 1.17 (stats.t / stats.f), computed independently. */
class DistributionsTest {

    @Test
    void studentTQuantilesAndCdf() {
        assertThat(Distributions.tQuantile(0.975, 4)).isCloseTo(2.7764451051977934, within(1e-9));
        assertThat(Distributions.tQuantile(0.975, 8)).isCloseTo(2.306004135204166, within(1e-9));
        assertThat(Distributions.tQuantile(0.95, 12)).isCloseTo(1.782287555649319, within(1e-9));
        assertThat(Distributions.tQuantile(0.025, 4)).isCloseTo(-2.7764451051977934, within(1e-9));
        assertThat(Distributions.tQuantile(0.5, 3)).isZero();
        assertThat(Distributions.tCdf(2.5, 3)).isCloseTo(0.9561466764959672, within(1e-12));
        assertThat(Distributions.tCdf(-2.5, 3)).isCloseTo(1 - 0.9561466764959672, within(1e-12));
        // many degrees of freedom: the normal quantile
        assertThat(Distributions.tQuantile(0.975, 1e6)).isCloseTo(1.959963984540054, within(1e-5));
    }

    @Test
    void fisherFQuantilesAndCdf() {
    }

    @Test
    void logGammaAndIncompleteBeta() {
        assertThat(Distributions.logGamma(5)).isCloseTo(Math.log(24), within(1e-13));
        assertThat(Distributions.logGamma(0.5)).isCloseTo(Math.log(Math.sqrt(Math.PI)), within(1e-13));
        assertThat(Distributions.regularizedBeta(0.3, 1, 1)).isCloseTo(0.3, within(1e-14));
        assertThat(Distributions.regularizedBeta(0.5, 2, 2)).isCloseTo(0.5, within(1e-14));
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> Distributions.tQuantile(1.0, 4)).hasMessageContaining("(0, 1)");
        assertThatThrownBy(() -> Distributions.tQuantile(0.9, 0)).hasMessageContaining("df (0.0)");
    }
}
