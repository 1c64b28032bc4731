package io.isobench.analysis;

import java.util.Locale;

/**
 * Whether a task's replay carries signal on this hardware: {@code valid} only when human vs baseline is better or
 * worse; {@code low_signal} tasks are reported but kept out of headline numbers.
 */
public enum ReplayValidity {
    VALID, LOW_SIGNAL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ReplayValidity of(Verdict humanVsBaseline) {
        return humanVsBaseline != null && humanVsBaseline.significant() ? VALID : LOW_SIGNAL;
    }
}
