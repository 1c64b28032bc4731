package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.Fields;
import io.isobench.loadgen.ServerMetricNames;
import io.isobench.store.RunRecord;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The client-vs-server TTFT cross-check of a task's counted runs (docs/server-metrics.md): per arm the distribution
 * of {@code ttft_client_minus_server_ms} (client TTFT mean − the server's {@code vllm:time_to_first_token} mean:
 * connection, HTTP handling, the network and the client's own cost), and every run flagged
 * {@code ttft_client_server_gap_large} with its numbers. Descriptive: it never changes a verdict.
 *
 * @param arms          per arm with the cross-check (plan order)
 * @param flagged       runs whose gap is large, by round then arm
 * @param omittedReason why there is no cross-check at all; null when some run has one
 */
public record TtftCrossCheck(List<ArmGaps> arms, List<Flagged> flagged, String omittedReason) {

    public TtftCrossCheck {
        arms = List.copyOf(arms);
        flagged = List.copyOf(flagged);
    }

    /**
     * One arm's gaps over its counted runs that have one.
     *
     * @param runs           runs with a gap
     * @param gapMedianMs    median of client − server TTFT
     * @param gapMinMs       smallest
     * @param gapMaxMs       largest
     * @param clientMedianMs median of the client's TTFT means
     * @param serverMedianMs median of the server's TTFT means
     * @param flaggedRuns    runs flagged large
     */
    public record ArmGaps(Arm arm, int runs, double gapMedianMs, double gapMinMs, double gapMaxMs,
                      double clientMedianMs, double serverMedianMs, int flaggedRuns) {
    }

    /**
     * A run whose gap is large (beyond both thresholds of docs/server-metrics.md).
     *
     * @param round    0-based round
     * @param clientMs the client's TTFT mean
     * @param serverMs the server's TTFT mean
     * @param gapMs    client − server
     */
    public record Flagged(Arm arm, int round, double clientMs, double serverMs, double gapMs) {

        /** Share of the client's TTFT that the gap is, in percent (null when the client's TTFT is 0). */
        public Double sharePct() {
            return clientMs == 0 ? null : gapMs / clientMs * 100;
        }
    }

    /**
     * From the counted runs of every arm; {@code serverReason}: why nothing was scraped, else null; {@code names}:
     * the engine's server-metric names (its TTFT mean summary).
     */
    static TtftCrossCheck of(Map<Arm, TreeMap<Integer, RunRecord>> counted, String serverReason,
                             ServerMetricNames names) {
        String serverTtft = names.ttftMean();
        List<ArmGaps> arms = new ArrayList<>();
        List<Flagged> flagged = new ArrayList<>();
        for (Map.Entry<Arm, TreeMap<Integer, RunRecord>> e : counted.entrySet()) {
            List<Double> gaps = new ArrayList<>();
            List<Double> client = new ArrayList<>();
            List<Double> server = new ArrayList<>();
            int large = 0;
            for (Map.Entry<Integer, RunRecord> r : e.getValue().entrySet()) {
                Double gap = SecondaryMetrics.value(r.getValue(), "ttft_client_minus_server_ms");
                Double c = SecondaryMetrics.value(r.getValue(), "ttft_ms_mean");
                Double s = serverTtft == null ? null : SecondaryMetrics.value(r.getValue(), serverTtft);
                if (gap == null || c == null || s == null) {
                    continue;
                }
                gaps.add(gap);
                client.add(c);
                server.add(s);
                Double flag = SecondaryMetrics.value(r.getValue(), "ttft_client_server_gap_large");
                if (flag != null && flag >= 0.5) {
                    large++;
                    flagged.add(new Flagged(e.getKey(), r.getKey(), c, s, gap));
                }
            }
            if (!gaps.isEmpty()) {
                double[] g = unbox(gaps);
                ArmSummary sg = ArmSummary.of(g);
                arms.add(new ArmGaps(e.getKey(), g.length, sg.median(), sg.min(), sg.max(), Samples.median(unbox(client)),
                        Samples.median(unbox(server)), large));
            }
        }
        flagged.sort(Comparator.comparingInt(Flagged::round));
        String why = null;
        if (arms.isEmpty()) {
            why = serverReason != null ? serverReason : "no run has both a client TTFT and the server's "
                    + ttftFamily(names) + " (requests not streamed, or not exported by the server)";
        }
        return new TtftCrossCheck(arms, flagged, why);
    }

    /** The engine's TTFT histogram family ({@code vllm:time_to_first_token_seconds}). */
    private static String ttftFamily(ServerMetricNames names) {
        return names.ttftMean() != null && names.summaryOf(names.ttftMean()) instanceof ServerMetricNames.Histogram h ? h.family()
                : "TTFT histogram";
    }

    private static double[] unbox(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Machine form (snake_case, insertion-ordered). */
    public Map<String, Object> toMap() {
        List<Object> as = new ArrayList<>();
        for (ArmGaps a : arms) {
            as.add(Collections.unmodifiableMap(Fields.inOrder("arm", a.arm().label(), "runs", a.runs(), "gap_median_ms",
                    a.gapMedianMs(), "gap_min_ms", a.gapMinMs(), "gap_max_ms", a.gapMaxMs(), "client_ttft_median_ms",
                    a.clientMedianMs(), "server_ttft_median_ms", a.serverMedianMs(), "flagged_runs", a.flaggedRuns())));
        }
        List<Object> fs = new ArrayList<>();
        for (Flagged f : flagged) {
            fs.add(Collections.unmodifiableMap(Fields.inOrder("arm", f.arm().label(), "round", f.round(),
                    "client_ttft_ms", f.clientMs(), "server_ttft_ms", f.serverMs(), "gap_ms", f.gapMs())));
        }
        return Collections.unmodifiableMap(Fields.inOrder("arms", Collections.unmodifiableList(as), "flagged",
                Collections.unmodifiableList(fs), "omitted_reason", omittedReason));
    }
}
