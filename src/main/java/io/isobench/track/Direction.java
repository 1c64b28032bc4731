package io.isobench.track;

import io.isobench.parse.Better;

import java.util.Locale;

/** Which way a change moved the work: {@code faster}, {@code slower} or {@code none} (the names are a contract). */
public enum Direction {
    FASTER, SLOWER, NONE;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The direction of a change of the metric's value by the log ratio {@code logChange} (new / old): a lower-is-better
     * metric that rises is slower, a higher-is-better one that rises is faster; 0 is none.
     */
    public static Direction of(double logChange, Better better) {
        if (logChange == 0 || Double.isNaN(logChange)) {
            return NONE;
        }
        boolean up = logChange > 0;
        return (better == Better.HIGHER) == up ? FASTER : SLOWER;
    }
}
