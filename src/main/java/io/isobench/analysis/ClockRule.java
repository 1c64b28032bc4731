package io.isobench.analysis;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

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

    /** The key of this rule in a session's stored statistical settings ({@code stats_config_json}). */
    public static final String KEY = "clock_rule";

    /** The rule as the suite writes it ({@code run.exclude_on_clock_mismatch}, ...), for the session's settings. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("exclude_on_clock_mismatch", excludeOnMismatch);
        m.put("clock_mismatch_sm_pct", smClockPct);
        m.put("clock_mismatch_throttle_share", throttleShare);
        return m;
    }

    /**
     * The rule a session was run with, from its stored statistical settings ({@code stats_config_json}'s
     * {@link #KEY}); the defaults for a session stored before the rule was recorded (it ran with them). A recorded
     * rule that cannot be read is an error, never replaced by the defaults.
     */
    public static ClockRule ofSettings(String statsConfigJson) {
        if (statsConfigJson == null || statsConfigJson.isBlank()) {
            return DEFAULTS;
        }
        com.fasterxml.jackson.databind.JsonNode r;
        try {
            r = new com.fasterxml.jackson.databind.ObjectMapper().readTree(statsConfigJson).path(KEY);
        } catch (IOException e) {
            throw new IllegalArgumentException("the session's stats_config_json is not JSON: " + e.getMessage(), e);
        }
        if (r.isMissingNode() || r.isNull()) {
            return DEFAULTS;
        }
        if (!r.path("exclude_on_clock_mismatch").isBoolean() || !r.path("clock_mismatch_sm_pct").isNumber()
                || !r.path("clock_mismatch_throttle_share").isNumber()) {
            throw new IllegalArgumentException("the session's clock rule is unreadable: " + r);
        }
        return new ClockRule(r.get("clock_mismatch_sm_pct").asDouble(), r.get("clock_mismatch_throttle_share")
                .asDouble(), r.get("exclude_on_clock_mismatch").asBoolean());
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
