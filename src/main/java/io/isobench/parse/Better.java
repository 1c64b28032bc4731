package io.isobench.parse;

/** Direction of a metric: which way is an improvement. */
public enum Better {
    LOWER, HIGHER, NONE;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
