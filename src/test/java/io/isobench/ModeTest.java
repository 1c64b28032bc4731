package io.isobench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one mode detector. Before it there were three (legacy import, HF export, perf_command parser), and they
 * disagreed on SGLang's {@code bench_serving}: serving for the legacy import, unknown for the other two. The docs
 * decide serving: legacy-import.md reads R9 (SGLang) files like R1, whose mode comes from the perf_command, and
 * DESIGN names SGLang as the next engine; the legacy import's expected results already count it as serving.
 */
class ModeTest {

    @Test
    void theCommandNamesTheMode() {
        assertThat(Mode.ofCommand("python benchmarks/benchmark_serving.py --model m --dataset-name random"))
                .contains(Mode.SERVING);
        assertThat(Mode.ofCommand("vllm bench serve --model m")).contains(Mode.SERVING);
        assertThat(Mode.ofCommand("VLLM BENCH THROUGHPUT --model m")).contains(Mode.THROUGHPUT);
        assertThat(Mode.ofCommand("python3 benchmarks/benchmark_latency.py --batch-size 8")).contains(Mode.LATENCY);
        assertThat(Mode.ofCommand("python benchmarks/benchmark_prefix_caching.py --model m")).contains(Mode.PREFIX_CACHING);
        assertThat(Mode.ofCommand("vllm serve m --port 8000")).isEmpty();
        assertThat(Mode.ofCommand("python benchmarks/kernels/benchmark_moe.py")).isEmpty();
        assertThat(Mode.ofCommand(null)).isEmpty();
    }

    @Test
    void sglangBenchServingIsServing() {
        assertThat(Mode.ofCommand("python -m sglang.bench_serving --backend sglang --model m --num-prompts 100"))
                .contains(Mode.SERVING);
    }
}
