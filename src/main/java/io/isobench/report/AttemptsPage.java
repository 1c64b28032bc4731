package io.isobench.report;

import io.isobench.analysis.AgentAttempts;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.isobench.report.Html.esc;

/**
 * {@code attempts.html}: the stored agent attempts at tasks no session measured — isobench's own attempts before their
 * patches were measured, and trajectories made elsewhere and brought in with {@code isobench agents import} — each
 * shown the way a task page shows its attempts (facts, then the trajectory's steps). Written only when there are some;
 * the overview links it. Whole-store reports only ({@link ReportModel#unmeasuredAttempts()}).
 */
final class AttemptsPage extends HtmlPage {

    static final String FILE = "attempts.html";

    AttemptsPage(HtmlContext context) {
        super(context);
    }

    /** The overview's paragraph linking the page; nothing when no attempt waits outside a measured task. */
    static void overview(StringBuilder b, AgentAttempts unmeasured) {
        List<AgentAttempts.Attempt> all = unmeasured.all();
        if (all.isEmpty()) {
            return;
        }
        long imported = all.stream().filter(a -> "imported".equals(a.status())).count();
        b.append("<h2 id=\"unmeasured-attempts\">Agent attempts at unmeasured tasks</h2>\n<p>").append(all.size())
                .append(" agent attempt(s) at ").append(byTask(all).size()).append(" task(s) no session measured (")
                .append(imported).append(" imported trajectories): <a href=\"").append(FILE)
                .append("\">agent attempts</a>.</p>\n");
    }

    void write() throws IOException {
        List<AgentAttempts.Attempt> all = model.unmeasuredAttempts().all();
        if (all.isEmpty()) {
            return;
        }
        StringBuilder b = new StringBuilder("<h1>Agent attempts at tasks no session measured</h1>\n");
        b.append("<p><a href=\"index.html#unmeasured-attempts\">← overview</a></p>\n<p class=\"note\">No verdict:"
                + " no session measured these tasks. Attempts with status <code>imported</code> are trajectories made"
                + " elsewhere (<code>isobench agents import</code>, Harbor's ATIF), shown as isobench's own are."
                + " Trajectories are the agent's own text, shown escaped.</p>\n");
        int i = 0;
        for (Map.Entry<String, List<AgentAttempts.Attempt>> e : byTask(all).entrySet()) {
            b.append("<h2 id=\"task-").append(i++).append("\">Task ").append(esc(e.getKey())).append("</h2>\n");
            AttemptSection.attemptsHtml(b, e.getValue(), model.trajectories(), Map.of(), Map.of());
        }
        site.page(FILE, "isobench report — agent attempts at unmeasured tasks", b.toString());
    }

    private static Map<String, List<AgentAttempts.Attempt>> byTask(List<AgentAttempts.Attempt> all) {
        Map<String, List<AgentAttempts.Attempt>> out = new LinkedHashMap<>();
        all.forEach(a -> out.computeIfAbsent(a.task(), k -> new ArrayList<>()).add(a));
        return out;
    }
}
