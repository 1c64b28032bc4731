package io.isobench.parse;

import io.isobench.Mode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The format variants of legacy-import.md "Console formats" that the sample files do not all show. */
class OutputParserFormatsTest {

    static final String MODERN_BLOCK = """
            ============ Serving Benchmark Result ============
            Successful requests:                     1000      \s
            Failed requests:                         3         \s
            Maximum request concurrency:             64        \s
            Request rate configured (RPS):           10.00     \s
            Benchmark duration (s):                  101.23    \s
            Total input tokens:                      1024000   \s
            Total generated tokens:                  128000    \s
            Request throughput (req/s):              9.88      \s
            Request goodput (req/s):                 9.50      \s
            Output token throughput (tok/s):         1264.45   \s
            Peak output token throughput (tok/s):    2048.00   \s
            Peak concurrent requests:                70.00     \s
            Total Token throughput (tok/s):          11379.99  \s
            ---------------Time to First Token----------------
            Mean TTFT (ms):                          45.12     \s
            Median TTFT (ms):                        40.00     \s
            Std TTFT (ms):                           5.01      \s
            P90 TTFT (ms):                           60.00     \s
            P95 TTFT (ms):                           70.00     \s
            P99 TTFT (ms):                           90.00     \s
            P99.9 TTFT (ms):                         95.50     \s
            -----Time per Output Token (excl. 1st token)------
            Mean TPOT (ms):                          12.34     \s
            Median TPOT (ms):                        12.00     \s
            P99 TPOT (ms):                           20.00     \s
            ---------------Inter-token Latency----------------
            Mean ITL (ms):                           12.40     \s
            Median ITL (ms):                         11.00     \s
            P99 ITL (ms):                            40.00     \s
            ----------------End-to-end Latency----------------
            Mean E2EL (ms):                          1500.00   \s
            Median E2EL (ms):                        1400.00   \s
            P99 E2EL (ms):                           2900.00   \s
            ---------------Speculative Decoding---------------
            Acceptance rate (%):                     71.20     \s
            ==================================================
            """;

    @Test
    void newerRowsAreParsedAndNonMetricRowsIgnored() {
        ParsedOutput p = OutputParser.parse(MODERN_BLOCK);
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(p.value("failed_requests")).hasValue(3);
        assertThat(p.value("request_goodput_rps")).hasValue(9.50);
        assertThat(p.value("peak_output_throughput_tok_s")).hasValue(2048.00);
        assertThat(p.value("peak_concurrent_requests")).hasValue(70.00);
        assertThat(p.value("ttft_ms_std")).hasValue(5.01);
        assertThat(p.value("ttft_ms_p90")).hasValue(60.00);
        assertThat(p.value("ttft_ms_p95")).hasValue(70.00);
        assertThat(p.value("ttft_ms_p99.9")).hasValue(95.50);
        assertThat(p.value("e2el_ms_mean")).hasValue(1500.00);
        assertThat(p.value("e2el_ms_p99")).hasValue(2900.00);
        assertThat(p.value("tpot_ms_mean")).hasValue(12.34);
        assertThat(p.metrics()).allMatch(m -> MetricDictionary.lookup(m.name()) != null);
        assertThat(p.metrics()).noneMatch(m -> m.name().contains("concurrency") || m.name().contains("accept"));
        assertThat(p.workload()).isEqualTo(new Workload(1000L, 1024000L, 128000L));
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void ansiCarriageReturnsAndGluedProgressBars() {
        String text = "\u001B[1;36m(APIServer pid=1)\u001B[0;0m INFO started\n"
                + "  0%|          | 0/100 [00:00<?, ?it/s]\r 50%|█████     | 50/100 [00:01<00:01, 50.0it/s]\r"
                + "100%|██████████| 100/100 [00:02<00:00, 49.1it/s]============ Serving Benchmark Result ============\r\n"
                + "\u001B[32mSuccessful requests:                     100       \u001B[0m\r\n"
                + "Request throughput (req/s):              49.10     \r\n"
                + "INFO:     127.0.0.1:1 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
                + "Mean TPOT (ms):                          7.25      \r\n"
                + "==================================================\r\n";
        ParsedOutput p = OutputParser.parse(text);
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(p.value("completed_requests")).hasValue(100);
        assertThat(p.value("request_throughput_rps")).hasValue(49.10);
        assertThat(p.value("tpot_ms_mean")).hasValue(7.25);
        assertThat(p.evidence().get("completed_requests")).isEqualTo("Successful requests:                     100");
    }

    @Test
    void throughputGluedToProgressBar() {
        String text = "Processed prompts: 100%|██████████| 1000/1000 [01:48<00:00,  9.22it/s, est. speed input: 9441.57 toks/s, "
                + "output: 2360.39 toks/s]Throughput: 9.18 requests/s, 11745.11 tokens/s\n";
        ParsedOutput p = OutputParser.parse(text);
        assertThat(p.mode()).isEqualTo(Mode.THROUGHPUT);
        assertThat(p.value("total_throughput_tok_s")).hasValue(11745.11);
        assertThat(p.value("output_throughput_tok_s")).isEmpty(); // est. speed outside prefix caching is not a metric
    }

    @Test
    void latencyWithExponentFloatsAndMissing99() {
        String text = "Avg latency: 4.5e-05 seconds\n10% percentile latency: 1E-5 seconds\n"
                + "50% percentile latency: 3.2030584950697083 seconds\n90% percentile latency: 12 seconds\n";
        ParsedOutput p = OutputParser.parse(text);
        assertThat(p.mode()).isEqualTo(Mode.LATENCY);
        assertThat(p.value("latency_ms_avg")).hasValue(4.5e-05 * 1000.0);
        assertThat(p.value("latency_ms_p10")).hasValue(1E-5 * 1000.0);
        assertThat(p.value("latency_ms_p50")).hasValue(3.2030584950697083 * 1000.0);
        assertThat(p.value("latency_ms_p90")).hasValue(12000.0);
        assertThat(p.value("latency_ms_p99")).isEmpty();
    }

    @Test
    void headerWithoutRowsIsNoMetrics() {
        ParsedOutput empty = OutputParser.parse("""
                ============ Serving Benchmark Result ============
                ==================================================
                """);
        assertThat(empty.hasMetrics()).isFalse();
        assertThat(empty.emptyResultBlock()).isTrue();

        ParsedOutput rulesOnly = OutputParser.parse("""
                ============ Serving Benchmark Result ============
                ---------------Time to First Token----------------
                Mean TTFT (ms):                          nan
                ==================================================
                """);
        assertThat(rulesOnly.hasMetrics()).isFalse();
        assertThat(rulesOnly.warnings()).anyMatch(w -> w.contains("ttft_ms_mean") && w.contains("finite"));
    }

    @Test
    void firstCompleteBlockWinsEvenAfterAnEmptyEcho() {
        String text = "============ Serving Benchmark Result ============\n==================================================\n"
                + "============ Serving Benchmark Result ============\nMean TPOT (ms):   5.00\n=================\n"
                + "============ Serving Benchmark Result ============\nMean TPOT (ms):   9.00\n=================\n";
        ParsedOutput p = OutputParser.parse(text);
        assertThat(p.value("tpot_ms_mean")).hasValue(5.00);
        assertThat(p.emptyResultBlock()).isFalse();
    }

    @Test
    void rowsBeforeAnyHeaderAreNotTrusted() {
        ParsedOutput p = OutputParser.parse("Mean TPOT (ms):   5.00\n");
        assertThat(p.hasMetrics()).isFalse();
        assertThat(p.mode()).isNull();
    }

    @Test
    void unterminatedLastLineIsIgnoredOnlyForHeadTruncatedText() {
        String text = "============ Serving Benchmark Result ============\nMean TTFT (ms):   25.71\nMean TPOT (ms):   4.7";
        ParsedOutput cut = OutputParser.parse(text, OutputParser.Truncation.HEAD_KEPT);
        assertThat(cut.value("tpot_ms_mean")).isEmpty();
        assertThat(cut.value("ttft_ms_mean")).hasValue(25.71);
        ParsedOutput whole = OutputParser.parse(text);
        assertThat(whole.value("tpot_ms_mean")).hasValue(4.7);
        assertThat(whole.warnings()).anyMatch(w -> w.contains("tpot_ms_mean") && w.contains("no newline"));
    }

    @Test
    void prefixCachingNeedsTheStartMarker() {
        String speed = "Processed prompts: 100%|█| 100/100 [00:05<00:00, 16.98it/s, est. speed input: 10954.21 toks/s, output: 3396.65 toks/s]\n";
        assertThat(OutputParser.parse(speed).hasMetrics()).isFalse();
        ParsedOutput p = OutputParser.parse("------warm up------\n" + speed + "------start generating------\n"
                + speed.replace("3396.65", "3400.01") + "cost time 6.5\n");
        assertThat(p.mode()).isEqualTo(Mode.PREFIX_CACHING);
        assertThat(p.value("output_throughput_tok_s")).hasValue(3400.01);
        assertThat(p.value("duration_s")).hasValue(6.5);
    }

    @Test
    void microErrorObjectsAreKeptButGiveNoMetric() {
        ParsedOutput p = OutputParser.parse("{\"impl_tag\": \"child\", \"error\": \"CUDA not available\"}\n");
        assertThat(p.mode()).isEqualTo(Mode.MICRO);
        assertThat(p.hasMetrics()).isFalse();
        assertThat(p.micro()).singleElement().satisfies(m -> assertThat(m.error()).isEqualTo("CUDA not available"));
    }

    @Test
    void evidenceIsRedacted() {
        ParsedOutput p = OutputParser.parse("Throughput: 1.00 requests/s, 2.00 tokens/s hf_abcdefghijklmnopqrstuvwxyz\n");
        assertThat(p.evidence().get("total_throughput_tok_s")).doesNotContain("abcdefghijklmnop").contains("hf_***");
    }

    @Test
    void valuesThatOverflowWhenScaledAreSkipped() {
        ParsedOutput p = OutputParser.parse("Avg latency: 1e306 seconds\n50% percentile latency: 0.5 seconds\n");
        assertThat(p.value("latency_ms_avg")).isEmpty();
        assertThat(p.warnings()).anyMatch(w -> w.contains("latency_ms_avg"));
        assertThat(p.warnings()).noneMatch(w -> w.startsWith("parser error"));
    }

    @Test
    void nullAndEmptyInput() {
        assertThat(OutputParser.parse(null).hasMetrics()).isFalse();
        assertThat(OutputParser.parse("").mode()).isNull();
        assertThat(OutputParser.parse("\n\n\r\r").metrics()).isEmpty();
    }

    @Test
    void workloadFingerprintComparison() {
        Workload a = new Workload(100L, 23958L, 6400L);
        assertThat(a.sameAs(new Workload(100L, 23958L, 6400L))).isTrue();
        assertThat(a.sameAs(new Workload(100L, 23958L, null))).isTrue();
        assertThat(a.sameAs(new Workload(100L, 25600L, 6400L))).isFalse();
        assertThat(a.sameAs(new Workload(null, null, null))).isFalse();
        assertThat(a.sameAs(null)).isFalse();
    }
}
