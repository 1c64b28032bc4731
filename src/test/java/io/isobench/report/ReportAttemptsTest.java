package io.isobench.report;

import io.isobench.AttemptSessions;
import io.isobench.Golden;
import io.isobench.analysis.AttemptScores;
import io.isobench.analysis.Verdict;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Agent attempts in the report (docs/statistics.md §18): the scores over the stored session and attempts, the
 * Attempts table (Markdown and HTML, golden), the collapsed attempts with their escaped trajectories on the task page.
 */
class ReportAttemptsTest {

    static final Path GOLDEN = Path.of("src/test/resources/golden/report");
    static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

    @TempDir
    Path dir;

    /**
     * The task page says which shown attempt an arm measured by the attempt the arm's runs named: two agents runs left
     * the same patches, the page shows the later run's attempts; a session planned from the first run measured none
     * of them, a session recorded before the key falls back to the patch (and takes the later run's).
     */
    @Test
    void the_task_page_marks_the_attempt_an_arm_measured_by_identity() throws Exception {
        for (boolean keyed : new boolean[] {true, false}) {
            try (Store store = Stores.open(dir.resolve("twice-" + keyed + ".duckdb").toString())) {
                AttemptSessions.session(store, T0, keyed ? "agents-run-1" : null);
                AttemptSessions.attempts(store, T0.minusSeconds(7200),
                        new AttemptSessions.AgentsRun("agents-run-1", "2.1.332"));
                AttemptSessions.attempts(store, T0.minusSeconds(3600),
                        new AttemptSessions.AgentsRun("agents-run-2", "2.2.0"));
                ReportScope scope = new ReportScope(null, 5.0, Instant.parse("2026-11-27T00:00:00Z"));
                try (ReportModel model = ReportModel.build(store, scope)) {
                    NativeTask t = model.tasks().get(0);
                    StringBuilder task = new StringBuilder();
                    AttemptSection.taskHtml(task, model.attempts().ofTask("tpot"), model.trajectories(),
                            t.extra().patch, t.extra().attemptRun);
                    assertThat(task.toString()).as("keyed=%s", keyed).contains("2.2.0");
                    if (keyed) {
                        assertThat(task.toString()).doesNotContain("measured as");
                    } else {
                        assertThat(task.toString()).contains("measured as agent:a@1", "measured as agent:a@2",
                                "measured as agent:b@1");
                    }
                }
            }
        }
    }

    @Test
    void scores_tables_and_task_page_attempts() throws Exception {
        try (Store store = Stores.open(dir.resolve("a.duckdb").toString())) {
            AttemptSessions.session(store, T0);
            AttemptSessions.attempts(store, T0.minusSeconds(3600));
            ReportScope scope = new ReportScope(null, 5.0, Instant.parse("2026-11-27T00:00:00Z"));
            try (ReportModel model = ReportModel.build(store, scope)) {
                AttemptScores s = model.attemptScores();
                assertThat(s.shown()).isTrue();
                assertThat(s.agents()).extracting(AttemptScores.AgentScore::agent).containsExactly("a", "b");
                AttemptScores.AgentScore a = s.agents().get(0);
                // a@1 better but short of 0.95 × human, a@2 counts, a@3 an empty patch: failed, n = 3
                assertThat(a.k()).isEqualTo(3);
                assertThat(a.tasks()).isEqualTo(1);
                assertThat(a.optAtK()).isEqualTo(1);
                assertThat(a.meanOfK()).isCloseTo(1.0 / 3, within(1e-12));
                assertThat(a.optAtSmallK().get(1)).isCloseTo(2.0 / 3, within(1e-12)); // 1 − C(2,2)/C(3,2)
                assertThat(a.best().verdicts()).isEqualTo(Map.of(Verdict.BETTER, 1));
                assertThat(a.best().geomeanSpeedup()).isCloseTo(10.0 / 7.9, within(0.01));
                AttemptScores.AgentScore b = s.agents().get(1);
                assertThat(b.k()).isEqualTo(1);
                assertThat(b.optAtK()).isEqualTo(1);
                assertThat(b.optAtKByFraction()).containsExactly(1, 0);
                // Opt@K ties; mean-of-K puts b first; best-of-K and Opt@K at 1.00 put a first
                assertThat(s.sensitivity().flipped()).containsExactly(
                        "a > b (best-of-K geomean speedup) but b > a (mean-of-K)");

                StringBuilder md = new StringBuilder();
                AttemptSection.markdown(s, md, "##");
                Golden.check(GOLDEN.resolve("attempts.md"), md.toString());
                Golden.check(GOLDEN.resolve("attempts.html"), AttemptSection.html(s));
                StringBuilder task = new StringBuilder();
                NativeTask t = model.tasks().get(0);
                AttemptSection.taskHtml(task, model.attempts().ofTask("tpot"), model.trajectories(), t.extra().patch,
                        t.extra().attemptRun);
                Golden.check(GOLDEN.resolve("attempts-task.html"), task.toString());

                StringWriter full = new StringWriter();
                MarkdownReport.write(model, full);
                assertThat(full.toString()).contains(md.toString());
                HtmlReport.write(model, dir.resolve("site"));
            }
            // isobench runs lists an attempt with where it came from
            List<String> cells = RunListing.cells(RunRecord.builder("x")
                    .kind(RunRecord.RunKind.AGENT_ATTEMPT).session("agents-run-1").round(2)
                    .armLabel("agent:a@2").status(RunRecord.RunStatus.SUCCESS)
                    .detailsJson("{\"agent_attempt\":{\"task\":\"tpot\"}}").build());
            assertThat(cells.get(RunListing.COLUMNS.indexOf("source"))).isEqualTo("agents-run-1/tpot/attempt 2");
            Map<String, Document> docs = HtmlSite.parseAll(dir.resolve("site")); // every page well-formed
            Document index = docs.get("index.html");
            assertThat(byTag(index, "tr").stream().filter(e -> e.hasAttribute("data-agent")
                    && ((Element) e.getParentNode()).getAttribute("id").equals("attempt-scores")).count()).isEqualTo(2);
            assertThat(byTag(index, "p").stream().filter(e -> e.getAttribute("id").equals("attempt-sensitivity"))
                    .findFirst().orElseThrow().getTextContent()).contains("b > a (mean-of-K)");
            String pageName = taskPage(docs);
            List<Element> details = byTag(docs.get(pageName), "details");
            assertThat(details).extracting(e -> e.getAttribute("data-attempt"))
                    .containsExactly("agent:a@1", "agent:a@2", "agent:a@3", "agent:b@1");
            assertThat(details).allMatch(e -> !e.hasAttribute("open"));
            Element a2 = details.get(1);
            assertThat(byTag(a2, "summary").get(0).getTextContent()).isEqualTo("a attempt 2: OK — measured as agent:a@2");
            assertThat(byTag(a2, "script")).isEmpty();
            assertThat(byTag(a2, "pre")).extracting(Element::getTextContent)
                    .anyMatch(x -> x.contains(AttemptSessions.HOSTILE));
            assertThat(byTag(details.get(2), "summary").get(0).getTextContent()).isEqualTo("a attempt 3: EMPTY_PATCH");
            assertThat(details.get(2).getTextContent()).contains("none (empty patch)", "the worktree has no change");
            String raw = Files.readString(dir.resolve("site").resolve(pageName));
            assertThat(raw).doesNotContain("<script>").contains("&lt;script&gt;");
        }
    }

    private static List<Element> byTag(org.w3c.dom.Node root, String tag) {
        NodeList l = root instanceof Document d ? d.getElementsByTagName(tag) : ((Element) root).getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < l.getLength(); i++) {
            out.add((Element) l.item(i));
        }
        return out;
    }

    private static String taskPage(Map<String, Document> docs) {
        return docs.entrySet().stream().filter(e -> !byTag(e.getValue(), "details").isEmpty()).findFirst()
                .orElseThrow().getKey();
    }
}
