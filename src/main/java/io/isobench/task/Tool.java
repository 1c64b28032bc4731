package io.isobench.task;

import io.isobench.Mode;

import java.util.Optional;

/** The benchmark entry point a perf_command invokes. */
public enum Tool {
    BENCHMARK_SERVING("benchmarks/benchmark_serving.py"),
    BENCHMARK_THROUGHPUT("benchmarks/benchmark_throughput.py"),
    BENCHMARK_LATENCY("benchmarks/benchmark_latency.py"),
    BENCHMARK_PREFIX_CACHING("benchmarks/benchmark_prefix_caching.py"),
    VLLM_BENCH_SERVE("vllm bench serve"),
    VLLM_BENCH_THROUGHPUT("vllm bench throughput"),
    VLLM_BENCH_LATENCY("vllm bench latency"),
    /** A script isobench has no adapter for (kernel micro-benchmarks, custom scripts). */
    OTHER_SCRIPT(null),
    /** Not a recognisable benchmark command, or no command at all. */
    NONE(null);

    private final String canonical;
    private final Mode mode;

    Tool(String canonical) {
        this.canonical = canonical;
        this.mode = Mode.ofCommand(canonical).orElse(null); // the one mode detector, on the canonical form
    }

    /** The repo-relative script or CLI form, e.g. {@code benchmarks/benchmark_serving.py}; null for OTHER/NONE. */
    public String canonical() {
        return canonical;
    }

    public Optional<Mode> mode() {
        return Optional.ofNullable(mode);
    }

    public boolean isServing() {
        return mode == Mode.SERVING;
    }

    public boolean isScript() {
        return name().startsWith("BENCHMARK_");
    }
}
