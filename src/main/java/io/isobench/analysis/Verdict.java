package io.isobench.analysis;

import java.util.Locale;

/** Verdict classes of DESIGN §6 (a contract); {@link #label()} is the stored/exported name. */
public enum Verdict {
    BETTER, WORSE, TIE, INCONCLUSIVE, FAILED, INCORRECT;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** better or worse: the change is significant. */
    public boolean significant() {
        return this == BETTER || this == WORSE;
    }
}
