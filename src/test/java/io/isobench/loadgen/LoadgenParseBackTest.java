package io.isobench.loadgen;

import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import io.isobench.parse.SaveResultParser;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** isobench's own parsers read loadgen's console block and --save-result JSON back. */
class LoadgenParseBackTest {

    static LoadgenResult sample() {
        LoadgenConfig c = LoadgenConfig.builder().model("org/m").requestRate(8).maxConcurrency(4)
                .percentiles(List.of(90.0, 99.0)).percentileMetrics(Set.of("ttft", "tpot", "itl", "e2el"))
                .goodput("ttft", 100).build();
        List<RequestResult> rs = List.of(
                LoadgenMetricsTest.req(0, 0, new long[] {10, 20, 40}, 3),
                LoadgenMetricsTest.req(1, 5, new long[] {20, 25, 30, 35}, 4));
        return new LoadgenResult(c, new LoadgenResult.Run(Instant.parse("2026-11-25T12:00:00Z"), 0, 2.0, 0), rs,
                RunSummary.of(c, rs, 2.0), List.of());
    }

    @Test
    void consoleBlockParsesBackToTheSameMetrics() {
        LoadgenResult r = sample();
        ParsedOutput p = OutputParser.parse("INFO starting\n" + r.consoleBlock() + r.detailBlock());
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        LoadgenResult.Summary s = r.summary();
        assertThat(p.value("tpot_ms_mean").getAsDouble()).isCloseTo(s.dists().get("tpot").mean(), within(0.006));
        assertThat(p.value("ttft_ms_p99").getAsDouble()).isCloseTo(s.dists().get("ttft").percentiles().get(99.0), within(0.006));
        assertThat(p.value("itl_ms_median").getAsDouble()).isCloseTo(s.dists().get("itl").median(), within(0.006));
        assertThat(p.value("e2el_ms_mean").getAsDouble()).isCloseTo(s.dists().get("e2el").mean(), within(0.006));
        assertThat(p.value("output_throughput_tok_s").getAsDouble()).isCloseTo(s.outputThroughput(), within(0.006));
        assertThat(p.value("request_throughput_rps").getAsDouble()).isCloseTo(s.requestThroughput(), within(0.006));
    }

    @Test
    void saveResultJsonParsesBack() {
        LoadgenResult r = sample();
        ParsedOutput p = SaveResultParser.parse(r.resultJson(true).toString());
        assertThat(p.value("tpot_ms_mean").getAsDouble()).isCloseTo(r.summary().dists().get("tpot").mean(), within(1e-9));
        assertThat(p.value("ttft_ms_p90").getAsDouble())
                .isCloseTo(r.summary().dists().get("ttft").percentiles().get(90.0), within(1e-9));
        assertThat(p.value("output_throughput_tok_s").getAsDouble()).isCloseTo(r.summary().outputThroughput(), within(1e-9));
    }

    @Test
    void metricsUseCanonicalNames() {
        assertThat(sample().metrics()).extracting(Metric::name)
                .contains("tpot_ms_mean", "ttft_ms_p99", "itl_ms_p90", "e2el_ms_median", "client_queue_ms_mean",
                        "request_throughput_rps", "output_throughput_tok_s", "total_throughput_tok_s",
                        "request_goodput_rps", "peak_output_throughput_tok_s", "completed_requests");
    }
}
