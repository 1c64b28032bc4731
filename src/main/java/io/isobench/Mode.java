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

    /**
     * The mode a benchmark command measures, read from its text (case-insensitive; legacy-import.md, "Mode"):
     * {@code prefix_caching} → prefix_caching; {@code benchmark_serving}, {@code bench serve} or SGLang's
     * {@code bench_serving} → serving; {@code benchmark_throughput} or {@code bench throughput} → throughput;
     * {@code benchmark_latency} or {@code bench latency} → latency. Empty for anything else, and for null. The one
     * detector: the legacy import, the HF export and the perf_command parser all ask it.
     */
    public static Optional<Mode> ofCommand(String command) {
        if (command == null) {
            return Optional.empty();
        }
        String c = command.toLowerCase(Locale.ROOT);
        if (c.contains("prefix_caching")) {
            return Optional.of(PREFIX_CACHING);
        }
        if (c.contains("benchmark_serving") || c.contains("bench serve") || c.contains("bench_serving")) {
            return Optional.of(SERVING);
        }
        if (c.contains("benchmark_throughput") || c.contains("bench throughput")) {
            return Optional.of(THROUGHPUT);
        }
        if (c.contains("benchmark_latency") || c.contains("bench latency")) {
            return Optional.of(LATENCY);
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return label;
    }
}
