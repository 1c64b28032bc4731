package io.isobench.report;

import io.isobench.store.Pipeline;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.store.RunRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where isobench's number for a commit differs from the one the old system published (a result file's
 * {@code *_improvement} fields, a rerun's analysis, a published HF row), and why: a different metric, a unit error,
 * the raw line against a stored key, or a row that is not comparable. Pure: the runs of one commit and agent in, the
 * corrections out.
 */
final class Corrections {

    /** Published and recomputed improvements closer than this (percentage points) agree: published figures are rounded. */
    static final double TOLERANCE_PP = 0.05;
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One published figure isobench does not reproduce.
     *
     * @param comparison human (vs baseline), agent (vs baseline) or agent_vs_human
     * @param metric     the old system's metric name
     * @param published  its improvement, percent
     * @param isobench   isobench's, percent (null = undefined)
     * @param reason     why they differ
     * @param source     where the published figure is
     */
    record Correction(String comparison, String metric, double published, Double isobench, String reason,
                      String source) {
    }

    private Corrections() {
    }

    /** The old metric names that stand for the row's mode, the same metric first. */
    private static List<String> oldMetrics(String mode) {
        return switch (mode == null ? "" : mode) {
            case "serving" -> List.of("tpot_mean");
            case "latency" -> List.of("latency_avg", "throughput");
            case "throughput" -> List.of("total_throughput", "token_throughput", "throughput_tok_s", "throughput");
            case "prefix_caching" -> List.of("output_throughput", "throughput", "throughput_tok_s");
            default -> List.of();
        };
    }

    /** The canonical metric an old name stands for in a mode, or null when it is a different quantity. */
    private static String canonical(String old, String mode) {
        return switch (old) {
            case "tpot_mean" -> "tpot_ms_mean";
            case "latency_avg" -> "latency_ms_avg";
            case "total_throughput", "token_throughput" -> "total_throughput_tok_s";
            case "output_throughput" -> "output_throughput_tok_s";
            case "throughput", "throughput_tok_s" -> "throughput".equals(mode) ? "total_throughput_tok_s"
                    : "prefix_caching".equals(mode) ? "output_throughput_tok_s" : null;
            default -> null;
        };
    }

    static List<Correction> of(ThreeWayRow row, List<RunRecord> runs) {
        List<Correction> out = new ArrayList<>();
        if (row.mode() == null) {
            return out;
        }
        Map<String, JsonNode> published = new LinkedHashMap<>();
        for (RunRecord r : runs) {
            JsonNode p = published(r);
            if (p != null) {
                published.putIfAbsent(p.path("source").asText("") + "|" + Pipeline.labelOf(r.pipeline()), p);
            }
        }
        String[] comparisons = {"human", "agent", "agent_vs_human"};
        Double[] mine = {row.humanDeltaPct(), row.agentDeltaPct(), row.agentVsHumanPct()};
        for (JsonNode p : published.values()) {
            for (int c = 0; c < comparisons.length; c++) {
                JsonNode figures = p.get(comparisons[c]);
                if (figures == null) {
                    continue;
                }
                for (String m : oldMetrics(row.mode())) {
                    JsonNode v = figures.get(m);
                    if (v == null || !v.isNumber()) {
                        continue;
                    }
                    double pub = v.asDouble();
                    Double iso = mine[c];
                    if (iso != null && Math.abs(pub - iso) <= TOLERANCE_PP) {
                        continue; // agrees: nothing to explain
                    }
                    out.add(new Correction(comparisons[c], m, pub, iso, reason(row, comparisons[c], m, p),
                            p.path("source").asText("")));
                }
            }
        }
        return out;
    }

    private static String reason(ThreeWayRow row, String comparison, String old, JsonNode p) {
        int[] arms = switch (comparison) {
            case "human" -> new int[] {0, 1};
            case "agent" -> new int[] {0, 2};
            default -> new int[] {1, 2};
        };
        String[] names = {"baseline", "human", "agent"};
        String[] values = {row.baselineValue(), row.humanValue(), row.agentValue()};
        if (values[arms[0]] == null || values[arms[1]] == null) {
            return "not comparable: isobench has no " + names[values[arms[0]] == null ? arms[0] : arms[1]]
                    + " value (" + row.status() + ")";
        }
        String canon = canonical(old, row.mode());
        if (!row.metric().equals(canon)) {
            return "different metric: the published figure compares '" + old + "'"
                    + ("latency".equals(row.mode()) && old.startsWith("throughput")
                    ? " (an engine-log number in a latency run)" : "")
                    + ", isobench compares " + row.metric();
        }
        Double pa = publishedValue(p, names[arms[0]], old);
        Double pb = publishedValue(p, names[arms[1]], old);
        if (pa != null && pb != null) {
            double ra = Double.parseDouble(values[arms[0]]) / pa;
            if (Math.abs(ra - 1000) < 50 || Math.abs(ra - 0.001) < 0.00005) {
                return "unit error: the published values are " + (ra > 1 ? "seconds" : "thousands")
                        + " where isobench reads milliseconds";
            }
            if (Math.abs(ra - 1) > 0.01 || Math.abs(Double.parseDouble(values[arms[1]]) / pb - 1) > 0.01) {
                String origin = row.origins().get(arms[0]);
                return ("raw".equals(origin) ? "raw line vs stored key" : "different values")
                        + ": published " + fmt(pa) + " → " + fmt(pb) + " (stored '" + old + "'), isobench "
                        + values[arms[0]] + " → " + values[arms[1]] + ("raw".equals(origin) ? " (raw console line)" : "");
            }
        }
        if (!row.comparable()) {
            return "not comparable: " + row.status()
                    + (row.issues() == null ? "" : " (" + row.issues() + ")");
        }
        return "different computation: isobench applies DESIGN.md §5 (" + row.better()
                + " is better) to the parsed values";
    }

    private static Double publishedValue(JsonNode p, String arm, String metric) {
        JsonNode v = p.path("values").path(arm).get(metric);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }

    private static JsonNode published(RunRecord r) {
        JsonNode p = r.details().published();
        return p != null && p.isObject() ? p : null;
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
