package io.isobench.loadgen;

import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.parse.TtftGap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A run's server-side metrics, folded scrape by scrape into a {@link Digest} (its memory does not grow with the run),
 * under the engine's names ({@link ServerMetricNames}, from the engine adapter; docs/server-metrics.md):
 * gauges as mean and max over the scrapes (summed over label sets for request counts, averaged for cache usage),
 * counters and histograms as the difference between the last and the first successful scrape of the measured
 * phase (from the scrape taken when the warm-up requests were done,
 * so neither the server's history before the run nor the warm-up counts), histogram means as Δsum/Δcount and p99 as Prometheus'
 * {@code histogram_quantile} (linear within the bucket). A family the server does not expose gives no metric.
 * The scrape bookkeeping is always there: {@code server_metrics_scrapes}, {@code server_metrics_scrape_failures},
 * {@code server_metrics_bad_lines}.
 */
public final class ServerMetricsSummary {

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
        Snapshot first = measured.first;
        Snapshot last = measured.last;
        for (ServerMetricNames.Summary summary : measured.names.summaries()) {
            switch (summary) {
                case ServerMetricNames.Gauge g -> {
                    // the first family the run exposes (vLLM V1 kv_cache_usage_perc, V0 gpu_cache_usage_perc)
                    String family = g.families().stream().filter(measured.seen::contains).findFirst()
                            .orElse(g.families().get(0));
                    measured.gauge(out, family, g.as(), g.unit());
                }
                case ServerMetricNames.Ratio r -> {
                    for (List<String> pair : r.pairs()) {
                        Double den = delta(first, last, pair.get(1));
                        if (den == null) {
                            continue;
                        }
                        Double num = delta(first, last, pair.get(0));
                        if (num != null && den > 0) {
                            out.add(metric(r, r.as(), num / den));
                        }
                        break;
                    }
                }
                case ServerMetricNames.Delta d -> {
                    Double v = delta(first, last, d.counter());
                    if (v != null) {
                        out.add(metric(d, d.as(), v));
                    }
                }
                case ServerMetricNames.Histogram h -> histogram(out, first, last, h);
            }
        }
        return out;
    }

    private static Metric metric(ServerMetricNames.Summary s, String name, double value) {
        return new Metric(name, value, s.unit(name), s.better(name));
    }

    /**
     * The client-vs-server TTFT cross-check: {@code ttft_client_minus_server_ms} (client TTFT mean − server TTFT
     * mean: network, HTTP and client cost) and {@code ttft_client_server_gap_large} (1 when the gap exceeds both
     * {@link io.isobench.parse.TtftGap}'s thresholds, in either direction); nothing
     * when either mean is missing.
     */
    public static List<Metric> crossCheck(List<Metric> client, List<Metric> server, ServerMetricNames names) {
        Double c = valueOf(client, "ttft_ms_mean");
        Double s = names.ttftMean() == null ? null : valueOf(server, names.ttftMean());
        if (c == null || s == null) {
            return List.of();
        }
        double gap = c - s;
        boolean large = TtftGap.large(gap, c);
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
    private static void histogram(List<Metric> out, Snapshot first, Snapshot last, ServerMetricNames.Histogram h) {
        String name = h.family();
        String prefix = h.prefix();
        Double count = delta(first, last, name + "_count");
        Double sum = delta(first, last, name + "_sum");
        if (count == null || sum == null || count <= 0) {
            return;
        }
        out.add(metric(h, prefix + "mean", sum / count * 1000.0));
        Double p99 = quantile(0.99, buckets(first, last, name + "_bucket"));
        if (p99 != null) {
            out.add(metric(h, prefix + "p99", p99 * 1000.0));
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

        static Snapshot of(double tMs, PromText.Exposition e, ServerMetricNames names) {
            return of(tMs, e, names.summed(), names.bucketSeries());
        }

        private static Snapshot of(double tMs, PromText.Exposition e, Set<String> summed, List<String> bucketSeries) {
            Map<String, Double> sums = new HashMap<>();
            for (PromText.Sample x : e.samples()) {
                if (summed.contains(x.name()) && Double.isFinite(x.value())) {
                    sums.merge(x.name(), x.value(), Double::sum);
                }
            }
            Map<String, TreeMap<Double, Double>> buckets = new HashMap<>();
            for (String b : bucketSeries) {
                buckets.put(b, cumulative(e, b));
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
        private final ServerMetricNames names;
        /** What one scrape keeps, worked out once from the names. */
        private final Set<String> summed;
        private final List<String> bucketSeries;
        private final List<String> gaugeFamilies;
        private int ok;
        private Snapshot first;
        private Snapshot last;
        private final Map<String, double[]> gauges = new HashMap<>();
        private final Set<String> seen = new HashSet<>();

        Digest(ServerMetricNames names) {
            this.names = names;
            this.summed = names.summed();
            this.bucketSeries = names.bucketSeries();
            this.gaugeFamilies = names.gaugeFamilies();
        }

        void add(double tMs, PromText.Exposition e) {
            ok++;
            Snapshot s = Snapshot.of(tMs, e, summed, bucketSeries);
            if (first == null || tMs < first.tMs()) {
                first = s;
            }
            if (last == null || tMs >= last.tMs()) {
                last = s;
            }
            for (String name : gaugeFamilies) {
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
                v = names.summedGauge(name) ? v : v / k;
                double[] g = gauges.computeIfAbsent(name, n -> new double[] {0, Double.NEGATIVE_INFINITY, 0});
                g[0] += v;
                g[1] = Math.max(g[1], v);
                g[2]++;
            }
        }

        /** Mean and max of gauge {@code name} over the scrapes that carry it, as {@code as_mean}, {@code as_max}. */
        private void gauge(List<Metric> out, String name, String as, String unit) {
            double[] g = gauges.get(name);
            if (g != null && g[2] > 0) {
                out.add(new Metric(as + "_mean", g[0] / g[2], unit, Better.NONE));
                out.add(new Metric(as + "_max", g[1], unit, Better.NONE));
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
