package io.isobench.loadgen;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** vLLM's formulas on hand-made requests, and the arrival process. */
class LoadgenMetricsTest {

    static RequestResult req(int i, long sendMs, long[] chunksMs, int out) {
        long[] ns = new long[chunksMs.length];
        for (int k = 0; k < ns.length; k++) {
            ns[k] = chunksMs[k] * 1_000_000L;
        }
        return new RequestResult(i, true, null, null, sendMs * 1_000_000L, sendMs * 1_000_000L,
                (sendMs + chunksMs[chunksMs.length - 1]) * 1_000_000L, ns[0], ns[ns.length - 1], ns, 10, 12, out, true,
                out, "", sendMs * 1_000_000L);
    }

    @Test
    void tpotItlAndPercentilesFollowVllm() {
        LoadgenConfig c = LoadgenConfig.builder().model("m").percentiles(List.of(50.0, 99.0))
                .percentileMetrics(Set.of("ttft", "tpot", "itl", "e2el")).goodput("ttft", 15).build();
        List<RequestResult> rs = List.of(
                req(0, 0, new long[] {10, 20, 40}, 3),      // tpot (40-10)/2 = 15
                req(1, 5, new long[] {20, 25, 30, 35}, 4),  // tpot (35-20)/3 = 5
                req(2, 7, new long[] {30}, 1));             // out = 1: no tpot
        LoadgenResult.Summary s = RunSummary.of(c, rs, 2.0);
        assertThat(s.completed()).isEqualTo(3);
        assertThat(s.totalOutput()).isEqualTo(8);
        assertThat(s.totalInput()).isEqualTo(36);
        assertThat(s.dists().get("tpot").count()).isEqualTo(2);
        assertThat(s.dists().get("tpot").mean()).isCloseTo(10.0, within(1e-9));
        // ITL pooled: 10, 20, 5, 5, 5 -> sorted 5,5,5,10,20; median 5; p99 = 10 + (20-10)*0.96
        assertThat(s.dists().get("itl").count()).isEqualTo(5);
        assertThat(s.dists().get("itl").median()).isEqualTo(5.0);
        assertThat(s.dists().get("itl").percentiles().get(99.0)).isCloseTo(19.6, within(1e-9));
        assertThat(s.dists().get("ttft").mean()).isCloseTo(20.0, within(1e-9));
        assertThat(s.dists().get("ttft").std()).isCloseTo(Math.sqrt(200.0 / 3), within(1e-9));
        assertThat(s.dists().get("e2el").max()).isEqualTo(40.0);
        assertThat(s.requestThroughput()).isEqualTo(1.5);
        assertThat(s.outputThroughput()).isEqualTo(4.0);
        assertThat(s.totalTokenThroughput()).isEqualTo(22.0);
        assertThat(s.requestGoodput()).isEqualTo(0.5); // only ttft 10 <= 15
        assertThat(s.maxInFlight()).isEqualTo(3);
        assertThat(s.promptDriftPct()).isCloseTo(20.0, within(1e-9));
    }

    @Test
    void consoleBlockHasVllmLayout() {
        LoadgenConfig c = LoadgenConfig.builder().model("m").requestRate(4).maxConcurrency(8).build();
        List<RequestResult> rs = List.of(req(0, 0, new long[] {10, 20, 40}, 3));
        LoadgenResult r = new LoadgenResult(c, new LoadgenResult.Run(Instant.EPOCH, 0, 1.0, 0), rs,
                RunSummary.of(c, rs, 1.0), List.of());
        assertThat(r.consoleBlock()).isEqualTo(String.join("\n",
                "============ Serving Benchmark Result ============",
                "Successful requests:                     1         ",
                "Failed requests:                         0         ",
                "Maximum request concurrency:             8         ",
                "Request rate configured (RPS):           4.00      ",
                "Benchmark duration (s):                  1.00      ",
                "Total input tokens:                      12        ",
                "Total generated tokens:                  3         ",
                "Request throughput (req/s):              1.00      ",
                "Output token throughput (tok/s):         3.00      ",
                "Peak output token throughput (tok/s):    3.00      ",
                "Peak concurrent requests:                1.00      ",
                "Total Token throughput (tok/s):          15.00     ",
                "---------------Time to First Token----------------",
                "Mean TTFT (ms):                          10.00     ",
                "Median TTFT (ms):                        10.00     ",
                "P99 TTFT (ms):                           10.00     ",
                "-----Time per Output Token (excl. 1st token)------",
                "Mean TPOT (ms):                          15.00     ",
                "Median TPOT (ms):                        15.00     ",
                "P99 TPOT (ms):                           15.00     ",
                "---------------Inter-token Latency----------------",
                "Mean ITL (ms):                           15.00     ",
                "Median ITL (ms):                         15.00     ",
                "P99 ITL (ms):                            19.90     ",
                "==================================================", ""));
    }

    @Test
    void poissonArrivalsAreRescaledSoTheLastLandsAtNOverR() {
        LoadgenConfig c = LoadgenConfig.builder().model("m").requestRate(50).burstiness(0.5).seed(42).build();
        long[] t = Arrivals.schedule(c, 200);
        assertThat(t[199]).isCloseTo(4_000_000_000L, within(1000L));
        for (int i = 1; i < t.length; i++) {
            assertThat(t[i]).isGreaterThanOrEqualTo(t[i - 1]);
        }
        assertThat(Arrivals.schedule(c, 200)).containsExactly(t); // seeded
        LoadgenConfig inf = LoadgenConfig.builder().model("m").build();
        assertThat(Arrivals.schedule(inf, 5)).containsOnly(0L);
    }

    @Test
    void linearRampUpAcceleratesArrivals() {
        LoadgenConfig c = LoadgenConfig.builder().model("m").requestRate(10)
                .rampUp(new LoadgenConfig.RampUp("linear", 1, 100)).seed(1).build();
        long[] t = Arrivals.schedule(c, 400);
        double firstGaps = (t[49] - t[0]) / 49.0;
        double lastGaps = (t[399] - t[350]) / 49.0;
        assertThat(firstGaps).isGreaterThan(5 * lastGaps);
    }

    @Test
    void randomDatasetIsSeededAndRespectsTheRangeRatio() {
        DatasetSpec spec = DatasetSpec.random(100, 50, 0.2, 5);
        List<Prompt> a = Datasets.load(spec, 300, 9, 1.0);
        assertThat(Datasets.load(spec, 300, 9, 1.0)).isEqualTo(a);
        assertThat(a).allSatisfy(p -> {
            assertThat(p.expectedInputTokens()).isBetween(85, 125);
            assertThat(p.outputLen()).isBetween(40, 60);
            assertThat(p.text().split(" ")).hasSize(p.expectedInputTokens());
        });
        assertThat(Datasets.load(spec, 300, 10, 1.0)).isNotEqualTo(a);
    }

    @Test
    void durationRunWithConcurrencyCapSendsNothingAfterTheEndAndNeverExceedsTheCap() throws Exception {
        // 300 ms requests, cap 3, 1 s: requests still queued for a slot when the second is over are dropped unsent
        try (StreamingTestServer server = new StreamingTestServer(0, 10, 50, 0)) {
            LoadgenConfig c = LoadgenConfig.builder().baseUrl(server.baseUrl()).model("test")
                    .dataset(DatasetSpec.fixed("hello world", 6)).ignoreEos(true)
                    .maxConcurrency(3).duration(Duration.ofSeconds(1)).numPrompts(1).build();
            LoadgenResult r = LoadGenerator.run(c, null);
            assertThat(r.summary().failed()).isZero();
            assertThat(r.summary().completed()).isBetween(6, 15);
            assertThat(r.summary().maxInFlight()).isLessThanOrEqualTo(3);
            assertThat(r.requests()).allSatisfy(q -> {
                assertThat(q).isNotNull();
                assertThat(q.sendNs()).isLessThan(1_000_000_000L);
            });
            assertThat(server.requests.get()).isEqualTo(r.requests().size());
        }
    }

    @Test
    void configErrorsAreOneLine() {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> LoadgenConfig.builder().model("m")
                .duration(Duration.ofSeconds(5)).build()))
                .hasMessage("--duration needs a finite --request-rate or a --max-concurrency (otherwise requests would be sent without limit)");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> LoadgenConfig.builder().model("m")
                .baseUrl("https://x:1").build())).hasMessageContaining("only http:// is supported");
    }
}
