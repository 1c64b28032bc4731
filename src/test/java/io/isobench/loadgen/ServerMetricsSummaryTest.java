package io.isobench.loadgen;

import io.isobench.engine.Engines;

import io.isobench.parse.Metric;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Summaries of a scraped series, on expositions written by hand so every number is worked out in the comments. */
class ServerMetricsSummaryTest {
    /** vLLM's names, from its engine adapter (the summaries under test are engine-neutral). */
    private static final ServerMetricNames VLLM = Engines.vllm().serverMetrics();


    private static String scrape(String running, double waiting, double kv, double queries, double hits,
                                 double preempt, String ttftBuckets) {
        return String.join("\n",
                "# TYPE vllm:num_requests_running gauge", running,
                "# TYPE vllm:num_requests_waiting gauge", "vllm:num_requests_waiting{engine=\"0\"} " + waiting,
                "# TYPE vllm:kv_cache_usage_perc gauge", "vllm:kv_cache_usage_perc{engine=\"0\"} " + kv,
                "# TYPE vllm:prefix_cache_queries_total counter", "vllm:prefix_cache_queries_total " + queries,
                "# TYPE vllm:prefix_cache_hits_total counter", "vllm:prefix_cache_hits_total " + hits,
                "# TYPE vllm:num_preemptions_total counter", "vllm:num_preemptions_total " + preempt,
                "# TYPE vllm:spec_decode_num_draft_tokens_total counter",
                "vllm:spec_decode_num_draft_tokens_total " + (hits > 10 ? 100 : 0),
                "# TYPE vllm:spec_decode_num_accepted_tokens_total counter",
                "vllm:spec_decode_num_accepted_tokens_total " + (hits > 10 ? 60 : 0),
                "# TYPE vllm:time_to_first_token_seconds histogram", ttftBuckets, "");
    }

    static ServerMetricsScraper.Series series() {
        return ServerMetricsScraper.Series.of("http://127.0.0.1:1/metrics", 1000, scrapes(), Double.NaN, VLLM);
    }

    static List<ServerMetricsScraper.Scrape> scrapes() {
        String first = scrape("vllm:num_requests_running{engine=\"0\"} 1", 0, 0.1, 100, 10, 2, String.join("\n",
                "vllm:time_to_first_token_seconds_bucket{le=\"0.01\"} 1",
                "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} 1",
                "vllm:time_to_first_token_seconds_bucket{le=\"1.0\"} 1",
                "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 1",
                "vllm:time_to_first_token_seconds_sum 0.005", "vllm:time_to_first_token_seconds_count 1"));
        String middle = scrape("vllm:num_requests_running{engine=\"0\"} 2", 0, 0.2, 150, 50, 2, "");
        // two engines: running 2 + 1 = 3
        String last = scrape("vllm:num_requests_running{engine=\"0\"} 2\nvllm:num_requests_running{engine=\"1\"} 1",
                4, 0.3, 300, 110, 5, String.join("\n",
                "vllm:time_to_first_token_seconds_bucket{le=\"0.01\"} 1",
                "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} 51",
                "vllm:time_to_first_token_seconds_bucket{le=\"1.0\"} 101",
                "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 101",
                "vllm:time_to_first_token_seconds_sum 10.005", "vllm:time_to_first_token_seconds_count 101"));
        return List.of(
                new ServerMetricsScraper.Scrape(0.0, PromText.parse(first), null),
                new ServerMetricsScraper.Scrape(1000.0, PromText.parse(middle + "broken line\n"), null),
                new ServerMetricsScraper.Scrape(2000.0, null, "ConnectException: Connection refused"),
                new ServerMetricsScraper.Scrape(3000.0, PromText.parse(last), null));
    }

    static Map<String, Double> byName(List<Metric> ms) {
        return ms.stream().collect(Collectors.toMap(Metric::name, Metric::value));
    }

    @Test
    void gaugesCountersAndHistogramsSummarizedOverTheRun() {
        Map<String, Double> m = byName(ServerMetricsSummary.summarize(series()));
        assertThat(m.get("server_metrics_scrapes")).isEqualTo(3.0);
        assertThat(m.get("server_metrics_scrape_failures")).isEqualTo(1.0);
        assertThat(m.get("server_metrics_bad_lines")).isEqualTo(1.0);
        // running 1, 2, 3 (label sets summed)
        assertThat(m.get("vllm:num_requests_running_mean")).isEqualTo(2.0);
        assertThat(m.get("vllm:num_requests_running_max")).isEqualTo(3.0);
        assertThat(m.get("vllm:num_requests_waiting_mean")).isCloseTo(4.0 / 3, within(1e-12));
        assertThat(m.get("vllm:kv_cache_usage_perc_mean")).isCloseTo(0.2, within(1e-12));
        assertThat(m.get("vllm:kv_cache_usage_perc_max")).isEqualTo(0.3);
        // (110 − 10) / (300 − 100)
        assertThat(m.get("vllm:prefix_cache_hit_rate")).isEqualTo(0.5);
        assertThat(m.get("vllm:num_preemptions_delta")).isEqualTo(3.0);
        assertThat(m.get("vllm:spec_decode_acceptance_rate")).isEqualTo(0.6);
        // Δsum 10 s / Δcount 100 = 100 ms; p99: rank 99 of 100 in (0.1, 1.0] holding 50 from 50: 0.1 + 0.9·49/50
        assertThat(m.get("vllm:time_to_first_token_ms_mean")).isCloseTo(100.0, within(1e-9));
        assertThat(m.get("vllm:time_to_first_token_ms_p99")).isCloseTo(982.0, within(1e-9));
        assertThat(m).as("no e2e histogram exposed, no e2e metric").doesNotContainKey("vllm:e2e_request_latency_ms_mean");
    }

    @Test
    void theWarmUpBeforeTheMarkIsLeftOut() {
        // the same scrapes, the measured phase marked at the middle one (t = 1000 ms, after the warm-up requests):
        // counters and histograms count from it, gauges average over it and the last
        ServerMetricsScraper.Series all = series();
        ServerMetricsScraper.Series marked = ServerMetricsScraper.Series.of(all.endpoint(), 1000, scrapes(), 1000.0, VLLM);
        Map<String, Double> m = byName(ServerMetricsSummary.summarize(marked));
        assertThat(m.get("server_metrics_scrapes")).isEqualTo(2.0);
        assertThat(m.get("vllm:num_requests_running_mean")).isEqualTo(2.5);
        // (110 − 50) / (300 − 150)
        assertThat(m.get("vllm:prefix_cache_hit_rate")).isCloseTo(0.4, within(1e-12));
        assertThat(m.get("vllm:num_preemptions_delta")).isEqualTo(3.0);
        // the middle scrape (the baseline) exposes no TTFT histogram: it counts from zero, as a labelled family that
        // first appears during the measured phase does — 10.005 s over 101 observations
        assertThat(m.get("vllm:time_to_first_token_ms_mean")).isCloseTo(10_005.0 / 101, within(1e-9));
        assertThat(marked.toJson()).contains("\"measured_from_ms\" : 1000.0");
        assertThat(all.toJson()).doesNotContain("measured_from_ms");
    }

    @Test
    void nothingScrapedGivesOnlyTheBookkeeping() {
        ServerMetricsScraper.Series s = ServerMetricsScraper.Series.of("http://127.0.0.1:1/metrics", 1000,
                List.of(new ServerMetricsScraper.Scrape(0, null, "HTTP 404")), Double.NaN, VLLM);
        assertThat(byName(ServerMetricsSummary.summarize(s))).containsOnlyKeys("server_metrics_scrapes",
                "server_metrics_scrape_failures", "server_metrics_bad_lines")
                .containsEntry("server_metrics_scrape_failures", 1.0);
    }

    @Test
    void quantileFollowsHistogramQuantile() {
        TreeMap<Double, Double> b = new TreeMap<>(Map.of(0.5, 10.0, 1.0, 20.0,
                Double.POSITIVE_INFINITY, 30.0));
        // rank 15 in (0.5, 1.0]: 0.5 + 0.5·5/10
        assertThat(ServerMetricsSummary.quantile(0.5, b)).isEqualTo(0.75);
        // rank in the first bucket: from 0
        assertThat(ServerMetricsSummary.quantile(0.1, b)).isCloseTo(0.15, within(1e-12));
        // rank in +Inf: the highest finite bound
        assertThat(ServerMetricsSummary.quantile(0.99, b)).isEqualTo(1.0);
        assertThat(ServerMetricsSummary.quantile(0.99, new TreeMap<>())).isNull();
    }

    @Test
    void counterResetCountsFromZero() {
        PromText.Exposition a = PromText.parse("vllm:num_preemptions_total 50\n");
        PromText.Exposition b = PromText.parse("vllm:num_preemptions_total 4\n");
        assertThat(ServerMetricsSummary.delta(ServerMetricsSummary.Snapshot.of(0, a, VLLM),
                ServerMetricsSummary.Snapshot.of(1, b, VLLM), "vllm:num_preemptions_total")).isEqualTo(4.0);
    }

    @Test
    void clientServerTtftCrossCheckFlagsLargeGaps() {
        List<Metric> server = List.of(Metric.of("vllm:time_to_first_token_ms_mean", 100));
        // gap 30 ms: over 10 ms but under 25 % of 130 ms (32.5): not large
        assertThat(byName(ServerMetricsSummary.crossCheck(List.of(Metric.of("ttft_ms_mean", 130)), server, VLLM)))
                .containsEntry("ttft_client_minus_server_ms", 30.0).containsEntry("ttft_client_server_gap_large", 0.0);
        // gap 50 ms of 150: large
        assertThat(byName(ServerMetricsSummary.crossCheck(List.of(Metric.of("ttft_ms_mean", 150)), server, VLLM)))
                .containsEntry("ttft_client_server_gap_large", 1.0);
        // gap 8 ms of 9 ms client TTFT: under 10 ms, not large
        assertThat(byName(ServerMetricsSummary.crossCheck(List.of(Metric.of("ttft_ms_mean", 9)),
                List.of(Metric.of("vllm:time_to_first_token_ms_mean", 1)), VLLM)))
                .containsEntry("ttft_client_server_gap_large", 0.0);
        assertThat(ServerMetricsSummary.crossCheck(List.of(Metric.of("ttft_ms_mean", 9)), List.of(), VLLM)).isEmpty();
    }

    @Test
    void seriesArtifactIsGolden() throws IOException {
        PromTextTest.golden("series.json", series().toJson());
    }
}
