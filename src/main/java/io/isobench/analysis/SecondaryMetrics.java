package io.isobench.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Arm;
import io.isobench.Fields;
import io.isobench.engine.Engines;
import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunRecord;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A task's secondary metrics next to its verdict (docs/statistics.md, section 16): the server's summaries under its
 * engine's names ({@code vllm:*}, {@code sglang:*}: the adapter {@link Engines#serverMetricsOf} finds from the
 * counted runs' metric names, docs/engines.md; docs/server-metrics.md) and the GPU telemetry's {@code gpu_*} metrics (docs/gpu-telemetry.md), each
 * compared arm vs baseline with the primary verdict's own machinery ({@link TaskAnalysis#analyse}: paired rounds,
 * the A/A run standing in only where the baseline's is missing, the same {@link StatsConfig}) over exactly the rounds
 * that count for the primary metric. Descriptive only: a secondary metric never decides or changes a verdict. A metric no counted run has is
 * {@link Omitted} with the reason, never shown as 0. Built by {@link SessionAnalysis}; start with {@link #of}.
 *
 * @param rows    the metrics shown, in the engine's order ({@link ServerMetricNames#shown}) then {@link #GPU} order
 * @param omitted what is not shown and why, per source
 * @param ttft    the client-vs-server TTFT cross-check of the counted runs
 */
public record SecondaryMetrics(List<Row> rows, List<Omitted> omitted, TtftCrossCheck ttft) {

    /** Where a secondary metric comes from. */
    public enum Source {
        /** The server's Prometheus {@code /metrics}, scraped during the run. */
        SERVER("server metrics"),
        /** {@code nvidia-smi} sampled during the run. */
        GPU("GPU telemetry");

        private final String label;

        Source(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** GPU telemetry metrics shown, in this order. */
    public static final List<String> GPU = List.of("gpu_energy_per_output_token_j", "gpu_energy_j",
            "gpu_power_w_mean", "gpu_sm_clock_mhz_mean", "gpu_util_pct_mean", "gpu_throttle_share",
            "gpu_mem_used_mib_max");

    /** No counted run, nothing to show. */
    public static final SecondaryMetrics NONE = new SecondaryMetrics(List.of(), List.of(),
            new TtftCrossCheck(List.of(), List.of(), "no counted run"));

    public SecondaryMetrics {
        rows = List.copyOf(rows);
        omitted = List.copyOf(omitted);
    }

    /**
     * One secondary metric of a task.
     *
     * @param metric  canonical name (unit in the dictionary)
     * @param unit    its unit
     * @param better  its direction where the dictionary has one ({@link Better#NONE} otherwise); the change is shown
     *                raw either way
     * @param source  server metrics or GPU telemetry
     * @param medians per arm (plan order): the median over the arm's counted rounds that have the metric; absent arms
     *                have none
     * @param deltas  baseline-aa, human and every agent vs baseline
     */
    public record Row(String metric, String unit, Better better, Source source, Map<Arm, Double> medians,
                      List<Delta> deltas) {
        public Row {
            medians = Collections.unmodifiableMap(new LinkedHashMap<>(medians));
            deltas = List.copyOf(deltas);
        }
    }

    /**
     * An arm vs the baseline on a secondary metric: the change of the arm's value, X/R − 1 in percent (not oriented:
     * −41 % preemptions means fewer), from the paired estimate, with its confidence interval.
     *
     * @param arm          the arm
     * @param reference    {@code baseline} (with the A/A arm joining it where it ran, as for the verdict)
     * @param pairs        paired rounds used
     * @param changePct    the estimated change in percent; null when there is no ratio ({@code note} says why)
     * @param ciLowPct     lower bound of the change's {@code confidence} interval; null with fewer than 2 pairs
     * @param ciHighPct    upper bound
     * @param note         why there is no number or no interval ({@code 0 in every counted run of both}); null when
     *                     both are there
     */
    public record Delta(Arm arm, String reference, int pairs, Double changePct, Double ciLowPct, Double ciHighPct,
                        String note) {

        Map<String, Object> toMap() {
            return Collections.unmodifiableMap(Fields.inOrder("arm", arm.label(), "reference", reference, "pairs",
                    pairs, "change_pct", changePct, "ci_low_pct", ciLowPct, "ci_high_pct", ciHighPct, "note", note));
        }
    }

    /**
     * Metrics not shown and why ({@code not scraped}).
     *
     * @param metrics the metrics; empty when it is every metric of the source
     */
    public record Omitted(Source source, List<String> metrics, String reason) {
        public Omitted {
            metrics = List.copyOf(metrics);
        }

        /** {@code server metrics: not scraped …} or {@code vllm:a, vllm:b: not exported …}. */
        public String oneLine() {
            return (metrics.isEmpty() ? source.label() : String.join(", ", metrics)) + ": " + reason;
        }
    }

    /**
     * The secondary metrics of a task.
     *
     * @param counted    per arm (plan order): round → the run whose primary value counts in that round
     * @param exclusions the primary analysis's exclusions (the same rounds are kept out)
     */
    static SecondaryMetrics of(Map<Arm, TreeMap<Integer, RunRecord>> counted, List<RoundExclusion> exclusions,
                               StatsConfig config) {
        if (!counted.containsKey(Arm.BASELINE) || !counted.containsKey(Arm.HUMAN)) {
            return NONE;
        }
        List<Row> rows = new ArrayList<>();
        List<Omitted> omitted = new ArrayList<>();
        String serverReason = serverReason(counted);
        ServerMetricNames names = serverNames(counted);
        for (Source source : Source.values()) {
            List<String> all = source == Source.SERVER ? names.shown() : GPU;
            String reason = source == Source.SERVER ? serverReason : gpuReason(counted);
            Map<String, List<String>> why = new LinkedHashMap<>(); // reason → metrics, in order
            for (String metric : all) {
                Row row = row(metric, source, counted, exclusions, config, names);
                if (row != null) {
                    rows.add(row);
                } else {
                    why.computeIfAbsent(reason != null ? reason : missing(metric, names), k -> new ArrayList<>())
                            .add(metric);
                }
            }
            why.forEach((r, metrics) -> omitted.add(new Omitted(source, metrics.size() == all.size() ? List.of()
                    : metrics, r)));
        }
        return new SecondaryMetrics(rows, omitted, TtftCrossCheck.of(counted, serverReason, names));
    }

    /**
     * The server-metric names of the counted runs: those of the engine whose namespace their metrics carry (vLLM's
     * when none was scraped).
     */
    static ServerMetricNames serverNames(Map<Arm, TreeMap<Integer, RunRecord>> counted) {
        Set<String> seen = new HashSet<>();
        counted.values().forEach(byRound -> byRound.values().forEach(r -> r.metrics().forEach(m -> seen.add(m.name()))));
        return Engines.serverMetricsOf(seen);
    }

    /** Why a server metric is absent from runs that were scraped. */
    private static String missing(String metric, ServerMetricNames names) {
        String engine = names.whyMissing().get(metric);
        if (engine != null) {
            return engine;
        }
        return switch (metric) {
            case "gpu_energy_per_output_token_j" -> "the benchmark reported no output-token count";
            default -> metric.startsWith("gpu_") ? "not in the GPU telemetry of any counted run"
                    : "not exported by the server";
        };
    }

    /**
     * Why no server metric can be there, or null when some counted run was scraped with success: {@code not scraped}
     * (no run has the scrape counts: scraping off, an offline task, an executor that does not scrape), or every
     * scrape failed.
     */
    static String serverReason(Map<Arm, TreeMap<Integer, RunRecord>> counted) {
        boolean scraped = false;
        double failed = 0;
        for (TreeMap<Integer, RunRecord> byRound : counted.values()) {
            for (RunRecord r : byRound.values()) {
                Double ok = value(r, "server_metrics_scrapes");
                if (ok != null && ok > 0) {
                    return null;
                }
                scraped |= ok != null;
                Double f = value(r, "server_metrics_scrape_failures");
                failed += f == null ? 0 : f;
            }
        }
        return scraped ? String.format(Locale.ROOT, "not scraped: /metrics never answered (%.0f failed"
                + " scrape(s); a server without /metrics)", failed)
                : "not scraped (no /metrics series with the runs: an offline task, scraping off, or an executor that"
                + " does not scrape)";
    }

    /** Why no GPU metric can be there, or null when some counted run has GPU telemetry. */
    static String gpuReason(Map<Arm, TreeMap<Integer, RunRecord>> counted) {
        String why = null;
        for (TreeMap<Integer, RunRecord> byRound : counted.values()) {
            for (RunRecord r : byRound.values()) {
                JsonNode t = r.details().section("gpu_telemetry");
                if (t.path("available").asBoolean(false)) {
                    return null;
                }
                if (why == null && t.path("reason").isTextual()) {
                    why = "no GPU telemetry: " + t.path("reason").asText();
                }
            }
        }
        return why != null ? why : "no GPU telemetry (not sampled: no nvidia-smi on this machine, sampling off, or an"
                + " executor that does not sample)";
    }

    /** The row of one metric, or null when no counted run has it. */
    private static Row row(String metric, Source source, Map<Arm, TreeMap<Integer, RunRecord>> counted,
                           List<RoundExclusion> exclusions, StatsConfig config, ServerMetricNames names) {
        Map<Arm, ArmSamples> samples = new LinkedHashMap<>();
        boolean any = false;
        for (Map.Entry<Arm, TreeMap<Integer, RunRecord>> e : counted.entrySet()) {
            ArmSamples s = samples(e.getKey(), e.getValue(), metric);
            samples.put(e.getKey(), s);
            any |= s.n() > 0;
        }
        if (!any) {
            return null;
        }
        ArmSamples base = samples.get(Arm.BASELINE);
        ArmSamples aa = samples.get(Arm.BASELINE_AA);
        List<ArmSamples> agents = new ArrayList<>();
        samples.forEach((arm, s) -> {
            if (arm.kind() == Arm.Kind.AGENT) {
                agents.add(s);
            }
        });
        // Better.HIGHER: the speedup is then X / R itself, the raw change; the verdict of this analysis is not used
        TaskAnalysis ta = TaskAnalysis.analyse(TaskAnalysis.Input.of(metric, Better.HIGHER, base,
                samples.get(Arm.HUMAN)).withBaselineAa(aa).withAgents(agents).withExclusions(exclusions), config);
        Map<Arm, Double> medians = new LinkedHashMap<>();
        ta.summaries().forEach((arm, s) -> {
            if (s.median() != null) {
                medians.put(arm, s.median());
            }
        });
        List<Delta> deltas = new ArrayList<>();
        List<Comparison> vsBaseline = new ArrayList<>();
        if (ta.aa() != null) {
            vsBaseline.add(ta.aa());
        }
        vsBaseline.add(ta.humanVsBaseline());
        ta.agents().forEach(o -> vsBaseline.add(o.vsBaseline()));
        for (Comparison c : vsBaseline) {
            Arm arm = Arm.ofStored(c.arm()); // a comparison names its arm by label
            // an arm with no counted run has no column: its verdict already says failed
            if (!counted.getOrDefault(arm, new TreeMap<>()).isEmpty()) {
                deltas.add(delta(c, arm, samples.get(arm), base, arm.equals(Arm.BASELINE_AA) ? null : aa));
            }
        }
        MetricDictionary.Definition d = MetricDictionary.lookup(metric);
        ServerMetricNames.Summary s = d == null ? names.summaryOf(metric) : null;
        String unit = d != null ? d.unit() : s != null ? s.unit(metric) : null;
        Better better = d != null ? d.better() : s != null ? s.better(metric) : Better.NONE;
        return new Row(metric, unit, better, source, medians, deltas);
    }

    private static ArmSamples samples(Arm arm, TreeMap<Integer, RunRecord> byRound, String metric) {
        List<Integer> rounds = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        byRound.forEach((round, run) -> {
            Double v = value(run, metric);
            if (v != null) {
                rounds.add(round);
                values.add(v);
            }
        });
        return ArmSamples.ofRounds(arm, rounds.stream().mapToInt(Integer::intValue).toArray(),
                values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static Delta delta(Comparison c, Arm arm, ArmSamples x, ArmSamples base, ArmSamples aa) {
        if (c.speedup() == null) {
            String note;
            if (x.n() == 0) {
                note = "not recorded for " + c.arm();
            } else if (base.n() == 0) {
                note = "not recorded for the baseline";
            } else if (c.inconclusiveReason() == InconclusiveReason.UNDEFINED) {
                note = zero(x) && zero(base) && (aa == null || zero(aa)) ? "0 in every counted run of both"
                        : "no ratio: a value is 0";
            } else {
                note = "no round where both have it";
            }
            return new Delta(arm, c.reference(), c.pairs(), null, null, null, note);
        }
        Double lo = c.ciLowSpeedup() == null ? null : (c.ciLowSpeedup() - 1) * 100;
        Double hi = c.ciHighSpeedup() == null ? null : (c.ciHighSpeedup() - 1) * 100;
        return new Delta(arm, c.reference(), c.pairs(), (c.speedup() - 1) * 100, lo, hi,
                lo == null ? "one pair: no interval" : null);
    }

    private static boolean zero(ArmSamples s) {
        for (double v : s.values()) {
            if (v != 0) {
                return false;
            }
        }
        return true;
    }

    /** A run's metric, or null when it lacks it (or it is not finite). */
    static Double value(RunRecord r, String metric) {
        for (Metric m : r.metrics()) {
            if (m.name().equals(metric) && Double.isFinite(m.value())) {
                return m.value();
            }
        }
        return null;
    }

    /** Per arm label, in the map's order: the machine form of a per-arm map. */
    private static Map<String, Double> labelled(Map<Arm, Double> byArm) {
        Map<String, Double> out = new LinkedHashMap<>();
        byArm.forEach((arm, v) -> out.put(arm.label(), v));
        return Collections.unmodifiableMap(out);
    }

    /** Machine form (snake_case, insertion-ordered, nulls kept). */
    public Map<String, Object> toMap() {
        List<Object> rs = new ArrayList<>();
        for (Row r : rows) {
            rs.add(Collections.unmodifiableMap(Fields.inOrder("metric", r.metric(), "unit", r.unit(), "better",
                    r.better().label(), "source", r.source().name().toLowerCase(Locale.ROOT), "medians",
                    labelled(r.medians()), "deltas", r.deltas().stream().map(Delta::toMap).toList())));
        }
        List<Object> om = new ArrayList<>();
        for (Omitted o : omitted) {
            om.add(Collections.unmodifiableMap(Fields.inOrder("source", o.source().name().toLowerCase(
                    Locale.ROOT), "metrics", o.metrics(), "reason", o.reason())));
        }
        return Collections.unmodifiableMap(Fields.inOrder("rows", Collections.unmodifiableList(rs), "omitted",
                Collections.unmodifiableList(om), "ttft_cross_check", ttft.toMap()));
    }
}
