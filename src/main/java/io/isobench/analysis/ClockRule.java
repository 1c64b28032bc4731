package io.isobench.analysis;

import java.util.Locale;

/**
 * The GPU clock rule of a round (docs/statistics.md, "Which rounds count"; docs/gpu-telemetry.md): a run whose
 * mean SM clock differs from the baseline's run of the same round by more than {@code smClockPct} percent, or
 * whose throttle share (samples with a throttle reason) differs by more than {@code throttleShare}, is flagged as
 * {@link RoundExclusion.Cause#CLOCK_MISMATCH}; with {@code excludeOnMismatch} ({@code exclude_on_clock_mismatch})
 * it is also kept out of the comparison. Runs without telemetry on either side are never flagged.
 *
 * @param smClockPct        largest allowed difference of the mean SM clock, percent of the baseline's
 * @param throttleShare     largest allowed difference of the throttle share (0..1)
 * @param excludeOnMismatch exclude a flagged run (else it is shown and still counts)
 */
public record ClockRule(double smClockPct, double throttleShare, boolean excludeOnMismatch) {

    private static final ClockRule DEFAULTS = new ClockRule(3.0, 0.25, false);

    public ClockRule {
        if (!(smClockPct > 0) || Double.isInfinite(smClockPct)) {
            throw new IllegalArgumentException("smClockPct (" + smClockPct + ") must be a positive number");
        }
        if (!(throttleShare > 0 && throttleShare <= 1)) {
            throw new IllegalArgumentException("throttleShare (" + throttleShare + ") must be in (0, 1]");
        }
    }

    /** The defaults: 3 % SM clock, 0.25 throttle share, flag only (exclude_on_clock_mismatch off). */
    public static ClockRule defaults() {
        return DEFAULTS;
    }

    public ClockRule excluding(boolean exclude) {
        return new ClockRule(smClockPct, throttleShare, exclude);
    }

    /**
     * What differs between a run's clocks and the reference's, one line ({@code sm clock 1867.5 vs 1980 MHz
     * (-5.7 %)}), or null when within the rule or when either side has no telemetry.
     */
    public String difference(Double sm, Double throttle, Double refSm, Double refThrottle) {
        StringBuilder out = new StringBuilder();
        if (sm != null && refSm != null && refSm > 0) {
            double pct = (sm / refSm - 1) * 100;
            if (Math.abs(pct) > smClockPct) {
                out.append(String.format(Locale.ROOT, "sm clock %s vs %s MHz (%+.1f %%, limit %s %%)",
                        StatsConfig.fmt(sm), StatsConfig.fmt(refSm), pct, StatsConfig.fmt(smClockPct)));
            }
        }
        if (throttle != null && refThrottle != null && Math.abs(throttle - refThrottle) > throttleShare) {
            if (!out.isEmpty()) {
                out.append(", ");
            }
            out.append(String.format(Locale.ROOT, "throttle share %s vs %s (limit %s)", StatsConfig.fmt(throttle),
                    StatsConfig.fmt(refThrottle), StatsConfig.fmt(throttleShare)));
        }
        return out.isEmpty() ? null : out.toString();
    }
}
