package io.isobench.report;

import io.isobench.store.Pipeline;
import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.store.RunRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where isobench's number for a commit differs from the one the old system published (a result file's
 * {@code *_improvement} fields, a rerun's analysis, a published HF row), and why. Pure: the runs of one commit and
 * agent in, the corrections out. The rules (docs/legacy-import-usage.md, "Corrections to published numbers"):
 * <ul>
 *   <li>per published record and comparison, the figure on the row's own metric is compared when the record has one
 *   (a latency run's {@code latency_avg} before its engine-log {@code throughput}); only a record without one is
 *   compared on another metric ("different metric"); figures within {@link #TOLERANCE_PP} agree;</li>
 *   <li>one correction per commit, agent, comparison and metric whatever was imported: a figure published both in a
 *   source file and in the HF table is one row, the source file's, naming both places;</li>
 *   <li>the reason names what differs, first that applies: an arm without a value, a cross-run row (not comparable),
 *   another metric, a unit, two runs with different commands, the raw console line against the stored key, other
 *   values, a row with issues, the computation.</li>
 * </ul>
 */
final class Corrections {

    /** Published and recomputed improvements closer than this (percentage points) agree: published figures are rounded. */
    static final double TOLERANCE_PP = 0.05;
    private static final String[] ARMS = {"baseline", "human", "agent"};
    private static final int COMMAND_TOKENS = 4;

    /**
     * One published figure isobench does not reproduce.
     *
     * @param comparison human (vs baseline), agent (vs baseline) or agent_vs_human
     * @param metric     the old system's metric name
     * @param published  its improvement, percent
     * @param isobench   isobench's, percent (null = undefined)
     * @param reason     why they differ
     * @param source     where the published figure is (every place, the kept one first, {@code ; also }-separated)
     */
    record Correction(String comparison, String metric, double published, Double isobench, String reason,
                      String source) {
    }

    /**
     * A published record and the runs that carry it: its figures, whether it came from an HF table, and the command
     * each arm's run of that record ran (null where unknown).
     */
    private record Record(JsonNode figures, boolean hf, String[] commands) {

        String source() {
            return figures.path("source").asText("");
        }

        /** The command the record's {@code arm} ran: that arm's run, else any arm's (one invocation, one command). */
        String command(int arm) {
            if (commands[arm] != null) {
                return commands[arm];
            }
            for (String c : commands) {
                if (c != null) {
                    return c;
                }
            }
            return null;
        }
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
        if (row.mode() == null) {
            return List.of();
        }
        List<Record> records = records(runs);
        String[] comparisons = {"human", "agent", "agent_vs_human"};
        Double[] mine = {row.humanDeltaPct(), row.agentDeltaPct(), row.agentVsHumanPct()};
        Map<String, Correction> kept = new LinkedHashMap<>();
        Map<String, Set<String>> alsoIn = new LinkedHashMap<>();
        for (Record p : records) {
            for (int c = 0; c < comparisons.length; c++) {
                String m = figureToCompare(p.figures().get(comparisons[c]), row);
                if (m == null) {
                    continue;
                }
                double pub = p.figures().get(comparisons[c]).get(m).asDouble();
                Double iso = mine[c];
                if (iso != null && Math.abs(pub - iso) <= TOLERANCE_PP) {
                    continue; // agrees: nothing to explain
                }
                String canon = canonical(m, row.mode());
                String key = comparisons[c] + "|" + (canon == null ? m : canon);
                Correction first = kept.get(key);
                if (first != null) {
                    alsoIn.get(key).add(p.source() + (Math.abs(first.published() - pub) <= TOLERANCE_PP ? ""
                            : " (" + Md.pct(pub) + ")"));
                    continue;
                }
                kept.put(key, new Correction(comparisons[c], m, pub, iso, reason(row, comparisons[c], m, p, runs),
                        p.source()));
                alsoIn.put(key, new LinkedHashSet<>());
            }
        }
        List<Correction> out = new ArrayList<>();
        for (Map.Entry<String, Correction> e : kept.entrySet()) {
            Correction c = e.getValue();
            Set<String> also = alsoIn.get(e.getKey());
            also.remove(c.source());
            out.add(also.isEmpty() ? c : new Correction(c.comparison(), c.metric(), c.published(), c.isobench(),
                    c.reason(), c.source() + "; also " + String.join("; ", also)));
        }
        return out;
    }

    /**
     * The published records among the runs (one per source and pipeline, and per published HF row), the source files'
     * before the HF table's so that a figure published in both is kept with its source file.
     */
    private static List<Record> records(List<RunRecord> runs) {
        Map<String, Record> byKey = new LinkedHashMap<>();
        for (RunRecord r : runs) {
            JsonNode p = r.details().published();
            if (p == null || !p.isObject()) {
                continue;
            }
            // one record per published row: an HF table may publish several rows for one agent (one per model)
            String key = p.path("source").asText("") + "|" + Pipeline.labelOf(r.pipeline()) + "|"
                    + (r.kind() == RunRecord.RunKind.HF_IMPORT ? r.details().string("hf_key") : "");
            Record rec = byKey.computeIfAbsent(key, k -> new Record(p, r.kind() == RunRecord.RunKind.HF_IMPORT,
                    new String[3]));
            int arm = armIndex(r);
            if (arm >= 0 && rec.commands()[arm] == null) {
                rec.commands()[arm] = r.details().perfCommand();
            }
        }
        List<Record> out = new ArrayList<>(byKey.values());
        out.sort(Comparator.comparing(Record::hf));
        return out;
    }

    /**
     * The published figure of a comparison to compare: the first on the row's own metric, else (a record without one)
     * the first the mode knows; null when the record has none.
     */
    private static String figureToCompare(JsonNode figures, ThreeWayRow row) {
        if (figures == null) {
            return null;
        }
        String other = null;
        for (String m : oldMetrics(row.mode())) {
            JsonNode v = figures.get(m);
            if (v == null || !v.isNumber()) {
                continue;
            }
            if (row.metric() != null && row.metric().equals(canonical(m, row.mode()))) {
                return m;
            }
            if (other == null) {
                other = m;
            }
        }
        return other;
    }

    private static String reason(ThreeWayRow row, String comparison, String old, Record p, List<RunRecord> runs) {
        int[] arms = switch (comparison) {
            case "human" -> new int[] {0, 1};
            case "agent" -> new int[] {0, 2};
            default -> new int[] {1, 2};
        };
        String[] values = {row.baselineValue(), row.humanValue(), row.agentValue()};
        if (values[arms[0]] == null || values[arms[1]] == null) {
            return "not comparable: isobench has no " + ARMS[values[arms[0]] == null ? arms[0] : arms[1]]
                    + " value (" + row.status() + ")";
        }
        if (row.comparability() != null && row.comparability().startsWith("cross_run")) {
            return "not comparable: isobench's arms were measured in separate invocations (" + row.status()
                    + (row.issues() == null ? "" : "; " + row.issues()) + ")";
        }
        String canon = canonical(old, row.mode());
        if (!row.metric().equals(canon)) {
            return "different metric: the published figure compares '" + old + "'"
                    + ("latency".equals(row.mode()) && old.startsWith("throughput")
                    ? " (an engine-log number in a latency run)" : "")
                    + ", isobench compares " + row.metric();
        }
        Double pa = publishedValue(p.figures(), ARMS[arms[0]], old);
        Double pb = publishedValue(p.figures(), ARMS[arms[1]], old);
        boolean valuesDiffer = true;
        if (pa != null && pb != null) {
            double ra = Double.parseDouble(values[arms[0]]) / pa;
            if (Math.abs(ra - 1000) < 50 || Math.abs(ra - 0.001) < 0.00005) {
                return "unit error: the published values are " + (ra > 1 ? "seconds" : "thousands")
                        + " where isobench reads milliseconds";
            }
            valuesDiffer = Math.abs(ra - 1) > 0.01 || Math.abs(Double.parseDouble(values[arms[1]]) / pb - 1) > 0.01;
        }
        if (valuesDiffer) {
            String commands = differentCommands(row, arms, p, runs);
            if (commands != null) {
                return "two different runs (different commands): " + commands;
            }
        }
        if (pa != null && pb != null && valuesDiffer) {
            boolean raw = "raw".equals(row.origins().get(arms[0])) || "raw".equals(row.origins().get(arms[1]));
            return (raw ? "raw line vs stored key" : "different values")
                    + ": published " + fmt(pa) + " → " + fmt(pb) + " (stored '" + old + "'), isobench "
                    + values[arms[0]] + " → " + values[arms[1]] + (raw ? " (raw console line)" : "");
        }
        if (!row.comparable()) {
            return "not comparable: " + row.status()
                    + (row.issues() == null ? "" : " (" + row.issues() + ")");
        }
        return "different computation: isobench applies DESIGN.md §5 (" + row.better()
                + " is better) to the parsed values";
    }

    /**
     * What tells the two numbers' runs apart by their commands, or null when every known command is the same: the
     * published record's arm against isobench's run of the same arm, the record's two arms, isobench's two arms.
     */
    private static String differentCommands(ThreeWayRow row, int[] arms, Record p, List<RunRecord> runs) {
        String[] mine = new String[3];
        for (int i : arms) {
            String id = row.runIds().get(i);
            for (RunRecord r : runs) {
                if (id != null && id.equals(r.runId())) {
                    mine[i] = r.details().perfCommand();
                }
            }
        }
        for (int i : arms) {
            String d = diff("the published " + ARMS[i], p.command(i), "isobench's " + ARMS[i], mine[i]);
            if (d != null) {
                return d;
            }
        }
        String d = diff("the published " + ARMS[arms[0]], p.command(arms[0]), "the published " + ARMS[arms[1]],
                p.command(arms[1]));
        return d != null ? d : diff("isobench's " + ARMS[arms[0]], mine[arms[0]], "isobench's " + ARMS[arms[1]],
                mine[arms[1]]);
    }

    /**
     * How command {@code a} differs from {@code b}, by the whitespace-separated words only one of them has; null when
     * either is unknown or both have the same words in the same order.
     */
    private static String diff(String nameA, String a, String nameB, String b) {
        if (a == null || b == null || a.isBlank() || b.isBlank()) {
            return null;
        }
        List<String> wa = List.of(a.trim().split("\\s+"));
        List<String> wb = List.of(b.trim().split("\\s+"));
        if (wa.equals(wb)) {
            return null;
        }
        List<String> onlyA = new ArrayList<>(wa);
        onlyA.removeAll(wb);
        List<String> onlyB = new ArrayList<>(wb);
        onlyB.removeAll(wa);
        if (onlyA.isEmpty() && onlyB.isEmpty()) {
            return nameA + " and " + nameB + " ran the same words in another order";
        }
        return nameA + "'s command has " + words(onlyA) + ", " + nameB + "'s " + words(onlyB);
    }

    private static String words(List<String> w) {
        if (w.isEmpty()) {
            return "nothing the other lacks";
        }
        List<String> shown = w.size() > COMMAND_TOKENS ? w.subList(0, COMMAND_TOKENS) : w;
        return "'" + String.join(" ", shown) + (w.size() > COMMAND_TOKENS ? " …" : "") + "'";
    }

    private static int armIndex(RunRecord r) {
        return switch (r.arm().kind()) {
            case BASELINE -> 0;
            case HUMAN -> 1;
            case AGENT -> 2;
            default -> -1;
        };
    }

    private static Double publishedValue(JsonNode p, String arm, String metric) {
        JsonNode v = p.path("values").path(arm).get(metric);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
