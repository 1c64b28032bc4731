package io.isobench.analysis;

import java.util.Locale;

/**
 * Verdicts of a comparison measured over rounds (docs/statistics.md; the names are a contract): {@link #label()} is
 * the stored and exported name. Single-run legacy rows never get one: they use {@link SingleRunRule}'s
 * win / tie / loss under a stated band.
 */
public enum Verdict {
    /** The CI lies above 1 and the estimate beyond the margin. */
    BETTER,
    /** The CI lies below 1 and the estimate beyond the margin on the other side. */
    WORSE,
    /** The equivalence (TOST) interval lies wholly inside ±margin. */
    EQUIVALENT,
    /** None of the above, with an {@link InconclusiveReason}. */
    INCONCLUSIVE,
    /** The arm has no valid runs. */
    FAILED,
    /** The arm's outputs failed the correctness gate: its speed is never called better. */
    INCORRECT;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** better or worse: a change was detected beyond the margin. */
    public boolean significant() {
        return this == BETTER || this == WORSE;
    }

    /** A verdict about speed (better, worse, equivalent, inconclusive), as opposed to an outcome (failed, incorrect). */
    public boolean aboutSpeed() {
        return this != FAILED && this != INCORRECT;
    }

    /** The verdict with this label. */
    public static Verdict fromLabel(String label) {
        for (Verdict v : values()) {
            if (v.label().equals(label)) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown verdict '" + label + "'");
    }
}
