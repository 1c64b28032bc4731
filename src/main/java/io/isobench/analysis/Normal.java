package io.isobench.analysis;

/** Standard normal upper tail, accurate to ~1e-15 absolute (enough for p-values), and its inverse. */
final class Normal {

    private static final double INV_SQRT_2PI = 0.3989422804014327;

    private Normal() {
    }

    static double density(double x) {
        return INV_SQRT_2PI * Math.exp(-0.5 * x * x);
    }

    /** Q(z) = P(Z > z). */
    static double upperTail(double z) {
        if (z < 0) {
            return 1.0 - upperTail(-z);
        }
        if (z < 3.0) {
            // Phi(z) = 1/2 + phi(z) * sum z^(2k+1) / (1*3*5*...*(2k+1))  (Marsaglia 2004)
            double term = z;
            double sum = z;
            double z2 = z * z;
            for (int k = 1; k < 200 && Math.abs(term) > 1e-17 * Math.abs(sum); k++) {
                term *= z2 / (2 * k + 1);
                sum += term;
            }
            return 0.5 - density(z) * sum;
        }
        if (z > 40) {
            return 0.0;
        }
        // Laplace continued fraction Q(z) = phi(z) / (z + 1/(z + 2/(z + 3/(z + ...)))), evaluated backwards
        double f = z;
        for (int k = 300; k >= 1; k--) {
            f = z + k / f;
        }
        return density(z) / f;
    }

    /** Φ(z) = P(Z ≤ z). */
    static double cdf(double z) {
        return upperTail(-z);
    }

    /** The p-quantile of the standard normal, 0 < p < 1 (bisection on {@link #upperTail}, to ~1e-12). */
    static double quantile(double p) {
        if (!(p > 0 && p < 1)) {
            throw new IllegalArgumentException("probability " + p + " must be in (0, 1)");
        }
        double lo = -40;
        double hi = 40;
        for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
            double mid = (lo + hi) / 2;
            if (cdf(mid) < p) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }
}
