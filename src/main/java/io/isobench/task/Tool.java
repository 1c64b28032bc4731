package io.isobench.task;

import io.isobench.Mode;

import java.util.Optional;

/** The benchmark entry point a perf_command invokes. */
public enum Tool {
    BENCHMARK_SERVING("benchmarks/benchmark_serving.py", Mode.SERVING),
    BENCHMARK_THROUGHPUT("benchmarks/benchmark_throughput.py", Mode.THROUGHPUT),
    BENCHMARK_LATENCY("benchmarks/benchmark_latency.py", Mode.LATENCY),
    BENCHMARK_PREFIX_CACHING("benchmarks/benchmark_prefix_caching.py", Mode.PREFIX_CACHING),
    VLLM_BENCH_SERVE("vllm bench serve", Mode.SERVING),
    VLLM_BENCH_THROUGHPUT("vllm bench throughput", Mode.THROUGHPUT),
    VLLM_BENCH_LATENCY("vllm bench latency", Mode.LATENCY),
    /** A script isobench has no adapter for (kernel micro-benchmarks, custom scripts). */
    OTHER_SCRIPT(null, null),
    /** Not a recognisable benchmark command, or no command at all. */
    NONE(null, null);

    private final String canonical;
    private final Mode mode;

    Tool(String canonical, Mode mode) {
        this.canonical = canonical;
        this.mode = mode;
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
