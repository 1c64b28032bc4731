package io.isobench.analysis;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleUnaryOperator;

/**
 * Student's t distribution (CDF and quantiles) through the regularized incomplete beta function
 * (Lentz's continued fraction, Numerical Recipes §6.4) and a Lanczos log-gamma. Accurate to ~1e-10 in the quantiles
 * the verdicts use; quantiles are cached per (distribution, degrees of freedom, probability).
 */
public final class Distributions {

    private static final ConcurrentHashMap<Key, Double> QUANTILES = new ConcurrentHashMap<>();

    /** A cached quantile: the degrees of freedom and the probability. */
    private record Key(double df, double p) {
    }

    private Distributions() {
    }

    /** P(T ≤ t) for Student's t with {@code df} > 0 degrees of freedom. */
    public static double tCdf(double t, double df) {
        requirePositive(df, "df");
        if (Double.isNaN(t)) {
            return Double.NaN;
        }
        if (Double.isInfinite(t)) {
            return t > 0 ? 1.0 : 0.0;
        }
        double x = df / (df + t * t);
        double tail = 0.5 * regularizedBeta(x, df / 2.0, 0.5);
        return t > 0 ? 1.0 - tail : tail;
    }

    /** Quantiles at integer degrees of freedom 1 … 64 by probability (the verdicts' hot path): NaN until computed. */
    private static final ConcurrentHashMap<Double, double[]> BY_DF = new ConcurrentHashMap<>();

    /** A table row: the quantiles of one probability by degrees of freedom. */
    private record Row(double p, double[] q) {
    }

    /** The rows asked for last, searched before the map (no boxing on the verdicts' hot path). */
    private static final Row[] RECENT = new Row[8];
    private static int next;

    /** The p-quantile of Student's t with integer {@code df} degrees of freedom (a table lookup after the first). */
    static double tQuantile(double p, int df) {
        if (df < 1 || df > 64) {
            return tQuantile(p, (double) df);
        }
        double[] row = null;
        for (Row r : RECENT) {
            if (r != null && r.p() == p) {
                row = r.q();
                break;
            }
        }
        if (row == null) {
            row = BY_DF.computeIfAbsent(p, k -> {
                double[] r = new double[65];
                Arrays.fill(r, Double.NaN);
                return r;
            });
            synchronized (RECENT) {
                RECENT[next] = new Row(p, row);
                next = (next + 1) % RECENT.length;
            }
        }
        double q = row[df];
        if (Double.isNaN(q)) {
            q = tQuantile(p, (double) df);
            row[df] = q;
        }
        return q;
    }

    /** The p-quantile of Student's t with {@code df} degrees of freedom, 0 < p < 1. */
    static double tQuantile(double p, double df) {
        requireProbability(p);
        requirePositive(df, "df");
        if (p == 0.5) {
            return 0.0;
        }
        return QUANTILES.computeIfAbsent(new Key(df, p), k -> {
            if (p < 0.5) {
                return -tQuantile(1 - p, df);
            }
            double hi = 1.0;
            while (tCdf(hi, df) < p) {
                hi *= 2;
            }
            return bisect(v -> tCdf(v, df), p, 0.0, hi);
        });
    }

    /** I_x(a, b), the regularized incomplete beta function, for 0 ≤ x ≤ 1 and a, b > 0. */
    static double regularizedBeta(double x, double a, double b) {
        if (x <= 0) {
            return 0.0;
        }
        if (x >= 1) {
            return 1.0;
        }
        double lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
        double front = Math.exp(lnFront);
        if (x < (a + 1) / (a + b + 2)) {
            return front * betaContinuedFraction(x, a, b) / a;
        }
        return 1.0 - front * betaContinuedFraction(1 - x, b, a) / b;
    }

    private static double betaContinuedFraction(double x, double a, double b) {
        double qab = a + b;
        double qap = a + 1;
        double qam = a - 1;
        Lentz f = new Lentz(1.0 - qab * x / qap);
        double h = f.d;
        for (int m = 1; m <= 10_000; m++) {
            int m2 = 2 * m;
            h *= f.step(m * (b - m) * x / ((qam + m2) * (a + m2)));
            double del = f.step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
            h *= del;
            if (Math.abs(del - 1.0) < 1e-15) {
                break;
            }
        }
        return h;
    }

    /** The state of the modified Lentz method (Numerical Recipes 6.4) for a continued fraction: one term a step. */
    private static final class Lentz {
        private static final double TINY = 1e-300;
        private double c = 1.0;
        private double d;

        Lentz(double d0) {
            d = 1.0 / awayFromZero(d0);
        }

        /** Takes the term {@code aa}; returns the factor the fraction's value is multiplied by. */
        double step(double aa) {
            d = 1.0 / awayFromZero(1.0 + aa * d);
            c = awayFromZero(1.0 + aa / c);
            return d * c;
        }

        private static double awayFromZero(double v) {
            return Math.abs(v) < TINY ? TINY : v;
        }
    }

    private static final double[] LANCZOS = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7};

    /** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: ~1e-15 relative). */
    static double logGamma(double x) {
        if (x < 0.5) {
            // reflection: Γ(x)Γ(1−x) = π / sin(πx)
            return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
        }
        double z = x - 1;
        double sum = LANCZOS[0];
        double t = z + 7.5;
        for (int i = 1; i < LANCZOS.length; i++) {
            sum += LANCZOS[i] / (z + i);
        }
        return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
    }

    private static double bisect(DoubleUnaryOperator cdf, double p, double lo, double hi) {
        for (int i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1.0, Math.abs(hi)); i++) {
            double mid = 0.5 * (lo + hi);
            if (cdf.applyAsDouble(mid) < p) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return 0.5 * (lo + hi);
    }

    private static void requireProbability(double p) {
        if (!(p > 0 && p < 1)) {
            throw new IllegalArgumentException("probability (" + p + ") must be in (0, 1)");
        }
    }

    private static void requirePositive(double v, String what) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(what + " (" + v + ") must be a positive number");
        }
    }
}
