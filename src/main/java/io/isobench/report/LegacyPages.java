package io.isobench.report;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * {@code legacy.html} and its row pages ({@code legacy-AGENT-*.html}, {@code legacy-shared.html}): imported
 * ISO-Bench single runs; {@link #summary} is also the overview's imported-data section.
 */
final class LegacyPages extends HtmlPage {

    LegacyPages(HtmlContext context) {
        super(context);
    }

    void summary(StringBuilder b) {
        String band = band();
        b.append("<table id=\"legacy-summary\">\n").append(LegacyModel.summaryTable(band).htmlHeader(false));
        for (LegacyModel.AgentSection a : m.agents().values()) {
            b.append(Rows.htmlWith(a.summaryRow(), " data-agent=\"" + esc(a.agent()) + "\"", null,
                    colours::of));
        }
        b.append("</table>\n");
        List<String> cats = new ArrayList<>();
        long[][] v = new long[m.agents().size() * 2][];
        int i = 0;
        for (LegacyModel.AgentSection a : m.agents().values()) {
            cats.add(a.agent() + " vs baseline");
            v[i++] = new long[] {a.vsBaseline()[0], a.vsBaseline()[1], a.vsBaseline()[2]};
            cats.add(a.agent() + " vs human");
            v[i++] = new long[] {a.vsHuman()[0], a.vsHuman()[1], a.vsHuman()[2]};
        }
        b.append(Svg.stacked("Single-run win / tie / loss per agent (comparable commits, ±" + band + " % band)",
                "comparable commits (count)", "agent", cats, List.of(new Svg.Stack("win", Html.WIN),
                new Svg.Stack("tie", Html.TIE), new Svg.Stack("loss", Html.LOSS)), v));
    }

    void write() throws IOException {
        StringBuilder b = new StringBuilder("<h1>Imported legacy data</h1>\n");
        b.append("<p><span class=\"badge b-single\">single run</span> Imported ISO-Bench rows are single runs "
                + "(one run per arm, no noise estimate): win/tie/loss uses a stated ±").append(band())
                .append(" % band on the improvement (the final ISO-Bench analysis used ±5 %), not a confidence "
                        + "interval. Only <code>complete_3way_same_run</code> rows (three arms measured in one "
                        + "invocation, same model and workload) are counted. <span class=\"badge b-nc\">not "
                        + "comparable</span> cross-run rows (arms from separate invocations) are listed apart and "
                        + "never counted.</p>\n");
        b.append("<p class=\"note\">Improvements in percent, positive = better (lower-is-better: (B − X)/B × 100; "
                + "higher-is-better: (X − B)/B × 100; agent vs human uses the human value as B).</p>\n");
        if (m.agents().isEmpty()) {
            b.append("<p>No imported 3-way data in this store.</p>\n");
            site.page("legacy.html", "Imported legacy data", b.toString());
            return;
        }
        summary(b);
        String band = band();
        for (LegacyModel.AgentSection a : m.agents().values()) {
            String slug = Html.slug(a.agent());
            String base = "legacy-" + slug;
            b.append("<h2 id=\"agent-").append(slug).append("\">Agent: ").append(esc(a.agent())).append("</h2>\n<ul>\n");
            b.append(link(base + "-comparable", "Comparable 3-way rows (same run, single run per arm)",
                    a.comparable().lines()));
            b.append(link(base + "-undefined", "Same-run rows with an undefined Δ (shown, not counted)",
                    a.undefinedDelta().lines()));
            b.append(link(base + "-issues", "Same-run rows with issues (not counted)", a.withIssues().lines()));
            b.append(link(base + "-cross-run", "Cross-run rows — not comparable", a.crossRun().lines()));
            b.append(link(base + "-incomplete", "Incomplete and no-metrics commits", a.incomplete().lines()));
            b.append("</ul>\n");
            if (!a.agentFailureCategories().isEmpty()) {
                b.append("<table>\n").append(th("agent failure (outcome)", "commits"));
                a.agentFailureCategories().forEach((k, v) -> b.append("<tr><td><code>").append(esc(k))
                        .append("</code></td>").append(td(v)).append("</tr>\n"));
                b.append("</table>\n");
            }
            String back = "<p><a href=\"legacy.html#agent-" + slug + "\">← " + esc(a.agent()) + "</a></p>\n";
            spoolPages(base + "-comparable", a.agent() + ": comparable 3-way rows (single runs)", back
                            + "<p><span class=\"badge b-single\">single run</span> every value is one run per arm; "
                            + "win/tie/loss on a ±" + band + " % band.</p>\n",
                    LegacyModel.comparableTable(band), a.comparable(), new RowMark("single-run",
                            "<span class=\"badge b-single\">single run</span>"));
            spoolPages(base + "-undefined", a.agent() + ": same-run rows with an undefined Δ", back,
                    LegacyModel.UNDEFINED_TABLE, a.undefinedDelta(), new RowMark("single-run",
                            "<span class=\"badge b-single\">single run</span> not counted"));
            spoolPages(base + "-issues", a.agent() + ": same-run rows with issues", back,
                    LegacyModel.ISSUES_TABLE, a.withIssues(), new RowMark("single-run",
                            "<span class=\"badge b-single\">single run</span> not counted"));
            spoolPages(base + "-cross-run", a.agent() + ": cross-run rows — not comparable", back
                            + "<p><span class=\"badge b-nc\">not comparable</span> the three values come from separate "
                            + "invocations: never counted, never read as a win or loss.</p>\n",
                    LegacyModel.CROSS_RUN_TABLE, a.crossRun(), new RowMark("not-comparable",
                            "<span class=\"badge b-nc\">not comparable</span>"));
            spoolPages(base + "-incomplete", a.agent() + ": incomplete and no-metrics commits", back,
                    LegacyModel.INCOMPLETE_TABLE, a.incomplete(), RowMark.NONE);
        }
        if (m.agents().size() >= 2) {
            b.append("<h2 id=\"shared\">Agent comparison on shared commits</h2>\n<p>")
                    .append(m.shared().lines()).append(" commit(s) with a comparable row for two or more agents: "
                            + "<a href=\"legacy-shared.html\">agent Δ % per commit</a>.</p>\n");
            spoolPages("legacy-shared", "Agent comparison on shared commits (single runs)",
                    "<p><a href=\"legacy.html#shared\">← imported legacy data</a></p><p class=\"note\">Agent Δ % "
                            + "vs baseline; empty = no comparable row for that agent.</p>\n",
                    m.sharedTable(), m.shared(), new RowMark("single-run",
                            "<span class=\"badge b-single\">single run</span>"));
        }
        site.page("legacy.html", "Imported legacy data", b.toString());
    }

    private static String link(String base, String title, int rows) {
        return "<li><a href=\"" + base + ".html\">" + esc(title) + "</a> — " + rows + " row(s)</li>\n";
    }
}
