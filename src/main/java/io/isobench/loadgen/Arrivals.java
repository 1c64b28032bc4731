package io.isobench.loadgen;

import java.util.SplittableRandom;

/**
 * Arrival times as in {@code vllm bench serve}: gamma-distributed gaps with shape = burstiness and mean 1/rate
 * (burstiness 1 = Poisson; infinite = constant gaps of exactly 1/rate); for a fixed count without ramp-up the cumulative times are rescaled so the last arrival
 * lands at N/R. Ramp-up changes the rate per request (linear or exponential from start to end rate).
 */
final class Arrivals {

    private final double rate;
    private final double burstiness;
    private final LoadgenConfig.RampUp ramp;
    private final SplittableRandom rng;
    private final int total;
    private double cumulativeS;
    private int next;

    Arrivals(double rate, double burstiness, LoadgenConfig.RampUp ramp, long seed, int total) {
        this.rate = rate;
        this.burstiness = burstiness;
        this.ramp = ramp;
        this.rng = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.total = total;
    }

    /** Precomputed offsets (ns from start) for a fixed number of requests. */
    static long[] schedule(LoadgenConfig c, int n) {
        Arrivals a = new Arrivals(c.requestRate(), c.burstiness(), c.rampUp(), c.seed(), n);
        double[] s = new double[n];
        for (int i = 0; i < n; i++) {
            s[i] = a.nextSeconds();
        }
        if (c.rampUp() == null && !Double.isInfinite(c.requestRate()) && n > 0 && s[n - 1] > 0) {
            double f = (n / c.requestRate()) / s[n - 1];
            for (int i = 0; i < n; i++) {
                s[i] *= f;
            }
        }
        long[] ns = new long[n];
        for (int i = 0; i < n; i++) {
            ns[i] = (long) (s[i] * 1e9);
        }
        return ns;
    }

    /** The current request rate (for ramp-up), req/s. */
    double currentRate(int i) {
        if (ramp == null) {
            return rate;
        }
        double progress = total <= 1 ? 0 : (double) i / (total - 1);
        return switch (ramp.strategy()) {
            case "linear" -> ramp.startRps() + (ramp.endRps() - ramp.startRps()) * progress;
            default -> ramp.startRps() * Math.pow(ramp.endRps() / ramp.startRps(), progress);
        };
    }

    /** Cumulative arrival time of the next request, in seconds. */
    double nextSeconds() {
        double r = currentRate(next++);
        if (Double.isInfinite(r)) {
            return cumulativeS;
        }
        if (r <= 0) {
            r = 1e-3;
        }
        cumulativeS += Double.isInfinite(burstiness) ? 1.0 / r : gamma(burstiness, 1.0 / (r * burstiness));
        return cumulativeS;
    }

    /** Marsaglia–Tsang gamma sampler. */
    private double gamma(double shape, double scale) {
        if (shape < 1) {
            double u = rng.nextDouble();
            return gamma(shape + 1, scale) * Math.pow(u, 1.0 / shape);
        }
        double d = shape - 1.0 / 3.0;
        double c = 1.0 / Math.sqrt(9 * d);
        while (true) {
            double x;
            double v;
            do {
                x = normal();
                v = 1 + c * x;
            } while (v <= 0);
            v = v * v * v;
            double u = rng.nextDouble();
            if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
                return d * v * scale;
            }
        }
    }

    private double normal() {
        double u1 = rng.nextDouble();
        double u2 = rng.nextDouble();
        return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
    }
}
