package io.isobench;

import java.util.Locale;
import java.util.Optional;

/** Benchmark mode of a run; decides the primary metric (DESIGN.md §5). */
public enum Mode {
    SERVING("serving"),
    THROUGHPUT("throughput"),
    LATENCY("latency"),
    PREFIX_CACHING("prefix_caching"),
    /** Micro-benchmark (test-script) results: a different result kind, never a 3-way row. */
    MICRO("micro");

    private final String label;

    Mode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Case-insensitive lookup of a mode label; empty for anything else. */
    public static Optional<Mode> fromLabel(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (Mode m : values()) {
            if (m.label.equals(t)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return label;
    }
}
