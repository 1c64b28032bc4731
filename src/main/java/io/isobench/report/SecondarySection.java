package io.isobench.report;

import io.isobench.Arm;
import io.isobench.analysis.SecondaryMetrics;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.TtftCrossCheck;
import io.isobench.parse.Better;
import io.isobench.parse.TtftGap;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * A task's secondary metrics next to its verdict ({@link SecondaryMetrics}; docs/server-metrics.md and
 * docs/gpu-telemetry.md, "In the report"): the server-metric and GPU-telemetry changes per arm vs baseline with their
 * CIs, what is not shown and why, and the client-vs-server TTFT cross-check with the flagged runs. The Markdown and
 * the HTML task page show the same cells ({@link #deltaTable}, {@link #gapTable}).
 */
final class SecondarySection {

    /** Under every secondary table: what the numbers are, and that they decide nothing. */
    static final String NOTE = "Not judged: a secondary metric never changes a verdict. Each cell: the arm's median over"
            + " the rounds that count for the verdict, then its change vs baseline (arm / baseline − 1, the paired"
            + " estimate over the same rounds as the verdict, the A/A run standing in only where the baseline's is"
            + " missing) with its 95 % CI (a fixed level: descriptive, never a verdict).";

    /**
     * What the cross-check is, naming the server's TTFT family in the namespace of the server metrics shown
     * ({@code vllm:}, {@code sglang:}: the first namespaced name among the rows, then the omitted; vLLM's when none).
     */
    static String gapNote(SecondaryMetrics s) {
        String ns = Stream.concat(s.rows().stream().map(SecondaryMetrics.Row::metric),
                        s.omitted().stream().flatMap(o -> o.metrics().stream()))
                .filter(n -> n.indexOf(':') > 0).map(n -> n.substring(0, n.indexOf(':') + 1)).findFirst()
                .orElse("vllm:");
        return "Client TTFT mean − the server's " + ns + "time_to_first_token mean, per counted run:"
                + " connection, HTTP handling, the network and the client's own cost. Flagged"
                + " (ttft_client_server_gap_large) when " + TtftGap.rule() + ".";
    }

    private SecondarySection() {
    }

    /** A table as cells: the header, then the rows. */
    record Table(List<String> header, List<List<String>> rows) {
    }

    /** Arms with a column: those with a median or a delta in some row, in plan order. */
    private static List<Arm> columns(SessionAnalysis.TaskResult t) {
        Set<Arm> seen = new LinkedHashSet<>();
        for (SecondaryMetrics.Row r : t.secondary().rows()) {
            seen.addAll(r.medians().keySet());
            r.deltas().forEach(d -> seen.add(d.arm()));
        }
        List<Arm> out = new ArrayList<>();
        for (Arm a : t.armOrder()) {
            if (seen.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    /** One row per shown metric: the metric with its unit and direction, then per arm its median and change. */
    static Table deltaTable(SessionAnalysis.TaskResult t) {
        List<Arm> arms = columns(t);
        List<String> header = new ArrayList<>(List.of("metric", "source"));
        arms.forEach(a -> header.add(a.label()));
        List<List<String>> rows = new ArrayList<>();
        for (SecondaryMetrics.Row r : t.secondary().rows()) {
            List<String> row = new ArrayList<>();
            row.add(r.metric() + " (" + (r.unit() == null ? "?" : r.unit())
                    + (r.better() == Better.NONE ? "" : ", " + r.better().label() + " is better")
                    + ")");
            row.add(r.source().label());
            for (Arm arm : arms) {
                Double m = r.medians().get(arm);
                String cell = m == null ? "not recorded" : num(m);
                for (SecondaryMetrics.Delta d : r.deltas()) {
                    if (d.arm().equals(arm)) {
                        cell += " (" + change(d) + ")";
                    }
                }
                row.add(cell);
            }
            rows.add(row);
        }
        return new Table(header, rows);
    }

    /** {@code −38.0 % [−40.1, −35.8]}, or the note. */
    static String change(SecondaryMetrics.Delta d) {
        if (d.changePct() == null) {
            return d.note();
        }
        String s = signed(d.changePct()) + " %";
        return d.ciLowPct() == null ? s + ", " + d.note()
                : s + " [" + signed(d.ciLowPct()) + ", " + signed(d.ciHighPct()) + "]";
    }

    /** One decimal with its sign, never {@code -0.0}. */
    private static String signed(double pct) {
        return String.format(Locale.ROOT, "%+.1f", Math.round(pct * 10) / 10.0);
    }

    /** Human vs baseline in one line ({@code vllm:x −41.0 % [−50.2, −30.9]; gpu_y +1.0 % […]}); null when none. */
    static String humanLine(SessionAnalysis.TaskResult t) {
        List<String> parts = new ArrayList<>();
        for (SecondaryMetrics.Row r : t.secondary().rows()) {
            for (SecondaryMetrics.Delta d : r.deltas()) {
                if (d.arm().equals(Arm.HUMAN) && d.changePct() != null) {
                    parts.add(r.metric() + " " + change(d));
                }
            }
        }
        return parts.isEmpty() ? null : String.join("; ", parts);
    }

    /** Per arm: runs, the gap's median [min, max], the client's and the server's TTFT medians, flagged runs. */
    static Table gapTable(TtftCrossCheck c) {
        List<List<String>> rows = new ArrayList<>();
        for (TtftCrossCheck.ArmGaps a : c.arms()) {
            rows.add(List.of(a.arm().label(), Integer.toString(a.runs()), String.format(Locale.ROOT, "%s [%s, %s]",
                            num(a.gapMedianMs()), num(a.gapMinMs()), num(a.gapMaxMs())), num(a.clientMedianMs()),
                    num(a.serverMedianMs()), Integer.toString(a.flaggedRuns())));
        }
        return new Table(List.of("arm", "runs", "client − server TTFT, ms: median [min, max]",
                "client TTFT median (ms)", "server TTFT median (ms)", "flagged runs"), rows);
    }

    /** A flagged run: {@code round 3, human: client 45.20 ms, server 12.10 ms, gap 33.10 ms (73 % of the client's)}. */
    static String flagged(TtftCrossCheck.Flagged f) {
        return String.format(Locale.ROOT, "round %d, %s: client %s ms, server %s ms, gap %s ms%s", f.round() + 1,
                f.arm().label(), num(f.clientMs()), num(f.serverMs()), num(f.gapMs()), f.sharePct() == null ? ""
                        : String.format(Locale.ROOT, " (%.0f %% of the client's)", f.sharePct()));
    }

    /** Four significant digits, plain notation ({@code 612.4}, {@code 0.3712}, {@code 13250}). */
    static String num(double v) {
        if (v == 0) {
            return "0";
        }
        String s = new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros()
                .toPlainString();
        return s;
    }

    /** The Markdown block of a task (after its arm table). */
    static void markdown(SessionAnalysis.TaskResult t, StringBuilder sb) {
        SecondaryMetrics s = t.secondary();
        if (s.rows().isEmpty() && s.ttft().omittedReason() != null) {
            sb.append("\nSecondary metrics (server /metrics and GPU telemetry): none (")
                    .append(cell(String.join("; ", s.omitted().stream().map(SecondaryMetrics.Omitted::oneLine)
                            .toList()))).append(").\n");
            return;
        }
        sb.append("\nSecondary metrics (server /metrics and GPU telemetry; not judged):");
        String human = humanLine(t);
        sb.append(human == null ? "" : " human vs baseline: " + cell(human) + ".").append("\n\n");
        if (!s.rows().isEmpty()) {
            mdTable(deltaTable(t), sb);
            sb.append('\n').append(NOTE).append("\n\n");
        }
        for (SecondaryMetrics.Omitted o : s.omitted()) {
            sb.append("- not shown: ").append(cell(o.oneLine())).append('\n');
        }
        if (!s.omitted().isEmpty()) {
            sb.append('\n');
        }
        TtftCrossCheck c = s.ttft();
        sb.append("Client-vs-server TTFT cross-check: ");
        if (c.omittedReason() != null) {
            sb.append("not shown: ").append(cell(c.omittedReason())).append(".\n");
            return;
        }
        sb.append(gapNote(s)).append("\n\n");
        mdTable(gapTable(c), sb);
        sb.append('\n');
        if (c.flagged().isEmpty()) {
            sb.append("Runs flagged `ttft_client_server_gap_large`: none.\n");
        } else {
            sb.append("Runs flagged `ttft_client_server_gap_large`:\n\n");
            for (TtftCrossCheck.Flagged f : c.flagged()) {
                sb.append("- ").append(flagged(f)).append('\n');
            }
        }
    }

    private static void mdTable(Table t, StringBuilder sb) {
        sb.append("| ").append(String.join(" | ", t.header().stream().map(SecondarySection::cell).toList()))
                .append(" |\n|").append("---|".repeat(t.header().size())).append('\n');
        for (List<String> row : t.rows()) {
            sb.append("| ").append(String.join(" | ", row.stream().map(SecondarySection::cell).toList()))
                    .append(" |\n");
        }
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    /** The HTML section of a task page ({@code id="secondary"}, {@code id="ttft-cross-check"}). */
    static void html(SessionAnalysis.TaskResult t, StringBuilder b) {
        SecondaryMetrics s = t.secondary();
        b.append("<h2 id=\"secondary\">Secondary metrics (not judged)</h2>\n");
        String human = humanLine(t);
        if (human != null) {
            b.append("<p id=\"secondary-human\">Human vs baseline: ").append(esc(human)).append(".</p>\n");
        }
        if (!s.rows().isEmpty()) {
            htmlTable(deltaTable(t), "secondary-table", b);
            b.append("<p class=\"note\">").append(esc(NOTE)).append("</p>\n");
        }
        if (!s.omitted().isEmpty()) {
            b.append("<ul id=\"secondary-omitted\">\n");
            for (SecondaryMetrics.Omitted o : s.omitted()) {
                b.append("<li>not shown: ").append(esc(o.oneLine())).append("</li>\n");
            }
            b.append("</ul>\n");
        }
        TtftCrossCheck c = s.ttft();
        b.append("<h3 id=\"ttft-cross-check\">Client-vs-server TTFT cross-check</h3>\n");
        if (c.omittedReason() != null) {
            b.append("<p>Not shown: ").append(esc(c.omittedReason())).append(".</p>\n");
            return;
        }
        b.append("<p class=\"note\">").append(esc(gapNote(s))).append("</p>\n");
        htmlTable(gapTable(c), "ttft-gap-table", b);
        if (c.flagged().isEmpty()) {
            b.append("<p>Runs flagged large: none.</p>\n");
        } else {
            b.append("<ul id=\"ttft-flagged\">\n");
            for (TtftCrossCheck.Flagged f : c.flagged()) {
                b.append("<li>").append(esc(flagged(f))).append("</li>\n");
            }
            b.append("</ul>\n");
        }
    }

    private static void htmlTable(Table t, String id, StringBuilder b) {
        b.append("<table id=\"").append(id).append("\">\n").append(th(t.header().toArray(String[]::new)));
        for (List<String> row : t.rows()) {
            b.append("<tr>");
            row.forEach(c -> b.append(td(c)));
            b.append("</tr>\n");
        }
        b.append("</table>\n");
    }
}
