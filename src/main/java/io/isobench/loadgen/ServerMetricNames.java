package io.isobench.loadgen;

import io.isobench.parse.Better;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An engine's Prometheus names and the summaries {@link ServerMetricsSummary} makes of them (docs/server-metrics.md,
 * docs/engines.md): loadgen knows how to fold a scrape series, never whose names it folds. The engine adapter
 * ({@code io.isobench.engine}) gives one of these; vLLM's are {@code vllm:*}, SGLang's {@code sglang:*}.
 *
 * @param namespace  the engine's metric prefix with its colon ({@code vllm:}); every summary name starts with it
 * @param summaries  what is computed, in the order the run's metrics list them
 * @param shown      the summaries shown next to a verdict (analysis.SecondaryMetrics), in that order
 * @param ttftMean   the summary that holds the server's TTFT mean in ms (the client-vs-server cross-check); null
 *                   when the engine exports no TTFT histogram
 * @param whyMissing per summary: why a scraped run may lack it (else "not exported by the server")
 */
public record ServerMetricNames(String namespace, List<Summary> summaries, List<String> shown, String ttftMean,
                                Map<String, String> whyMissing) {

    public ServerMetricNames {
        Objects.requireNonNull(namespace, "namespace");
        summaries = List.copyOf(summaries);
        shown = List.copyOf(shown);
        whyMissing = Map.copyOf(whyMissing);
        Set<String> names = new LinkedHashSet<>();
        summaries.forEach(s -> names.addAll(s.names()));
        for (String n : names) {
            if (!n.startsWith(namespace)) {
                throw new IllegalArgumentException("summary " + n + " is outside the namespace " + namespace);
            }
        }
        for (String n : shown) {
            if (!names.contains(n)) {
                throw new IllegalArgumentException("shown metric " + n + " is not a summary of " + namespace);
            }
        }
        if (ttftMean != null && !names.contains(ttftMean)) {
            throw new IllegalArgumentException("ttftMean " + ttftMean + " is not a summary of " + namespace);
        }
    }

    /** One summary of a run's scrapes. */
    public sealed interface Summary {
        /** The metric names it can emit. */
        List<String> names();

        /** The unit of {@code name}. */
        String unit(String name);

        /** The direction of {@code name}. */
        Better better(String name);
    }

    /**
     * A gauge as {@code as_mean} and {@code as_max} over the scrapes that carry it: the first of {@code families}
     * the run exposes (an engine's renamed gauge), per scrape summed over label sets ({@code summed}: request
     * counts) or averaged (usage ratios).
     */
    public record Gauge(String as, List<String> families, boolean summed, String unit) implements Summary {
        public Gauge {
            families = List.copyOf(families);
        }

        @Override
        public List<String> names() {
            return List.of(as + "_mean", as + "_max");
        }

        @Override
        public String unit(String name) {
            return unit;
        }

        @Override
        public Better better(String name) {
            return Better.NONE;
        }
    }

    /**
     * Δnumerator / Δdenominator of two counters over the run, as {@code as}: the first pair whose denominator the
     * run exposes ({@code pairs}: [numerator, denominator], …); nothing when the denominator did not grow.
     */
    public record Ratio(String as, List<List<String>> pairs) implements Summary {
        public Ratio {
            pairs = pairs.stream().map(List::copyOf).toList();
            for (List<String> p : pairs) {
                if (p.size() != 2) {
                    throw new IllegalArgumentException("a ratio pair is [numerator, denominator]: " + p);
                }
            }
        }

        @Override
        public List<String> names() {
            return List.of(as);
        }

        @Override
        public String unit(String name) {
            return "ratio";
        }

        @Override
        public Better better(String name) {
            return Better.HIGHER;
        }
    }

    /** The growth of a counter over the run, as {@code as}. */
    public record Delta(String as, String counter, String unit) implements Summary {
        @Override
        public List<String> names() {
            return List.of(as);
        }

        @Override
        public String unit(String name) {
            return unit;
        }

        @Override
        public Better better(String name) {
            return Better.LOWER;
        }
    }

    /** A seconds histogram's mean (Δsum/Δcount) and p99 over the run, in ms, as {@code prefix + "mean"|"p99"}. */
    public record Histogram(String family, String prefix) implements Summary {
        @Override
        public List<String> names() {
            return List.of(prefix + "mean", prefix + "p99");
        }

        @Override
        public String unit(String name) {
            return "ms";
        }

        @Override
        public Better better(String name) {
            return Better.LOWER;
        }
    }

    /** Every summary name, in order. */
    public List<String> names() {
        List<String> out = new ArrayList<>();
        summaries.forEach(s -> out.addAll(s.names()));
        return out;
    }

    /** The summary that emits {@code name}, or null. */
    public Summary summaryOf(String name) {
        if (name == null) {
            return null;
        }
        for (Summary s : summaries) {
            if (s.names().contains(name)) {
                return s;
            }
        }
        return null;
    }

    /** The gauges' families (those a scrape keeps per-scrape values of). */
    List<String> gaugeFamilies() {
        List<String> out = new ArrayList<>();
        for (Summary s : summaries) {
            if (s instanceof Gauge g) {
                out.addAll(g.families());
            }
        }
        return out;
    }

    /** The counters and histogram sums/counts a scrape keeps the totals of. */
    Set<String> summed() {
        Set<String> out = new LinkedHashSet<>();
        for (Summary s : summaries) {
            if (s instanceof Ratio r) {
                r.pairs().forEach(out::addAll);
            } else if (s instanceof Delta d) {
                out.add(d.counter());
            } else if (s instanceof Histogram h) {
                out.add(h.family() + "_count");
                out.add(h.family() + "_sum");
            }
        }
        return out;
    }

    /** The histograms' bucket series. */
    List<String> bucketSeries() {
        List<String> out = new ArrayList<>();
        for (Summary s : summaries) {
            if (s instanceof Histogram h) {
                out.add(h.family() + "_bucket");
            }
        }
        return out;
    }

    /** The gauges that are summed over label sets. */
    boolean summedGauge(String family) {
        for (Summary s : summaries) {
            if (s instanceof Gauge g && g.families().contains(family)) {
                return g.summed();
            }
        }
        return false;
    }
}
