package io.isobench.report;

import io.isobench.analysis.MedianCi;
import io.isobench.guard.Secrets;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.td;
import static io.isobench.report.Html.th;

/**
 * {@code history-N.html}: one page per tracked task ({@code isobench track}; N its 1-based place among the tracked
 * tasks, sorted by id): per track the receipt (range, every N-th commit, runs per commit, anchor, metric, series
 * session), the series chart ({@link HistoryChart}), the change rows with links to the confirming session's task page
 * and the bisected first commit, and every commit of the range with its state and interval. Subjects, evidence and
 * every other stored text are escaped (commit subjects are untrusted).
 */
final class HistoryPage extends HtmlPage {

    HistoryPage(HtmlContext context) {
        super(context);
    }

    /** Per tracked task, in the model's order, the name of its page. */
    static Map<String, String> pages(ReportModel model) {
        Map<String, String> pages = new LinkedHashMap<>();
        int i = 0;
        for (String task : model.histories().keySet()) {
            pages.put(task, "history-" + (++i) + ".html");
        }
        return pages;
    }

    /** Writes every tracked task's page. */
    void write() throws IOException {
        Map<String, String> pages = pages(model);
        for (Map.Entry<String, List<HistoryModel.Track>> e : model.histories().entrySet()) {
            site.page(pages.get(e.getKey()), "Engine history — task " + e.getKey(), body(e.getKey(), e.getValue()));
        }
    }

    /** The XHTML body of a task's page. */
    String body(String task, List<HistoryModel.Track> tracks) {
        StringBuilder b = new StringBuilder();
        b.append("<h1>Engine history: task ").append(esc(task)).append("</h1>\n");
        b.append("<p><a href=\"index.html#history\">← overview</a></p>\n");
        b.append("<p class=\"note\">").append(esc(HistorySection.RULE)).append("</p>\n");
        int i = 0;
        for (HistoryModel.Track t : tracks) {
            track(b, t, ++i);
        }
        return b.toString();
    }

    private void track(StringBuilder b, HistoryModel.Track t, int index) {
        TrackRecord r = t.record();
        b.append("<h2 id=\"track-").append(index).append("\">Track ").append(esc(HistoryModel.shortRange(r.range())))
                .append("</h2>\n");
        b.append("<section class=\"receipt\"><dl>\n");
        dd(b, "Track", "<code>" + esc(r.trackId()) + "</code> (" + esc(r.status()) + ")");
        dd(b, "Range", "<code>" + esc(r.range()) + "</code> of <code>" + esc(r.repo()) + "</code>, suite "
                + esc(r.suiteName()));
        dd(b, "Measured", esc(HistorySection.measured(t)));
        dd(b, "Metric", "<code>" + esc(r.metric()) + "</code>" + (r.better() == null ? "" : " (" + esc(r.better())
                + " is better)"));
        dd(b, "Series", esc("median of the runs per measured commit with its 95 % interval (seeded percentile "
                + "bootstrap of the median); session ") + "<code>" + esc(r.sessionId()) + "</code>");
        b.append("</dl></section>\n");
        b.append("<p>").append(esc(HistorySection.counts(t))).append("</p>\n");
        b.append("<div style=\"overflow-x:auto\">\n").append(HistoryChart.svg(t, unit(r.metric()))).append("</div>\n");
        changes(b, t);
        commits(b, t);
    }

    private static void dd(StringBuilder b, String term, String xhtml) {
        b.append("<dt>").append(esc(term)).append("</dt><dd>").append(xhtml).append("</dd>\n");
    }

    /** The metric's unit from the dictionary, or null. */
    static String unit(String metric) {
        MetricDictionary.Definition d = metric == null ? null : MetricDictionary.lookup(metric);
        return d == null ? null : d.unit();
    }

    private void changes(StringBuilder b, HistoryModel.Track t) {
        b.append("<h3>Change points</h3>\n");
        if (t.changes().isEmpty()) {
            b.append("<p>No change point found in the series.</p>\n");
            return;
        }
        Map<String, String> sessionPages = sessionPages();
        b.append("<table class=\"changes\">\n").append(th("status", "direction", "change", "95 % CI", "commit",
                "parent", "first commit (bisected)", "confirming session", "evidence"));
        for (TrackChange c : t.changes()) {
            String status = c.status() == null ? "candidate" : c.status();
            b.append("<tr class=\"change-").append(esc(status)).append("\"><td>").append(statusCell(c)).append("</td>")
                    .append(td(c.direction())).append(td(HistoryChart.pctText(c.changePct())))
                    .append(td(c.ciLowPct() == null && c.ciHighPct() == null ? null
                            : "[" + HistoryChart.pctText(c.ciLowPct()) + ", " + HistoryChart.pctText(c.ciHighPct()) + "]"))
                    .append("<td>").append(commit(t, c.commitId())).append("</td>")
                    .append("<td>").append(commit(t, c.parentCommit())).append("</td>")
                    .append("<td>").append(c.firstCommit() == null || c.firstCommit().isBlank() ? "—"
                            : commit(t, c.firstCommit())).append(bisect(c, sessionPages)).append("</td>")
                    .append("<td>").append(session(c.sessionId(), c.taskId(), sessionPages)).append("</td>")
                    .append("<td>").append(esc(HistoryChanges.text(c.evidence()) == null ? "—"
                            : HistoryChanges.text(c.evidence()))).append("</td></tr>\n");
        }
        b.append("</table>\n");
    }

    private static String statusCell(TrackChange c) {
        String status = c.status() == null ? "candidate" : c.status();
        String cls = switch (status) {
            case "confirmed" -> "slower".equals(c.direction()) ? "v-worse" : "v-better";
            case "rejected" -> "v-tie";
            default -> "v-inconclusive";
        };
        return "<span class=\"" + cls + "\">" + esc(status) + "</span>";
    }

    /** A commit as short id and subject, the full id in the tooltip. */
    private static String commit(HistoryModel.Track t, String id) {
        if (id == null || id.isBlank()) {
            return "—";
        }
        TrackCommit c = t.commit(id);
        String subject = c == null ? null : c.subject();
        return "<code title=\"" + esc(id) + "\">" + esc(HistoryModel.shortId(id)) + "</code>"
                + (subject == null ? "" : " " + esc(HistoryChanges.text(subject)));
    }

    /**
     * The bisect of a change: the commits asked with their answers and sessions (linked), the skipped ones; a record
     * of another shape as stored; nothing when none.
     */
    private static String bisect(TrackChange c, Map<String, String> pages) {
        if (c.bisectJson() == null || c.bisectJson().isBlank()) {
            return "";
        }
        HistoryBisect bi = HistoryBisect.parse(c.bisectJson());
        if (bi == null) {
            return "<br/><span class=\"note\">bisect: <code>" + esc(Secrets.redact(c.bisectJson())) + "</code></span>";
        }
        StringBuilder b = new StringBuilder("<br/><span class=\"note\">bisect: ")
                .append(esc(Secrets.redact(bi.describe())));
        String sep = "; sessions ";
        for (HistoryBisect.Step s : bi.asked()) {
            if (s.session() != null) {
                b.append(sep).append(session(s.session(), c.taskId(), pages));
                sep = ", ";
            }
        }
        return b.append("</span>").toString();
    }

    /** Per native session of the report, the page of its task (the confirming session's page). */
    private Map<String, String> sessionPages() {
        Map<String, String> pages = new LinkedHashMap<>();
        for (NativeSession s : model.sessions()) {
            for (NativeTask t : s.tasks()) {
                pages.putIfAbsent(s.sessionId() + "|" + t.result().taskId(), t.page());
                pages.putIfAbsent(s.sessionId(), t.page());
            }
        }
        return pages;
    }

    private static String session(String sessionId, String task, Map<String, String> pages) {
        if (sessionId == null || sessionId.isBlank()) {
            return "—";
        }
        String page = pages.getOrDefault(sessionId + "|" + task, pages.get(sessionId));
        return page == null ? "<code>" + esc(sessionId) + "</code>"
                : "<a href=\"" + esc(page) + "\"><code>" + esc(sessionId) + "</code></a>";
    }

    private static void commits(StringBuilder b, HistoryModel.Track t) {
        b.append("<h3>Commits (first-parent order)</h3>\n<table class=\"commits\">\n")
                .append(th("#", "commit", "subject", "state", "runs", "median", "95 % interval", "change"));
        for (HistoryModel.Point p : t.points()) {
            MedianCi ci = p.ci();
            StringBuilder marks = new StringBuilder();
            for (TrackChange c : t.changes()) {
                if (HistoryModel.sameCommit(c.commitId(), p.commit().commitId())) {
                    marks.append(marks.isEmpty() ? "" : "; ").append(c.status()).append(' ')
                            .append(HistoryChart.pctText(c.changePct()));
                }
                if ("confirmed".equals(c.status()) && HistoryModel.sameCommit(c.firstCommit(), p.commit().commitId())) {
                    marks.append(marks.isEmpty() ? "" : "; ").append("first commit of the confirmed change");
                }
                HistoryBisect bi = HistoryBisect.parse(c.bisectJson());
                String answer = bi == null ? null : bi.answerFor(p.commit().commitId());
                if (answer != null) {
                    marks.append(marks.isEmpty() ? "" : "; ").append("bisect: ").append(answer);
                }
            }
            b.append("<tr>").append(td(p.commit().position())).append("<td><code title=\"")
                    .append(esc(p.commit().commitId())).append("\">").append(esc(HistoryModel.shortId(
                            p.commit().commitId()))).append("</code></td>")
                    .append(td(HistoryChanges.text(p.commit().subject()))).append(td(HistoryChart.state(p)))
                    .append(td(ci == null ? (p.failedRuns() > 0 ? "0 ok, " + p.failedRuns() + " failed" : null)
                            : ci.n() + (p.failedRuns() > 0 ? " ok, " + p.failedRuns() + " failed" : "")))
                    .append(td(ci == null ? null : HistoryChart.value(ci.median())))
                    .append(td(ci == null ? null : HistoryChart.value(ci.low()) + " – " + HistoryChart.value(ci.high())))
                    .append(td(marks.isEmpty() ? null : marks.toString())).append("</tr>\n");
        }
        b.append("</table>\n");
    }
}
