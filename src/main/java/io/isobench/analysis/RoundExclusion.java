package io.isobench.analysis;

import java.util.Locale;

/**
 * A measured round of one arm that ran but is kept out of every comparison (docs/statistics.md, "Which rounds
 * count"), with the reason shown in reports. Runs that failed are outcomes, not exclusions.
 *
 * @param arm    arm label
 * @param round  the measured round, 0-based
 * @param cause  why
 * @param detail one line: what differed
 * @param excluded true when the run is kept out of the comparison; false for a round only flagged (a
 *                 {@link Cause#CLOCK_MISMATCH} without {@code exclude_on_clock_mismatch}): shown, still counted
 */
public record RoundExclusion(String arm, int round, Cause cause, String detail, boolean excluded) {

    /** An exclusion (the run does not count). */
    public RoundExclusion(String arm, int round, Cause cause, String detail) {
        this(arm, round, cause, detail, true);
    }

    /** Why a round is excluded. */
    public enum Cause {
        /** The run lost requests: it did less work than the others. */
        REQUESTS_FAILED,
        /** Its workload fingerprint differs from the baseline's run of the same round. */
        WORKLOAD_MISMATCH,
        /** It ran on other hardware than the baseline's run of the same round. */
        HARDWARE_MISMATCH,
        /** Its GPU clocks or throttle state differ from the baseline's run of the same round ({@link ClockRule}). */
        CLOCK_MISMATCH,
        /**
         * The load generator checked itself and was the bottleneck (its {@code client_check} section: saturated, with
         * the reasons): the client, not the server, set the numbers (docs/loadgen.md, "Client self-check").
         */
        CLIENT_SATURATED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public RoundExclusion {
        if (arm == null || cause == null) {
            throw new IllegalArgumentException("arm and cause must not be null");
        }
        if (round < 0) {
            throw new IllegalArgumentException("round (" + round + ") must be >= 0");
        }
    }

    /** One line for reports: {@code round 3, agent:alpha: workload_mismatch (output_tokens 1000 vs 1024)}. */
    public String oneLine() {
        return "round " + (round + 1) + ", " + arm + ": " + cause.label() + (detail == null ? "" : " (" + detail + ")")
                + (excluded ? "" : " [flagged, still counted]");
    }
}
