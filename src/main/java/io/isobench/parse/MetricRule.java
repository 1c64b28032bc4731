package io.isobench.parse;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A metric a generic engine's command reports, declared in the suite ({@code metrics:} of an offline task): its name,
 * where it is read, its unit and direction, and whether it is the task's primary metric. The built-in metrics
 * {@link #WALL} and {@link #CPU} are measured by isobench around every offline command and have no read rule.
 *
 * @param name    the metric's name ({@code [a-z][a-z0-9_]*}); stored with every run that reported it
 * @param read    where and how the value is read; null for a built-in metric
 * @param unit    the value's unit ({@code tok/s}, {@code ms}…), stored beside every value
 * @param better  which way is an improvement (higher or lower; never none: the statistics judge it)
 * @param primary the metric the task's verdicts are computed on
 */
public record MetricRule(String name, ReadRule read, String unit, Better better, boolean primary) {

    /** Wall time of the command, seconds (measured by isobench, start to exit). */
    public static final String WALL = "command_wall_s";
    /** User + system CPU time of the command and the children it waited for, seconds. */
    public static final String CPU = "command_cpu_s";
    public static final List<String> BUILT_IN = List.of(WALL, CPU);
    public static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

    public MetricRule {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("metric name (" + name + ") must match " + NAME.pattern());
        }
        if (BUILT_IN.contains(name)) {
            if (read != null) {
                throw new IllegalArgumentException(name + " is measured by isobench; it has no read rule");
            }
            unit = "s";
            better = Better.LOWER;
        } else {
            Objects.requireNonNull(read, "read");
            if (unit == null || unit.isBlank()) {
                throw new IllegalArgumentException("metric " + name + " needs a unit");
            }
            if (better == null || better == Better.NONE) {
                throw new IllegalArgumentException("metric " + name + " direction (" + better
                        + ") must be higher or lower");
            }
        }
    }

    /** A built-in metric ({@link #WALL}, {@link #CPU}), possibly the primary one. */
    public static MetricRule builtIn(String name, boolean primary) {
        return new MetricRule(name, null, "s", Better.LOWER, primary);
    }

    public boolean builtIn() {
        return read == null;
    }

    /** This rule's value as a stored metric. */
    public Metric metric(double value) {
        return new Metric(name, value, unit, better);
    }
}
