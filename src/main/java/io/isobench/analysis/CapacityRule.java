package io.isobench.analysis;

import java.util.List;

/**
 * The capacity rule of a load sweep (docs/statistics.md, "Load sweeps and capacity"), on one arm's runs of one round:
 * a point is <b>met</b> when its run is valid and the share of its requests that met every {@code --goodput} SLO
 * target is at least the sweep's {@code min_good_fraction}; the round's capacity is the highest point that is met
 * together with every lower point. Below the lowest point (the lowest is not met) the sample is half the lowest point,
 * a censored value that keeps the paired log ratios defined; at the highest point the sample is the highest point
 * (the true capacity may be higher). Pure functions, tested on constructed data.
 */
public final class CapacityRule {

    private CapacityRule() {
    }

    /**
     * The share of a run's requests that met every SLO target: good requests / requests sent, where good requests =
     * request_goodput_rps × (completed / request_throughput_rps) as {@code vllm bench serve} counts goodput; null when
     * the run has no goodput (no {@code --goodput} targets) or completed nothing.
     */
    public static Double goodFraction(Double goodputRps, Double throughputRps, Double completed, Double failed) {
        if (goodputRps == null || throughputRps == null || completed == null || !(throughputRps > 0)
                || !(completed > 0)) {
            return null;
        }
        double good = goodputRps / throughputRps * completed;
        double sent = completed + (failed == null ? 0 : failed);
        return Math.min(1.0, good / sent);
    }

    /** A point is met: its run's good fraction is known and at least {@code minGoodFraction}. */
    public static boolean met(Double goodFraction, double minGoodFraction) {
        // a tolerance of 1e-9 so that 9 good of 10 meets 0.9 despite floating point
        return goodFraction != null && goodFraction >= minGoodFraction - 1e-9;
    }

    /**
     * The index of the round's capacity point: the highest index k such that points 0 … k are all met; −1 when the
     * lowest point is not met ("below the lowest point").
     *
     * @param metAscending per point, in ascending load order: met in this round
     */
    public static int capacityIndex(boolean[] metAscending) {
        int k = -1;
        while (k + 1 < metAscending.length && metAscending[k + 1]) {
            k++;
        }
        return k;
    }

    /**
     * The sample the verdict compares: the capacity point's load; half the lowest point when below it (censored).
     *
     * @param points the sweep's points, ascending
     * @param index  {@link #capacityIndex}
     */
    public static double sample(List<Double> points, int index) {
        if (points.isEmpty()) {
            throw new IllegalArgumentException("a sweep has points");
        }
        return index < 0 ? points.get(0) / 2 : points.get(index);
    }
}
