package io.isobench.analysis;

import java.util.Locale;

/**
 * Whether a task's replay carries the human's effect on this hardware: {@code valid} only when human vs baseline is
 * {@code better}; {@code reversed} when it is {@code worse} (the commit's improvement did not replay here: it made
 * things slower); {@code low_signal} otherwise (equivalent, inconclusive, failed, incorrect). Only valid tasks count
 * in leaderboards and opt_base / opt_human.
 */
public enum ReplayValidity {
    VALID, REVERSED, LOW_SIGNAL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ReplayValidity of(Verdict humanVsBaseline) {
        if (humanVsBaseline == Verdict.BETTER) {
            return VALID;
        }
        return humanVsBaseline == Verdict.WORSE ? REVERSED : LOW_SIGNAL;
    }
}
