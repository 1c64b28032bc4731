package io.isobench.parse;

import io.isobench.Mode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SaveResultParserTest {

    /** Shape of {@code vllm bench serve --save-result} (vLLM 0.10/0.11), arrays shortened. */
    static final String SERVE = """
            {"date": "20251125-101500", "endpoint_type": "vllm", "backend": "vllm", "label": null,
             "model_id": "meta-llama/Llama-3.1-8B-Instruct", "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
             "num_prompts": 100, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": null,
             "duration": 12.5, "completed": 100, "failed": 0,
             "total_input_tokens": 102400, "total_output_tokens": 12800,
             "request_throughput": 8.0, "request_goodput": null,
             "output_throughput": 1024.0, "total_token_throughput": 9216.0,
             "max_output_tokens_per_s": 1800.0, "max_concurrent_requests": 100,
             "input_lens": [1024, 1024], "output_lens": [128, 128], "ttfts": [0.1, 0.2], "itls": [[0.01], [0.02]],
             "generated_texts": ["a", "b"], "errors": ["", ""],
             "mean_ttft_ms": 150.5, "median_ttft_ms": 140.0, "std_ttft_ms": 20.25, "p99_ttft_ms": 300.0,
             "mean_tpot_ms": 11.32, "median_tpot_ms": 11.0, "std_tpot_ms": 1.5, "p99_tpot_ms": 15.0,
             "mean_itl_ms": 11.4, "median_itl_ms": 10.0, "std_itl_ms": 3.0, "p99_itl_ms": 50.0, "p99.9_itl_ms": 70.0,
             "mean_e2el_ms": 1600.0, "median_e2el_ms": 1550.0, "std_e2el_ms": 100.0, "p99_e2el_ms": 2000.0}
            """;

    @Test
    void servingSaveResult() {
        ParsedOutput p = SaveResultParser.parse(SERVE);
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(p.value("tpot_ms_mean")).hasValue(11.32);
        assertThat(p.value("ttft_ms_std")).hasValue(20.25);
        assertThat(p.value("itl_ms_p99.9")).hasValue(70.0);
        assertThat(p.value("e2el_ms_p99")).hasValue(2000.0);
        assertThat(p.value("completed_requests")).hasValue(100);
        assertThat(p.value("failed_requests")).hasValue(0);
        assertThat(p.value("duration_s")).hasValue(12.5);
        assertThat(p.value("request_throughput_rps")).hasValue(8.0);
        assertThat(p.value("output_throughput_tok_s")).hasValue(1024.0);
        assertThat(p.value("total_throughput_tok_s")).hasValue(9216.0);
        assertThat(p.value("peak_output_throughput_tok_s")).hasValue(1800.0);
        assertThat(p.value("peak_concurrent_requests")).hasValue(100);
        assertThat(p.value("request_goodput_rps")).isEmpty();
        assertThat(p.workload()).isEqualTo(new Workload(100L, 102400L, 12800L));
        assertThat(p.evidence().get("tpot_ms_mean")).isEqualTo("\"mean_tpot_ms\": 11.32");
        assertThat(p.metrics()).hasSize(27);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void nanValuesAndRequestErrorsAreWarnings() {
        ParsedOutput p = SaveResultParser.parse("{\"completed\": 0, \"mean_tpot_ms\": NaN, \"errors\": [\"timeout\", \"\"]}");
        assertThat(p.value("tpot_ms_mean")).isEmpty();
        assertThat(p.warnings()).anyMatch(w -> w.contains("tpot_ms_mean")).anyMatch(w -> w.contains("1 request(s)"));
    }

    @Test
    void throughputOutputJson() {
        ParsedOutput p = SaveResultParser.parse("""
                {"elapsed_time": 19.97, "num_requests": 1000, "total_num_tokens": 512000,
                 "requests_per_second": 50.08, "tokens_per_second": 19152.84}""");
        assertThat(p.mode()).isEqualTo(Mode.THROUGHPUT);
        assertThat(p.value("total_throughput_tok_s")).hasValue(19152.84);
        assertThat(p.value("request_throughput_rps")).hasValue(50.08);
        assertThat(p.value("completed_requests")).hasValue(1000);
        assertThat(p.value("duration_s")).hasValue(19.97);
        assertThat(p.primary()).map(Metric::value).contains(19152.84);
    }

    @Test
    void latencyOutputJsonInSecondsBecomesMilliseconds() {
        ParsedOutput p = SaveResultParser.parse("""
                {"avg_latency": 0.21743229990000448, "latencies": [0.2, 0.21],
                 "percentiles": {"10": 0.20845436100134976, "25": 0.2087, "50": 0.2091101064979739,
                                 "75": 0.2096, "90": 0.2117, "99": 0.38185959188827856}}""");
        assertThat(p.mode()).isEqualTo(Mode.LATENCY);
        assertThat(p.value("latency_ms_avg")).hasValue(217.4322999000045);
        assertThat(p.value("latency_ms_p99")).hasValue(0.38185959188827856 * 1000.0);
        assertThat(p.metrics()).hasSize(7);
    }

    @Test
    void invalidInputNeverThrows() {
        assertThat(SaveResultParser.parse(null).hasMetrics()).isFalse();
        assertThat(SaveResultParser.parse("{\"throughput_tok_s\": ,}").warnings()).singleElement()
                .satisfies(w -> assertThat(w).startsWith("not valid JSON"));
        assertThat(SaveResultParser.parse("[1,2]").hasMetrics()).isFalse();
        assertThat(SaveResultParser.parse("{\"foo\": 1}").warnings()).anyMatch(w -> w.contains("none of the keys"));
        assertThat(SaveResultParser.parse("[".repeat(100_000)).hasMetrics()).isFalse();
        assertThat(SaveResultParser.parse("{\"mean_tpot_ms\": \"fast\"}").warnings()).anyMatch(w -> w.contains("fast"));
    }
}
