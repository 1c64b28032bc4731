package io.isobench.loadgen;

import io.isobench.parse.Metric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A run's server-side metrics, folded scrape by scrape into a {@link Digest} (its memory does not grow with the run),
 * under vLLM's names (docs/server-metrics.md):
 * gauges as mean and max over the scrapes (summed over label sets for request counts, averaged for cache usage),
 * counters and histograms as the difference between the last and the first successful scrape of the measured
 * phase (from the scrape taken when the warm-up requests were done,
 * so neither the server's history before the run nor the warm-up counts), histogram means as Δsum/Δcount and p99 as Prometheus'
 * {@code histogram_quantile} (linear within the bucket). A family the server does not expose gives no metric.
 * The scrape bookkeeping is always there: {@code server_metrics_scrapes}, {@code server_metrics_scrape_failures},
 * {@code server_metrics_bad_lines}.
 */
public final class ServerMetricsSummary {

    private static final String TTFT = "vllm:time_to_first_token_seconds";
    private static final String E2E = "vllm:e2e_request_latency_seconds";
    private static final List<String> GAUGES = List.of("vllm:num_requests_running", "vllm:num_requests_waiting",
            "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc");
    /** The counters and histogram sums/counts the summaries take differences of. */
    private static final Set<String> SUMMED = Set.of("vllm:prefix_cache_queries_total",
            "vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_hits_total",
            "vllm:num_preemptions_total", "vllm:spec_decode_num_draft_tokens_total",
            "vllm:spec_decode_num_accepted_tokens_total", TTFT + "_count", TTFT + "_sum", E2E + "_count",
            E2E + "_sum");

    private ServerMetricsSummary() {
    }

    /** The summaries of a series: those its scraper computed as it went (never throws on content). */
    public static List<Metric> summarize(ServerMetricsScraper.Series series) {
        return series.summaries();
    }

    /** The summaries of the measured scrapes in {@code measured} and the bookkeeping over all of them. */
    static List<Metric> summarize(Digest measured, long failures, long badLines) {
        List<Metric> out = new ArrayList<>();
        out.add(Metric.of("server_metrics_scrapes", measured.ok));
        out.add(Metric.of("server_metrics_scrape_failures", failures));
        out.add(Metric.of("server_metrics_bad_lines", badLines));
        if (measured.ok == 0) {
            return out;
        }
        measured.gauge(out, "vllm:num_requests_running", "vllm:num_requests_running");
        measured.gauge(out, "vllm:num_requests_waiting", "vllm:num_requests_waiting");
        // vLLM V1 names it kv_cache_usage_perc; V0 gpu_cache_usage_perc (both 0..1)
        String kv = measured.seen.contains("vllm:kv_cache_usage_perc") ? "vllm:kv_cache_usage_perc"
                : "vllm:gpu_cache_usage_perc";
        measured.gauge(out, kv, "vllm:kv_cache_usage_perc");
        Snapshot first = measured.first;
        Snapshot last = measured.last;
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
        histogram(out, first, last, TTFT, "vllm:time_to_first_token_ms_");
        histogram(out, first, last, E2E, "vllm:e2e_request_latency_ms_");
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

    /** last − first of a counter (summed over label sets); a reset (negative) counts from 0; null when absent. */
    static Double delta(Snapshot first, Snapshot last, String name) {
        Double b = last.sums().get(name);
        if (b == null) {
            return null;
        }
        Double a = first.sums().get(name);
        double d = b - (a == null ? 0 : a);
        return d < 0 ? b : d;
    }

    /** Mean (Δsum/Δcount) and p99 of a seconds histogram, in ms, over the run; nothing when no observation. */
    private static void histogram(List<Metric> out, Snapshot first, Snapshot last, String name, String prefix) {
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
    static TreeMap<Double, Double> buckets(Snapshot first, Snapshot last, String name) {
        TreeMap<Double, Double> a = first.buckets().getOrDefault(name, new TreeMap<>());
        TreeMap<Double, Double> b = last.buckets().getOrDefault(name, new TreeMap<>());
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
     * What the summaries need of one scrape, and nothing else (a few dozen numbers whatever the body's size): the
     * counters' and histograms' sums over label sets, and the histograms' cumulative buckets by upper bound.
     */
    record Snapshot(double tMs, Map<String, Double> sums, Map<String, TreeMap<Double, Double>> buckets) {

        static Snapshot of(double tMs, PromText.Exposition e) {
            Map<String, Double> sums = new HashMap<>();
            for (PromText.Sample x : e.samples()) {
                if (SUMMED.contains(x.name()) && Double.isFinite(x.value())) {
                    sums.merge(x.name(), x.value(), Double::sum);
                }
            }
            Map<String, TreeMap<Double, Double>> buckets = new HashMap<>();
            for (String h : List.of(TTFT, E2E)) {
                buckets.put(h + "_bucket", cumulative(e, h + "_bucket"));
            }
            return new Snapshot(tMs, sums, buckets);
        }
    }

    /**
     * The running summary of a run's successful scrapes, fed one scrape at a time in any order: the earliest and the
     * latest {@link Snapshot} (counters and histograms are their difference) and per gauge the sum, max and count of
     * its per-scrape values (mean and max). Its size does not grow with the scrapes or their bodies. Not
     * thread-safe: its owner locks.
     */
    static final class Digest {
        private int ok;
        private Snapshot first;
        private Snapshot last;
        private final Map<String, double[]> gauges = new HashMap<>();
        private final Set<String> seen = new HashSet<>();

        void add(double tMs, PromText.Exposition e) {
            ok++;
            Snapshot s = Snapshot.of(tMs, e);
            if (first == null || tMs < first.tMs()) {
                first = s;
            }
            if (last == null || tMs >= last.tMs()) {
                last = s;
            }
            for (String name : GAUGES) {
                double v = 0;
                int k = 0;
                for (PromText.Sample x : e.samples()) {
                    if (x.name().equals(name)) {
                        seen.add(name);
                        if (Double.isFinite(x.value())) {
                            v += x.value();
                            k++;
                        }
                    }
                }
                if (k == 0) {
                    continue;
                }
                // request counts are summed over label sets (several engines), cache usage averaged
                v = name.startsWith("vllm:num_requests_") ? v : v / k;
                double[] g = gauges.computeIfAbsent(name, n -> new double[] {0, Double.NEGATIVE_INFINITY, 0});
                g[0] += v;
                g[1] = Math.max(g[1], v);
                g[2]++;
            }
        }

        /** Mean and max of gauge {@code name} over the scrapes that carry it, as {@code as_mean}, {@code as_max}. */
        private void gauge(List<Metric> out, String name, String as) {
            double[] g = gauges.get(name);
            if (g != null && g[2] > 0) {
                out.add(Metric.of(as + "_mean", g[0] / g[2]));
                out.add(Metric.of(as + "_max", g[1]));
            }
        }
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
