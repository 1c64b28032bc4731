package io.isobench.loadgen;

import io.isobench.engine.Engines;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The summaries take their names from the engine adapter ({@link ServerMetricNames}, docs/engines.md): an SGLang
 * server's {@code sglang:*} exposition gives {@code sglang:*} summaries under SGLang's names, and vLLM's names find
 * nothing in it; the same exposition under vLLM's names gives only the bookkeeping.
 */
class ServerMetricsEngineNamesTest {

    private static final ServerMetricNames SGLANG = Engines.named("sglang").orElseThrow().serverMetrics();

    /** SGLang's scheduler gauges (per tp rank label) and the tokenizer manager's TTFT histogram. */
    private static String scrape(int running, double usage, double hit, long ttftCount, double ttftSum, long le01) {
        return String.join("\n",
                "# TYPE sglang:num_running_reqs gauge",
                "sglang:num_running_reqs{model_name=\"m\",tp_rank=\"0\"} " + running,
                "# TYPE sglang:num_queue_reqs gauge", "sglang:num_queue_reqs{model_name=\"m\",tp_rank=\"0\"} 2",
                "# TYPE sglang:token_usage gauge", "sglang:token_usage{model_name=\"m\",tp_rank=\"0\"} " + usage,
                "# TYPE sglang:cache_hit_rate gauge", "sglang:cache_hit_rate{model_name=\"m\",tp_rank=\"0\"} " + hit,
                "# TYPE sglang:time_to_first_token_seconds histogram",
                "sglang:time_to_first_token_seconds_bucket{le=\"0.1\",model_name=\"m\"} " + le01,
                "sglang:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} " + ttftCount,
                "sglang:time_to_first_token_seconds_sum{model_name=\"m\"} " + ttftSum,
                "sglang:time_to_first_token_seconds_count{model_name=\"m\"} " + ttftCount, "");
    }

    private static Map<String, Double> summaries(ServerMetricNames names) {
        List<ServerMetricsScraper.Scrape> scrapes = List.of(
                new ServerMetricsScraper.Scrape(0, PromText.parse(scrape(1, 0.1, 0.0, 0, 0, 0)), null),
                new ServerMetricsScraper.Scrape(1000, PromText.parse(scrape(3, 0.3, 0.5, 10, 0.5, 10)), null));
        return ServerMetricsScraper.Series.of("http://127.0.0.1:1/metrics", 1000, scrapes, Double.NaN, names)
                .summaries().stream().collect(Collectors.toMap(Metric::name, Metric::value));
    }

    @Test
    void anSglangServerIsSummarisedUnderSglangsNames() {
        Map<String, Double> m = summaries(SGLANG);
        assertThat(m).containsEntry("sglang:num_running_reqs_mean", 2.0).containsEntry("sglang:num_running_reqs_max", 3.0)
                .containsEntry("sglang:num_queue_reqs_mean", 2.0).containsEntry("sglang:cache_hit_rate_max", 0.5);
        assertThat(m.get("sglang:token_usage_mean")).isCloseTo(0.2, within(1e-12));
        // Δsum 0.5 s / Δcount 10 = 50 ms
        assertThat(m.get("sglang:time_to_first_token_ms_mean")).isCloseTo(50.0, within(1e-9));
        assertThat(m.keySet()).noneMatch(n -> n.startsWith("vllm:"));
        assertThat(ServerMetricsSummary.crossCheck(List.of(Metric.of("ttft_ms_mean", 60)),
                ServerMetricsScraper.Series.of("e", 1000, List.of(), Double.NaN, SGLANG).summaries(), SGLANG)).isEmpty();
    }

    @Test
    void theClientServerCrossCheckReadsTheEnginesTtftSummary() {
        List<Metric> server = List.of(new Metric("sglang:time_to_first_token_ms_mean", 50, "ms", Better.LOWER));
        Map<String, Double> gap = ServerMetricsSummary.crossCheck(List.of(Metric.of("ttft_ms_mean", 60)), server,
                SGLANG).stream().collect(Collectors.toMap(Metric::name, Metric::value));
        assertThat(gap).containsEntry("ttft_client_minus_server_ms", 10.0);
        assertThat(ServerMetricsSummary.crossCheck(List.of(Metric.of("ttft_ms_mean", 60)), server,
                Engines.vllm().serverMetrics())).isEmpty();
    }

    @Test
    void vllmsNamesFindNothingInAnSglangServerButTheBookkeeping() {
        assertThat(summaries(Engines.vllm().serverMetrics())).containsOnlyKeys("server_metrics_scrapes",
                "server_metrics_scrape_failures", "server_metrics_bad_lines");
    }
}
