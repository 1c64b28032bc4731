package io.isobench.report;

import io.isobench.Arm;
import io.isobench.analysis.MedianCi;
import io.isobench.analysis.PilotTable;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.SweepAnalysis;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import static io.isobench.report.Html.esc;

/**
 * A sweep task's section of the reports (Markdown and HTML; docs/statistics.md, "Load sweeps and capacity"): the
 * capacity table (per arm: capacity at the SLO, median over rounds with its CI, and the per-round values), the metric
 * distributions per arm and load point, and in HTML the latency–throughput curves ({@link SweepChart}). The verdict on
 * capacity is the task's arm table, drawn by the usual renderers.
 */
final class SweepReport {

    /** The latencies drawn as curves, when the runs have them. */
    static final List<String> CURVES = List.of("ttft_ms_p99", "tpot_ms_p99");

    private static final List<String> HEADERS = List.of("req/s", "output tok/s", "good fraction", "TTFT p50 ms",
            "TTFT p99 ms", "TPOT p50 ms", "TPOT p99 ms", "E2E p50 ms", "E2E p99 ms");
    private static final List<String> COLUMNS = List.of("request_throughput_rps", "output_throughput_tok_s",
            "good_fraction", "ttft_ms_median", "ttft_ms_p99", "tpot_ms_median", "tpot_ms_p99", "e2el_ms_median",
            "e2el_ms_p99");

    private SweepReport() {
    }

    /** The rule in one paragraph, for both formats. */
    static String rule(SweepAnalysis s) {
        return String.format(Locale.ROOT, "Capacity at the SLO: per round, the highest %s point that is met together"
                + " with every lower point; a point is met when at least %s %% of its requests meet every `--goodput`"
                + " target (below the lowest point the round counts as half the lowest point, a censored value). The"
                + " capacity shown is the median over rounds with its bootstrap CI; the verdict on capacity (metric"
                + " `%s`) keeps no interval: the exact sign test over the paired rounds' capacities at the grid's"
                + " resolution decides it, better or worse at p <= 0.05 (a lower, sequential level with adaptive"
                + " rounds) with the median ratio beyond the margin; equivalent only when every one of >= 6 rounds"
                + " tied on a grid finer than the margin; ties on a coarser grid are inconclusive: below the sweep's"
                + " resolution (docs/statistics.md section 17).",
                s.axis().kind(),
                Svg.num(s.axis().minGoodFraction() * 100), SweepAnalysis.metricName(s.axis().kind()));
    }

    /** The Markdown section of a sweep task (nothing for other tasks). */
    static void markdown(SessionAnalysis.TaskResult t, StringBuilder sb) {
        SweepAnalysis s = t.sweep();
        if (s == null) {
            return;
        }
        sb.append("#### Load sweep: ").append(s.axis().kind()).append(" (").append(s.axis().unit()).append(") at ")
                .append(String.join(", ", s.axis().points().stream().map(Svg::num).toList())).append("\n\n");
        sb.append(rule(s)).append("\n\n");
        if (s.pilots() != null) {
            sb.append(pilotsText(s.pilots())).append("\n\n| ").append(String.join(" | ", PILOT_HEADERS))
                    .append(" |\n|").append("---|".repeat(PILOT_HEADERS.size())).append('\n');
            for (List<String> row : pilotRows(s.pilots())) {
                sb.append("| ").append(String.join(" | ", row)).append(" |\n");
            }
            sb.append('\n');
        }
        sb.append("| arm | capacity | median [95 % bootstrap CI] | rounds | below lowest point | every point met |"
                + " per round |\n");
        sb.append("|---|---|---|---|---|---|---|\n");
        for (Arm typed : t.armOrder()) {
            String arm = typed.label(); // a sweep's capacities are kept by label (SweepAnalysis)
            SweepAnalysis.Capacity c = s.capacity().get(arm);
            if (c == null) {
                continue;
            }
            sb.append("| ").append(arm).append(" | ").append(s.capacityText(arm)).append(" | ").append(ci(c.value()))
                    .append(" | ").append(c.perRound().size()).append(" | ").append(c.belowLowest()).append(" | ")
                    .append(c.atHighest()).append(" | ").append(perRound(c)).append(" |\n");
        }
        sb.append("\nPer arm and load point (median over rounds [95 % bootstrap CI]; met: rounds in which the point was"
                + " met):\n\n");
        sb.append("| arm | ").append(s.axis().kind()).append(" | runs | met | ").append(String.join(" | ", HEADERS))
                .append(" |\n|---|---|---|---|").append("---|".repeat(HEADERS.size())).append('\n');
        for (Map.Entry<String, List<SweepAnalysis.PointStats>> e : s.curves().entrySet()) {
            for (SweepAnalysis.PointStats p : e.getValue()) {
                sb.append("| ").append(e.getKey()).append(" | ").append(Svg.num(p.load())).append(" | ")
                        .append(p.runs()).append(" | ").append(p.met());
                for (String m : COLUMNS) {
                    sb.append(" | ").append(ci(p.metrics().get(m)));
                }
                sb.append(" |\n");
            }
        }
        sb.append('\n');
    }

    /** The HTML section of a sweep task: curves, capacity table, per-point table. */
    static void html(StringBuilder b, SessionAnalysis.TaskResult t, Function<String, String> colour) {
        SweepAnalysis s = t.sweep();
        if (s == null) {
            return;
        }
        b.append("<h2 id=\"sweep\">Load sweep: ").append(esc(s.axis().kind())).append(" (")
                .append(esc(s.axis().unit())).append(")</h2>\n<p class=\"note\">").append(esc(rule(s).replace("`", "")))
                .append("</p>\n");
        if (s.pilots() != null) {
            b.append("<h3 id=\"sweep-pilots\">Pilot phase</h3>\n<p class=\"note\">").append(esc(
                    pilotsText(s.pilots()).replace("`", ""))).append("</p>\n<table>\n")
                    .append(Html.th(PILOT_HEADERS.toArray(String[]::new)));
            for (List<String> row : pilotRows(s.pilots())) {
                b.append("<tr>");
                row.forEach(c -> b.append(Html.td(c)));
                b.append("</tr>\n");
            }
            b.append("</table>\n");
        }
        for (String y : CURVES) {
            b.append(SweepChart.curve("Latency–throughput curve of task " + t.taskId() + ": " + y, s, y, colour));
        }
        b.append("<h3 id=\"capacity\">Capacity at the SLO</h3>\n<table>\n").append(Html.th("arm", "capacity",
                "median [95 % bootstrap CI]", "rounds", "below lowest point", "every point met", "per round"));
        for (Arm typed : t.armOrder()) {
            String arm = typed.label(); // a sweep's capacities are kept by label (SweepAnalysis)
            SweepAnalysis.Capacity c = s.capacity().get(arm);
            if (c == null) {
                continue;
            }
            b.append("<tr><td>").append(Html.armLabel(arm, colour.apply(arm))).append("</td>")
                    .append(Html.td(s.capacityText(arm))).append(Html.td(ci(c.value())))
                    .append(Html.td(c.perRound().size())).append(Html.td(c.belowLowest())).append(Html.td(c.atHighest()))
                    .append(Html.td(perRound(c))).append("</tr>\n");
        }
        b.append("</table>\n<h3 id=\"sweep-points\">Per arm and load point</h3>\n<table>\n");
        String[] head = new String[4 + HEADERS.size()];
        head[0] = "arm";
        head[1] = s.axis().kind();
        head[2] = "runs";
        head[3] = "met";
        for (int i = 0; i < HEADERS.size(); i++) {
            head[4 + i] = HEADERS.get(i);
        }
        b.append(Html.th(head));
        for (Map.Entry<String, List<SweepAnalysis.PointStats>> e : s.curves().entrySet()) {
            for (SweepAnalysis.PointStats p : e.getValue()) {
                b.append("<tr><td>").append(Html.armLabel(e.getKey(), colour.apply(e.getKey()))).append("</td>")
                        .append(Html.td(Svg.num(p.load()))).append(Html.td(p.runs())).append(Html.td(p.met()));
                for (String m : COLUMNS) {
                    b.append(Html.td(ci(p.metrics().get(m))));
                }
                b.append("</tr>\n");
            }
        }
        b.append("</table>\n");
    }

    private static final List<String> PILOT_HEADERS = List.of("pilot", "offered req/s", "achieved req/s",
            "good fraction", "SLO met", "throughput growth");

    /** Where an auto sweep's points came from, one paragraph for both formats. */
    static String pilotsText(PilotTable p) {
        return "The points came from `sweep: auto`'s pilot phase: " + p.rows().size() + " pilot run(s) of the baseline"
                + " before round 1, the same points for every arm (rule: " + p.rule() + "). " + capitalised(p.why())
                + ". The pilots are shown here and never counted as measurements.";
    }

    private static String capitalised(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static List<List<String>> pilotRows(PilotTable p) {
        return p.rows().stream().map(r -> List.of(Integer.toString(r.n()), Svg.num(r.offeredRps()),
                Svg.num(r.achievedRps()), r.goodFraction() == null ? "–" : Svg.num(r.goodFraction()),
                r.sloMet() ? "yes" : "no", r.growth() == null ? "–" : String.format(Locale.ROOT, "%+.0f %%",
                        r.growth() * 100))).toList();
    }

    private static String perRound(SweepAnalysis.Capacity c) {
        return String.join(", ", c.perRound().values().stream().map(Svg::num).toList());
    }

    /** {@code 2.1 [2, 2.3]}; "–" when absent. */
    static String ci(MedianCi m) {
        if (m == null) {
            return "–";
        }
        return Svg.num(m.median()) + " [" + Svg.num(m.low()) + ", " + Svg.num(m.high()) + "]";
    }
}
