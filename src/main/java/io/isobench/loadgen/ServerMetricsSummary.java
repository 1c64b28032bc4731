package io.isobench.loadgen;

import io.isobench.parse.Metric;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run's server-side metrics from its {@link ServerMetricsScraper.Series}, under vLLM's names (docs/server-metrics.md):
 * gauges as mean and max over the scrapes (summed over label sets for request counts, averaged for cache usage),
 * counters and histograms as the difference between the last and the first successful scrape of the measured
 * phase ({@link ServerMetricsScraper.Series#measured()}: from the scrape taken when the warm-up requests were done,
 * so neither the server's history before the run nor the warm-up counts), histogram means as Δsum/Δcount and p99 as Prometheus'
 * {@code histogram_quantile} (linear within the bucket). A family the server does not expose gives no metric.
 * The scrape bookkeeping is always there: {@code server_metrics_scrapes}, {@code server_metrics_scrape_failures},
 * {@code server_metrics_bad_lines}.
 */
public final class ServerMetricsSummary {

    private ServerMetricsSummary() {
    }

    /** The summaries of a series (never throws on content; an empty list of data gives only the bookkeeping). */
    public static List<Metric> summarize(ServerMetricsScraper.Series series) {
        List<Metric> out = new ArrayList<>();
        List<ServerMetricsScraper.Scrape> ok = series.measured();
        out.add(Metric.of("server_metrics_scrapes", ok.size()));
        out.add(Metric.of("server_metrics_scrape_failures", series.failures()));
        out.add(Metric.of("server_metrics_bad_lines", series.badLines()));
        if (ok.isEmpty()) {
            return out;
        }
        gauge(out, ok, "vllm:num_requests_running", true);
        gauge(out, ok, "vllm:num_requests_waiting", true);
        // vLLM V1 names it kv_cache_usage_perc; V0 gpu_cache_usage_perc (both 0..1)
        String kv = present(ok, "vllm:kv_cache_usage_perc") ? "vllm:kv_cache_usage_perc" : "vllm:gpu_cache_usage_perc";
        gaugeAs(out, ok, kv, "vllm:kv_cache_usage_perc", false);
        PromText.Exposition first = ok.get(0).exposition();
        PromText.Exposition last = ok.get(ok.size() - 1).exposition();
        Double queries = delta(first, last, "vllm:prefix_cache_queries_total");
        Double hits = delta(first, last, "vllm:prefix_cache_hits_total");
        if (queries == null) { // vLLM V0
            queries = delta(first, last, "vllm:gpu_prefix_cache_queries_total");
            hits = delta(first, last, "vllm:gpu_prefix_cache_hits_total");
        }
        if (queries != null && hits != null && queries > 0) {
            out.add(Metric.of("vllm:prefix_cache_hit_rate", hits / queries));
        }
        Double preempt = delta(first, last, "vllm:num_preemptions_total");
        if (preempt != null) {
            out.add(Metric.of("vllm:num_preemptions_delta", preempt));
        }
        Double drafts = delta(first, last, "vllm:spec_decode_num_draft_tokens_total");
        Double accepted = delta(first, last, "vllm:spec_decode_num_accepted_tokens_total");
        if (drafts != null && accepted != null && drafts > 0) {
            out.add(Metric.of("vllm:spec_decode_acceptance_rate", accepted / drafts));
        }
        histogram(out, first, last, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_ms_");
        histogram(out, first, last, "vllm:e2e_request_latency_seconds", "vllm:e2e_request_latency_ms_");
        return out;
    }

    /**
     * The client-vs-server TTFT cross-check: {@code ttft_client_minus_server_ms} (client TTFT mean − server TTFT
     * mean: network, HTTP and client cost) and {@code ttft_client_server_gap_large} (1 when the gap exceeds both
     * {@link io.isobench.parse.TtftGap}'s thresholds, in either direction); nothing
     * when either mean is missing.
     */
    public static List<Metric> crossCheck(List<Metric> client, List<Metric> server) {
        Double c = valueOf(client, "ttft_ms_mean");
        Double s = valueOf(server, "vllm:time_to_first_token_ms_mean");
        if (c == null || s == null) {
            return List.of();
        }
        double gap = c - s;
        boolean large = io.isobench.parse.TtftGap.large(gap, c);
        return List.of(Metric.of("ttft_client_minus_server_ms", gap),
                Metric.of("ttft_client_server_gap_large", large ? 1 : 0));
    }

    private static Double valueOf(List<Metric> ms, String name) {
        for (Metric m : ms) {
            if (m.name().equals(name)) {
                return m.value();
            }
        }
        return null;
    }

    private static boolean present(List<ServerMetricsScraper.Scrape> ok, String name) {
        return ok.stream().anyMatch(s -> s.exposition().samples().stream().anyMatch(x -> x.name().equals(name)));
    }

    private static void gauge(List<Metric> out, List<ServerMetricsScraper.Scrape> ok, String name, boolean sum) {
        gaugeAs(out, ok, name, name, sum);
    }

    /** Mean and max over the scrapes that carry {@code name}; per scrape the label sets summed or averaged. */
    private static void gaugeAs(List<Metric> out, List<ServerMetricsScraper.Scrape> ok, String name, String as,
                                boolean sum) {
        double total = 0;
        double max = Double.NEGATIVE_INFINITY;
        int n = 0;
        for (ServerMetricsScraper.Scrape s : ok) {
            double v = 0;
            int k = 0;
            for (PromText.Sample x : s.exposition().samples()) {
                if (x.name().equals(name) && Double.isFinite(x.value())) {
                    v += x.value();
                    k++;
                }
            }
            if (k == 0) {
                continue;
            }
            v = sum ? v : v / k;
            total += v;
            max = Math.max(max, v);
            n++;
        }
        if (n > 0) {
            out.add(Metric.of(as + "_mean", total / n));
            out.add(Metric.of(as + "_max", max));
        }
    }

    /** Sum over label sets of {@code name} in {@code e}; null when absent. */
    private static Double sum(PromText.Exposition e, String name, Map<String, String> match) {
        double v = 0;
        boolean any = false;
        for (PromText.Sample x : e.samples()) {
            if (x.name().equals(name) && Double.isFinite(x.value())
                    && x.labels().entrySet().containsAll(match.entrySet())) {
                v += x.value();
                any = true;
            }
        }
        return any ? v : null;
    }

    /** last − first of a counter (summed over label sets); a reset (negative) counts from 0; null when absent. */
    static Double delta(PromText.Exposition first, PromText.Exposition last, String name) {
        Double b = sum(last, name, Map.of());
        if (b == null) {
            return null;
        }
        Double a = sum(first, name, Map.of());
        double d = b - (a == null ? 0 : a);
        return d < 0 ? b : d;
    }

    /** Mean (Δsum/Δcount) and p99 of a seconds histogram, in ms, over the run; nothing when no observation. */
    private static void histogram(List<Metric> out, PromText.Exposition first, PromText.Exposition last, String name,
                                  String prefix) {
        Double count = delta(first, last, name + "_count");
        Double sum = delta(first, last, name + "_sum");
        if (count == null || sum == null || count <= 0) {
            return;
        }
        out.add(Metric.of(prefix + "mean", sum / count * 1000.0));
        Double p99 = quantile(0.99, buckets(first, last, name + "_bucket"));
        if (p99 != null) {
            out.add(Metric.of(prefix + "p99", p99 * 1000.0));
        }
    }

    /** Cumulative bucket counts over the run (last − first) by upper bound, summed over the other labels. */
    static TreeMap<Double, Double> buckets(PromText.Exposition first, PromText.Exposition last, String name) {
        TreeMap<Double, Double> a = cumulative(first, name);
        TreeMap<Double, Double> b = cumulative(last, name);
        TreeMap<Double, Double> d = new TreeMap<>();
        b.forEach((bound, z) -> {
            double v = z - a.getOrDefault(bound, 0.0);
            d.put(bound, v < 0 ? z : v);
        });
        return d;
    }

    private static TreeMap<Double, Double> cumulative(PromText.Exposition e, String name) {
        TreeMap<Double, Double> out = new TreeMap<>();
        for (PromText.Sample x : e.samples()) {
            String le = x.labels().get("le");
            if (!x.name().equals(name) || le == null || !Double.isFinite(x.value())) {
                continue;
            }
            double bound;
            try {
                bound = le.equals("+Inf") || le.equals("Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
            } catch (NumberFormatException ex) {
                continue;
            }
            out.merge(bound, x.value(), Double::sum);
        }
        return out;
    }

    /**
     * Prometheus' {@code histogram_quantile}: the bucket where the rank falls, linear between its bounds (the first
     * bucket from 0); a rank in the {@code +Inf} bucket gives the highest finite bound; null without observations.
     */
    static Double quantile(double q, TreeMap<Double, Double> cumulative) {
        if (cumulative.isEmpty()) {
            return null;
        }
        double total = cumulative.lastEntry().getValue();
        if (!(total > 0)) {
            return null;
        }
        double rank = q * total;
        double prevBound = 0;
        double prevCount = 0;
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            if (e.getValue() >= rank) {
                if (e.getKey().isInfinite()) {
                    return prevBound;
                }
                double inBucket = e.getValue() - prevCount;
                return inBucket <= 0 ? e.getKey() : prevBound + (e.getKey() - prevBound) * (rank - prevCount) / inBucket;
            }
            prevBound = e.getKey();
            prevCount = e.getValue();
        }
        return prevBound;
    }
}
