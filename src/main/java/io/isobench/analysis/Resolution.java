package io.isobench.analysis;

import java.util.Locale;

/**
 * How finely a task's primary metric was measured, against the margin its verdicts use (docs/statistics.md §3b): the
 * coarsest resolution any counted run recorded ({@code extra_json.metric_resolution}: 1 µs for CPU time from a cgroup,
 * 10 ms clock ticks from {@code times}), relative to the baseline's median value. A step larger than a tenth of the
 * margin is <b>coarse</b>: differences of a few steps are then within reach of the margin, and the verdict says so
 * (flagged, not changed: the interval already carries the quantisation as noise).
 *
 * @param metric        the primary metric
 * @param resolution    the coarsest step, in the metric's unit
 * @param source        what measured it ({@code cgroup_v2_cpu_stat}, {@code sh_times_clock_ticks}, …)
 * @param relativePct   the step as a percentage of the baseline's median value; null when there is no median
 * @param coarse        the step exceeds a tenth of the margin
 */
public record Resolution(String metric, double resolution, String source, Double relativePct, boolean coarse) {

    /** A step above this fraction of the margin is coarse. */
    static final double COARSE_FRACTION_OF_MARGIN = 0.1;

    static Resolution of(String metric, double resolution, String source, Double baselineMedian, StatsConfig config) {
        Double rel = baselineMedian == null || !(baselineMedian > 0) ? null : resolution / baselineMedian * 100;
        boolean coarse = rel != null && rel > COARSE_FRACTION_OF_MARGIN * config.minEffectPct();
        return new Resolution(metric, resolution, source, rel, coarse);
    }

    /**
     * One line: {@code command_cpu_s measured in steps of 0.01 (sh_times_clock_ticks) = 1.8 % of the baseline's median:
     * coarse against the ±2 % margin …}.
     */
    public String describe(StatsConfig config) {
        String step = String.format(Locale.ROOT, "%s measured in steps of %s (%s)", metric, StatsConfig.fmt(resolution),
                source);
        if (relativePct == null) {
            return step;
        }
        return String.format(Locale.ROOT, "%s = %.3g %% of the baseline's median: %s", step, relativePct,
                coarse ? "coarse against the ±" + StatsConfig.fmt(config.minEffectPct()) + " % margin (a few steps"
                        + " reach it; read verdicts near the margin with care)" : "fine against the ±"
                        + StatsConfig.fmt(config.minEffectPct()) + " % margin");
    }
}
