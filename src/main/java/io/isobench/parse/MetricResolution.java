package io.isobench.parse;

import java.util.Objects;

/**
 * How finely a metric isobench measured itself can tell two values apart, and how it was measured: stored with every
 * run ({@code extra_json.metric_resolution}), so that a difference smaller than a step of the clock is never read as
 * a speed-up. The source is kept as text: a store written by a later isobench may name a source this one does not
 * know.
 *
 * @param resolution the smallest step of the value, in the metric's unit (&gt; 0)
 * @param source     what measured it ({@code monotonic_clock}, {@code cgroup_v2_cpu_stat},
 *                   {@code sh_times_clock_ticks}, …)
 */
public record MetricResolution(double resolution, String source) {

    /** Wall time from {@code System.nanoTime()}: nanoseconds. */
    public static final MetricResolution MONOTONIC_CLOCK = new MetricResolution(1e-9, "monotonic_clock");
    /** CPU time from a cgroup v2's {@code cpu.stat} {@code usage_usec}: microseconds. */
    public static final MetricResolution CGROUP_CPU_STAT = new MetricResolution(1e-6, "cgroup_v2_cpu_stat");
    /** CPU time from the {@code times} builtin of a POSIX {@code sh}: clock ticks of 10 ms ({@code CLK_TCK} 100). */
    public static final MetricResolution SH_TIMES = new MetricResolution(0.01, "sh_times_clock_ticks");

    public MetricResolution {
        Objects.requireNonNull(source, "source");
        if (!(resolution > 0) || Double.isInfinite(resolution)) {
            throw new IllegalArgumentException("resolution (" + resolution + ") must be a finite number > 0");
        }
    }
}
