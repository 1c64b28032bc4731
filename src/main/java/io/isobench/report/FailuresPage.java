package io.isobench.report;

import io.isobench.Arm;
import io.isobench.parse.FailureCategory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.nz;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/** {@code failures.html} (categories by arm, native outcomes per task, to-do list) and {@code todo.html}. */
final class FailuresPage extends HtmlPage {

    FailuresPage(HtmlContext context) {
        super(context);
    }

    void write() throws IOException {
        StringBuilder b = new StringBuilder("<h1>Failures</h1>\n");
        b.append("<p class=\"note\">Every failed run has exactly one category. Retry: <code>yes</code> = retry as "
                + "is; <code>after_cleanup</code>, <code>fix_recipe</code>, <code>maybe</code> = fixable; "
                + "<code>no</code> = needs a new build, token or command. Agent outcomes (the patch failed, broke "
                + "the engine or changed the outputs) are results, not to-dos.</p>\n");
        var fc = model.failures();
        b.append("<h2 id=\"by-category\">By category and arm</h2>\n");
        if (fc.isEmpty()) {
            b.append("<p>No failed runs.</p>\n");
        } else {
            List<String> cats = new ArrayList<>();
            long[][] v = new long[fc.size()][];
            for (int i = 0; i < fc.size(); i++) {
                var f = fc.get(i);
                cats.add(f.category());
                v[i] = new long[] {f.baselineRuns(), f.humanRuns(), f.agentRuns(), f.noArmRuns()};
            }
            b.append(Svg.stacked("Failed runs by category and arm", "failed runs (count)", "category", cats,
                    List.of(new Svg.Stack("baseline", Html.BASELINE),
                    new Svg.Stack("human", Html.HUMAN), new Svg.Stack("agent", Html.AGENTS[0]),
                    new Svg.Stack("no arm (harness)", Html.NO_ARM)), v));
            b.append("<table id=\"failure-table\">\n").append(th("category", "runs", "baseline", "human", "agent", "no arm",
                    "retry", "fixable", "agent outcome", "example evidence", "example commits"));
            for (var f : fc) {
                FailureCategory c = Html.category(f.category());
                b.append("<tr data-category=\"").append(esc(f.category())).append("\"><td><code>")
                        .append(esc(f.category())).append("</code></td>").append(td(f.runs()))
                        .append(td(f.baselineRuns())).append(td(f.humanRuns())).append(td(f.agentRuns()))
                        .append(td(f.noArmRuns()))
                        .append(td(c == null ? "?" : c.retry().label()))
                        .append(td(c == null ? "?" : c.fixable() ? "yes" : "no"))
                        .append(td(c == null ? "?" : c.agentOutcome() ? "yes" : "no"))
                        .append("<td><code>").append(esc(nz(Md.firstLine(f.exampleEvidence()))))
                        .append("</code></td><td>").append(esc(String.join(", ", f.exampleCommits())
                                + (f.moreCommits() ? ", …" : ""))).append("</td></tr>\n");
            }
            b.append("</table>\n");
            if (!tasks.isEmpty()) {
                b.append("<p class=\"note\" id=\"counting\">Counting: ").append(esc(FailureCounts.RULE))
                        .append(".</p>\n");
            }
        }
        b.append("<h2 id=\"native-outcomes\">Native sessions: outcomes per task and arm</h2>\n");
        StringBuilder rows = new StringBuilder();
        for (NativeTask t : tasks) {
            for (Map.Entry<Arm, Map<String, Integer>> e : t.result().outcomes().entrySet()) {
                for (Map.Entry<String, Integer> c : e.getValue().entrySet()) {
                    FailureCategory cat = Html.category(c.getKey());
                    rows.append("<tr><td><a href=\"").append(t.page()).append("#task-failures\">")
                            .append(esc(t.result().taskId())).append("</a></td><td>")
                            .append(Html.armLabel(e.getKey().label(), colours.of(e.getKey().label())))
                            .append("</td><td><code>")
                            .append(esc(c.getKey())).append("</code></td>")
                            .append(td(FailureCounts.counted(c.getKey(), c.getValue())))
                            .append(td(cat == null ? "?" : cat.retry().label())).append("</tr>\n");
                }
            }
        }
        if (rows.isEmpty()) {
            b.append("<p>None.</p>\n");
        } else {
            b.append("<table>\n").append(th("task", "arm", "category", "runs", "retry")).append(rows)
                    .append("</table>\n");
        }
        b.append("<h2 id=\"todo\">To-do list</h2>\n");
        List<Rows.Row> nativeTodo = NativeTodo.rows(tasks);
        if (!nativeTodo.isEmpty()) {
            b.append("<table id=\"native-todo\">\n").append(NativeTodo.TABLE.htmlHeader(false));
            for (Rows.Row r : nativeTodo) {
                b.append(Rows.html(r, null, null, colours::of));
            }
            b.append("</table>\n");
        }
        int todo = m.todo().lines();
        if (todo > 0) {
            b.append("<p>Imported legacy data: ").append(todo).append(" commit(s) to rerun or rebuild — <a href=\""
                    + "todo.html\">legacy to-do list</a>.</p>\n");
        } else if (nativeTodo.isEmpty()) {
            b.append("<p>Nothing to rerun.</p>\n");
        }
        site.page("failures.html", "Failures", b.toString());
        spoolPages("todo", "To-do list (imported legacy data)", "<p class=\"note\">What to rerun or rebuild, and "
                        + "why (from the failure category of the missing arm, or the reason the row is not "
                        + "comparable). <a href=\"failures.html\">← failures</a></p>\n",
                LegacyModel.TODO_TABLE, m.todo(), RowMark.NONE);
    }
}
