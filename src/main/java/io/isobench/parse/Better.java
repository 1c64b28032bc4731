package io.isobench.parse;

import java.util.Locale;

/** Direction of a metric: which way is an improvement. */
public enum Better {
    LOWER, HIGHER, NONE;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
