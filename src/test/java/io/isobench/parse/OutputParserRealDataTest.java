package io.isobench.parse;

import io.isobench.Mode;
import org.junit.jupiter.api.Test;

import static io.isobench.parse.RealFiles.CLAUDE;
import static io.isobench.parse.RealFiles.CODEX;
import static io.isobench.parse.RealFiles.CODEX_CLI;
import static org.assertj.core.api.Assertions.assertThat;

/** Exact values from the raw console text inside the real ISO-Bench files. */
class OutputParserRealDataTest {

    private static double v(ParsedOutput p, String name) {
        assertThat(p.value(name)).as(name).isPresent();
        return p.value(name).getAsDouble();
    }

    @Test
    void servingBlockWithHarnessEchoTakesTheFirstCompleteBlock() {
        ParsedOutput p = OutputParser.parse(RealFiles.field(CODEX + "results/aea94362_agent_result.json", "/raw_output"),
                OutputParser.Truncation.TAIL_KEPT);
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(v(p, "completed_requests")).isEqualTo(100);
        assertThat(v(p, "duration_s")).isEqualTo(0.89);
        assertThat(v(p, "total_input_tokens")).isEqualTo(23958);
        assertThat(v(p, "total_output_tokens")).isEqualTo(6400);
        assertThat(v(p, "request_throughput_rps")).isEqualTo(112.16);
        assertThat(v(p, "output_throughput_tok_s")).isEqualTo(7178.39);
        assertThat(v(p, "total_throughput_tok_s")).isEqualTo(34050.26);
        assertThat(v(p, "ttft_ms_mean")).isEqualTo(156.72);
        assertThat(v(p, "ttft_ms_median")).isEqualTo(151.30);
        assertThat(v(p, "ttft_ms_p99")).isEqualTo(213.92);
        assertThat(v(p, "tpot_ms_mean")).isEqualTo(11.32);
        assertThat(v(p, "tpot_ms_median")).isEqualTo(11.43);
        assertThat(v(p, "tpot_ms_p99")).isEqualTo(12.62);
        assertThat(v(p, "itl_ms_mean")).isEqualTo(11.32);
        assertThat(v(p, "itl_ms_median")).isEqualTo(10.18);
        assertThat(v(p, "itl_ms_p99")).isEqualTo(57.03);
        assertThat(p.metrics()).hasSize(16);
        assertThat(p.workload()).isEqualTo(new Workload(100L, 23958L, 6400L));
        assertThat(p.evidence().get("tpot_ms_mean")).isEqualTo("Mean TPOT (ms):                          11.32");
        assertThat(p.primary()).map(Metric::value).contains(11.32);
        assertThat(p.metric("tpot_ms_mean").orElseThrow().unit()).isEqualTo("ms");
        assertThat(p.warnings()).anyMatch(w -> w.contains("2 serving result blocks"));
        assertThat(p.emptyResultBlock()).isFalse();
    }

    @Test
    void oldVariantWithInputTokenThroughput() {
        ParsedOutput p = OutputParser.parse(
                RealFiles.field(CLAUDE + "results/separate_agent/6ce01f30_human_result.json", "/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(v(p, "input_throughput_tok_s")).isEqualTo(8056.06);
        assertThat(v(p, "output_throughput_tok_s")).isEqualTo(1790.90);
        assertThat(p.value("total_throughput_tok_s")).isEmpty();
        assertThat(v(p, "tpot_ms_mean")).isEqualTo(48.88);
        assertThat(v(p, "itl_ms_p99")).isEqualTo(1010.16);
        assertThat(p.workload()).isEqualTo(new Workload(100L, 25600L, 5691L));
    }

    @Test
    void oldestVariantWithoutItl() {
        ParsedOutput p = OutputParser.parse(
                RealFiles.field(CLAUDE + "results/separate_agent/8bc68e19_agent_result.json", "/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(v(p, "tpot_ms_mean")).isEqualTo(41.17);
        assertThat(v(p, "ttft_ms_p99")).isEqualTo(2537.00);
        assertThat(v(p, "input_throughput_tok_s")).isEqualTo(6547.18);
        assertThat(p.metrics()).noneMatch(m -> m.name().startsWith("itl_"));
        assertThat(p.workload()).isEqualTo(new Workload(100L, 50527L, 15100L));
    }

    @Test
    void shortBlockHasCountsAndRatesButNoLatencies() {
        ParsedOutput p = OutputParser.parse(
                RealFiles.field(CLAUDE + "results/separate_agent/cf2f084d_human_result.json", "/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(v(p, "completed_requests")).isEqualTo(100);
        assertThat(v(p, "duration_s")).isEqualTo(2.62);
        assertThat(v(p, "request_throughput_rps")).isEqualTo(38.17);
        assertThat(v(p, "output_throughput_tok_s")).isEqualTo(2443.12);
        assertThat(p.metrics()).hasSize(6);
        assertThat(p.primary()).isEmpty();
        assertThat(p.workload()).isEqualTo(new Workload(100L, 20000L, 6400L));
    }

    @Test
    void headTruncatedModalRaw() {
        String file = CLAUDE + "results/modal/299ebb62/benchmark_result.json";
        ParsedOutput p = OutputParser.parse(RealFiles.field(file, "/result/baseline_raw"), OutputParser.Truncation.HEAD_KEPT);
        assertThat(v(p, "tpot_ms_mean")).isEqualTo(4.76);
        assertThat(v(p, "itl_ms_p99")).isEqualTo(11.13);
        assertThat(p.workload()).isEqualTo(new Workload(100L, 51200L, 12800L));
        assertThat(v(OutputParser.parse(RealFiles.field(file, "/result/human_raw"), OutputParser.Truncation.HEAD_KEPT),
                "tpot_ms_mean")).isEqualTo(4.20);
        assertThat(v(OutputParser.parse(RealFiles.field(file, "/result/agent_raw"), OutputParser.Truncation.HEAD_KEPT),
                "tpot_ms_mean")).isEqualTo(4.30);
    }

    @Test
    void latencyInSecondsBecomesMilliseconds() {
        ParsedOutput p = OutputParser.parse(RealFiles.field(CODEX + "results/98f47f2a_agent_result.json", "/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.LATENCY);
        assertThat(v(p, "latency_ms_avg")).isEqualTo(0.21743229990000448 * 1000.0).isEqualTo(217.4322999000045);
        assertThat(v(p, "latency_ms_p10")).isEqualTo(0.20845436100134976 * 1000.0);
        assertThat(v(p, "latency_ms_p50")).isEqualTo(0.2091101064979739 * 1000.0);
        assertThat(v(p, "latency_ms_p90")).isEqualTo(0.21172375639580424 * 1000.0);
        assertThat(v(p, "latency_ms_p99")).isEqualTo(0.38185959188827856 * 1000.0);
        assertThat(p.metrics()).extracting(Metric::name).containsExactly("latency_ms_avg", "latency_ms_p10",
                "latency_ms_p25", "latency_ms_p50", "latency_ms_p75", "latency_ms_p90", "latency_ms_p99");
        assertThat(p.evidence().get("latency_ms_avg")).isEqualTo("Avg latency: 0.21743229990000448 seconds");
    }

    @Test
    void oldThroughputLine() {
        ParsedOutput p = OutputParser.parse(RealFiles.field(CODEX_CLI + "results/9474e89b_agent_result.json", "/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.THROUGHPUT);
        assertThat(v(p, "request_throughput_rps")).isEqualTo(10.49);
        assertThat(v(p, "total_throughput_tok_s")).isEqualTo(4611.33);
        assertThat(p.metrics()).hasSize(2);
        assertThat(p.evidence().get("total_throughput_tok_s")).isEqualTo("Throughput: 10.49 requests/s, 4611.33 tokens/s");
    }

    @Test
    void newThroughputLineWithTokenCounts() {
        ParsedOutput p = OutputParser.parse(RealFiles.field(CODEX + "results/61b8cea3_agent_result.json", "/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.THROUGHPUT);
        assertThat(v(p, "request_throughput_rps")).isEqualTo(50.08);
        assertThat(v(p, "total_throughput_tok_s")).isEqualTo(19152.84);
        assertThat(v(p, "output_throughput_tok_s")).isEqualTo(6410.83);
        assertThat(v(p, "total_input_tokens")).isEqualTo(25441);
        assertThat(v(p, "total_output_tokens")).isEqualTo(12800);
        assertThat(p.workload()).isNull();
    }

    @Test
    void throughputInRerunAndNativeRunnerFiles() {
        String rerun = RealFiles.CLAUDE + "reruns/4_fixable/6ce01f30_result.json";
        assertThat(v(OutputParser.parse(RealFiles.field(rerun, "/baseline/raw_output")), "total_throughput_tok_s"))
                .isEqualTo(11745.11);
        assertThat(v(OutputParser.parse(RealFiles.field(rerun, "/human/raw_output")), "total_throughput_tok_s"))
                .isEqualTo(11786.74);
        String nativeRunner = "archive/results/omniperf_results_full/vllm/ce6bf3a2/benchmark_result.json";
        ParsedOutput p = OutputParser.parse(RealFiles.field(nativeRunner, "/result/baseline_metrics/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.THROUGHPUT);
        assertThat(v(p, "total_throughput_tok_s")).isEqualTo(28338.48);
        assertThat(v(p, "request_throughput_rps")).isEqualTo(55.35);
    }

    @Test
    void prefixCachingTakesTheLastSpeedAfterTheLastStartMarker() {
        ParsedOutput p = OutputParser.parse(RealFiles.field(CODEX_CLI + "results/2deb029d_agent_result.json", "/raw_output"));
        assertThat(p.mode()).isEqualTo(Mode.PREFIX_CACHING);
        assertThat(v(p, "output_throughput_tok_s")).isEqualTo(3347.27);
        assertThat(v(p, "input_throughput_tok_s")).isEqualTo(10794.96);
        assertThat(v(p, "duration_s")).isEqualTo(6.093891143798828);
        assertThat(p.primary()).map(Metric::value).contains(3347.27);

        String docker = RealFiles.CLAUDE + "results/docker/2deb029d/benchmark_result.json";
        assertThat(v(OutputParser.parse(RealFiles.field(docker, "/results/baseline/raw_output")), "output_throughput_tok_s"))
                .isEqualTo(5671.50);
        assertThat(v(OutputParser.parse(RealFiles.field(docker, "/results/human/raw_output")), "output_throughput_tok_s"))
                .isEqualTo(5685.86);
        assertThat(v(OutputParser.parse(RealFiles.field(docker, "/results/agent/raw_output")), "output_throughput_tok_s"))
                .isEqualTo(5711.09);
    }

    @Test
    void emptyEchoBlockIsNotASuccess() {
        ParsedOutput p = OutputParser.parse(RealFiles.field(CODEX + "results/fe66b347_agent_result.json", "/raw_output"));
        assertThat(p.metrics()).isEmpty();
        assertThat(p.emptyResultBlock()).isTrue();
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(p.workload()).isNull();
    }

    @Test
    void echoBlockHoldingAnErrorIsNotASuccess() {
        ParsedOutput p = OutputParser.parse(RealFiles.field(CODEX + "results/70b808fe_agent_result.json", "/raw_output"));
        assertThat(p.metrics()).isEmpty();
        assertThat(p.emptyResultBlock()).isTrue();
    }

    @Test
    void microBenchmarkJsonLines() {
        ParsedOutput p = OutputParser.parse(RealFiles.text("archive/results/omniperf_results_v2/vllm/0d243f2a/stdout.txt"));
        assertThat(p.mode()).isEqualTo(Mode.MICRO);
        assertThat(v(p, "micro_avg_ms")).isEqualTo(1.2286713695526124);
        assertThat(v(p, "micro_p50_ms")).isEqualTo(1.2264000177383423);
        assertThat(p.micro()).hasSize(2);
        assertThat(p.micro().get(1).avgMs()).isEqualTo(1.223038718700409);
        assertThat(p.micro().get(1).p95Ms()).isEqualTo(1.2511999607086182);
        assertThat(p.micro()).allMatch(m -> "child".equals(m.implTag()) && m.ok());
        assertThat(p.primary()).map(Metric::value).contains(1.2286713695526124);
    }

    @Test
    void latencyRunWithoutAvgLineInHeadTruncatedRawHasNoMetric() {
        // 310aca88: the R1 raw keeps the first 3000 chars and the Avg latency line is not among them.
        String file = RealFiles.CLAUDE + "results/modal/310aca88/benchmark_result.json";
        ParsedOutput p = OutputParser.parse(RealFiles.field(file, "/result/baseline_raw"), OutputParser.Truncation.HEAD_KEPT);
        assertThat(p.value("latency_ms_avg")).isEmpty();
        assertThat(p.value("total_throughput_tok_s")).isEmpty();
    }
}
