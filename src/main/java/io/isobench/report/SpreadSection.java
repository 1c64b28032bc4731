package io.isobench.report;

import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.SessionSpread;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.isobench.report.Html.esc;

/**
 * The spread between sessions ({@link BetweenSessions}, docs/statistics.md §19) in the Markdown and HTML reports:
 * per comparison measured in two or more sessions on the same hardware, each session's speedup with its CI, τ, Q and
 * I², and the pooled speedup with its HKSJ interval — the same cells in both formats.
 */
final class SpreadSection {

    private SpreadSection() {
    }

    /** What the table's numbers are, once per section. */
    static String method(BetweenSessions b) {
        return String.format(Locale.ROOT, "Random effects over sessions (docs/statistics.md §19): τ is the"
                + " DerSimonian–Laird between-session standard deviation of the log speedup, shown as the typical"
                + " session-to-session change exp(τ) − 1; Q and I² say how much the sessions disagree beyond their own"
                + " intervals; the pooled speedup has a Hartung–Knapp–Sidik–Jonkman %s %% interval (t with k − 1 degrees"
                + " of freedom, max(1, q) truncation), wide by design with few sessions. Failed and incorrect arms are"
                + " outcomes, never pooled.", pct0(b.confidence()));
    }

    private static final String[] HEADERS = {"task", "comparison", "hardware",
        "per session (oldest first): speedup [CI]", "between-session spread τ", "Q (I²)", "pooled speedup [CI]"};

    /** The section with its table (headings at {@code heading}); nothing when no comparison has two sessions. */
    static void markdown(BetweenSessions b, StringBuilder sb, String heading) {
        if (b.groups().isEmpty()) {
            return;
        }
        sb.append(heading).append(" Between sessions (same task, same hardware)\n\n").append(method(b)).append("\n\n");
        sb.append("| ").append(String.join(" | ", HEADERS)).append(" |\n|---|---|---|---|---|---|---|\n");
        for (BetweenSessions.Group g : b.groups()) {
            List<String> c = cells(g);
            c.set(3, String.join("; ", sessions(g)));
            sb.append("| ").append(String.join(" | ", c.stream().map(SpreadSection::mdCell).toList())).append(" |\n");
        }
        sb.append('\n');
    }

    /** Under a task's table: one plain line per comparison of the task measured in other sessions too. */
    static void taskMarkdown(List<BetweenSessions.Group> groups, StringBuilder sb) {
        if (groups.isEmpty()) {
            return;
        }
        sb.append("\nBetween sessions (this task on the same hardware; section \"Between sessions\"):\n\n");
        for (BetweenSessions.Group g : groups) {
            sb.append("- ").append(g.comparison()).append(": ").append(mdCell(g.spread().line())).append('\n');
        }
    }

    /**
     * The table in HTML ({@code id}: its element id); {@code current}, when not null, is the session of the page,
     * marked in bold among the sessions.
     */
    static String html(List<BetweenSessions.Group> groups, String id, String current) {
        StringBuilder b = new StringBuilder("<table id=\"").append(esc(id)).append("\">\n").append(Html.th(HEADERS));
        for (BetweenSessions.Group g : groups) {
            List<String> c = cells(g);
            b.append("<tr data-task=\"").append(esc(g.taskId())).append("\" data-arm=\"").append(esc(g.arm()))
                    .append("\">").append(Html.td(c.get(0))).append(Html.td(c.get(1))).append(Html.td(c.get(2)))
                    .append("<td data-key=\"sessions\">");
            List<String> s = sessions(g);
            for (int i = 0; i < s.size(); i++) {
                boolean mark = g.sessions().get(i).sessionId().equals(current);
                b.append(i == 0 ? "" : "; ").append(mark ? "<strong>" : "").append(esc(s.get(i)))
                        .append(mark ? "</strong>" : "");
            }
            b.append("</td>").append(cell("tau", c.get(4))).append(Html.td(c.get(5))).append(cell("pooled", c.get(6)))
                    .append("</tr>\n");
        }
        return b.append("</table>\n").toString();
    }

    /** The row's cells; the per-session cell (3) is filled by each format from {@link #sessions}. */
    private static List<String> cells(BetweenSessions.Group g) {
        SessionSpread s = g.spread();
        List<String> c = new ArrayList<>();
        c.add(g.taskId());
        c.add(g.comparison());
        c.add(g.hardware() == null ? "not recorded" : g.hardware());
        c.add("");
        c.add(String.format(Locale.ROOT, "±%.1f %%", s.tauPct()));
        c.add(String.format(Locale.ROOT, "%.1f (%.0f %%)", s.q(), s.i2() * 100));
        c.add(String.format(Locale.ROOT, "%.3f× [%.3f, %.3f] (k = %d, HKSJ)", s.pooledSpeedup(), s.ciLowSpeedup(),
                s.ciHighSpeedup(), s.k()));
        return c;
    }

    /** Per session: {@code s1 4.310× [4.270, 4.350]}, or {@code s3 incorrect (not pooled)}. */
    private static List<String> sessions(BetweenSessions.Group g) {
        List<String> out = new ArrayList<>();
        for (BetweenSessions.Measured m : g.sessions()) {
            out.add(m.sessionId() + " " + (m.leftOut() == null ? SessionReport.speedup(m.comparison())
                    : m.leftOut() + " (not pooled)"));
        }
        return out;
    }

    private static String cell(String key, String text) {
        return "<td class=\"num\" data-key=\"" + key + "\">" + esc(text) + "</td>";
    }

    private static String mdCell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    /** 95, 97.5: the level without trailing zeros. */
    private static String pct0(double confidence) {
        return new BigDecimal(confidence * 100).round(new MathContext(10)).stripTrailingZeros().toPlainString();
    }
}
