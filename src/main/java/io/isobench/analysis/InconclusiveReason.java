package io.isobench.analysis;

import java.util.Locale;

/** Why a comparison is {@link Verdict#INCONCLUSIVE} (docs/statistics.md, "Verdicts"). */
public enum InconclusiveReason {
    /** Fewer valid paired rounds than the method needs. */
    TOO_FEW_ROUNDS("too few rounds"),
    /** Enough rounds were measured, but too many were excluded because the work done differed. */
    WORKLOAD_MISMATCH("workload mismatch"),
    /** Enough rounds were measured, but too many were excluded because the load generator was saturated (it, not the
     * server, set the numbers: docs/loadgen.md, "Client self-check"). */
    CLIENT_SATURATED("client saturated"),
    /** The paired rounds scatter more than the CV gate allows. */
    NOISY("noisy"),
    /** The interval is neither beyond the margin nor inside it. */
    WIDE_CI("wide CI"),
    /** The reference arm has no valid runs. */
    NO_REFERENCE("no reference"),
    /** A value is zero or negative: a ratio is undefined. */
    UNDEFINED("undefined"),
    /** The A/A comparison found the baseline's two environments differ: no comparison of the task can be trusted. */
    AA_UNSTABLE("A/A unstable"),
    /** An adaptive design stopped it early: more rounds were not expected to decide it (conditional power). */
    FUTILE("futile"),
    /** An ordinal metric (a sweep's capacity) whose rounds mostly fall on the same grid point: a difference, if any,
     * is finer than the sweep's grid. */
    BELOW_RESOLUTION("below the sweep's resolution");

    private final String label;

    InconclusiveReason(String label) {
        this.label = label;
    }

    /** The stored and shown name, e.g. {@code too few rounds}. */
    public String label() {
        return label;
    }

    /** {@code too_few_rounds}: for machine keys. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
