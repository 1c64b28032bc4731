package io.isobench.report;

import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.TaskAnalysis;

import java.io.IOException;
import java.util.List;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/** {@code tasks.html} (paged): every native task in plan order; its rows also make the overview's task tables. */
final class TaskListPage extends HtmlPage {

    TaskListPage(HtmlContext context) {
        super(context);
    }

    String table(List<NativeTask> list, int limit, String id) {
        StringBuilder b = new StringBuilder("<table id=\"").append(id).append("\">\n");
        b.append(th("session", "task", "mode", "metric", "replay", "A/A check", "human vs baseline",
                "agent verdicts vs human", "rounds"));
        int n = 0;
        for (NativeTask t : list) {
            if (n++ == limit) {
                break;
            }
            b.append(row(t));
        }
        b.append("</table>\n");
        if (list.size() > limit) {
            b.append("<p class=\"note\">First ").append(limit).append(" of ").append(list.size())
                    .append("; all on the <a href=\"tasks.html\">task list</a>.</p>\n");
        }
        return b.toString();
    }

    private String row(NativeTask t) {
        SessionAnalysis.TaskResult r = t.result();
        TaskAnalysis ta = r.analysis();
        StringBuilder v = new StringBuilder();
        if (ta != null) {
            for (AgentOutcome o : ta.agents()) {
                v.append(v.isEmpty() ? "" : "; ").append(esc(o.agentName())).append(": ")
                        .append(Html.verdict(o.vsHuman()));
            }
        }
        boolean low = ta == null || !"valid".equals(ta.replayValidity().label());
        return "<tr><td>" + esc(t.session().sessionId()) + "</td><td><a href=\"" + t.page() + "\">"
                + esc(r.taskId()) + "</a></td>" + td(t.modeShown()) + "<td><code>"
                + esc(ta == null ? "—" : ta.metric()) + "</code></td><td>"
                + (ta == null ? "—" : esc(ta.replayValidity().label()))
                + (low ? " <span class=\"badge b-low\">low signal</span>" : "") + "</td>"
                + td(ta == null ? "—" : ReadingText.aaShort(ta)) + "<td>"
                + (ta == null ? "—" : Html.verdict(ta.humanVsBaseline())) + "</td><td>"
                + (v.isEmpty() ? "—" : v) + "</td>" + td(ta == null ? "—" : ReadingText.roundsShort(ta.stopping()))
                + "</tr>\n";
    }

    void write() throws IOException {
        Paged p = new Paged(site, "tasks", "Tasks",
                "<p class=\"note\">Every native task, in plan order; a <span class=\"badge b-low\">low signal</span> "
                        + "task is one where the human commit's speedup was not detected.</p>\n",
                th("session", "task", "mode", "metric", "replay", "A/A check", "human vs baseline",
                        "agent verdicts vs human", "rounds"), tasks.size());
        for (NativeTask t : tasks) {
            p.add(row(t));
        }
        p.finish();
    }
}
