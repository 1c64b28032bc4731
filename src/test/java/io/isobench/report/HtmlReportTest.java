package io.isobench.report;

import io.isobench.SharedData;
import io.isobench.cli.Main;
import io.isobench.legacy.LegacyImporter;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.SyntheticStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTML report over the real ISO-Bench sample, two cross-run legacy rows and a hand-made native session: pages
 * are well-formed and self-contained, links resolve, numbers equal the Markdown report's, legacy rows are marked,
 * colours stay with their arm, every axis has its unit, long tables are paged.
 */
class HtmlReportTest {

    @TempDir
    static Path dir;

    static Path site;
    static String md;
    static Map<String, Document> docs;
    static HtmlReport.Result result;

    @BeforeAll
    static void build() throws Exception {
        try (Store store = Stores.open(dir.resolve("h.duckdb").toString())) {
            new LegacyImporter(store, null, new PrintWriter(new StringWriter())).importTree(SharedData.isobenchData());
            store.putRuns(crossRun("c0ffee12"));
            nativeSession(store);
            ReportScope o = new ReportScope(null, 5.0, Instant.parse("2026-11-25T00:00:00Z"));
            StringWriter out = new StringWriter();
            try (ReportModel model = ReportModel.build(store, o)) {
                MarkdownReport.write(model, out);
                md = out.toString();
                site = dir.resolve("site");
                result = HtmlReport.write(model, site);
            }
        }
        docs = HtmlSite.parseAll(site);
    }

    /** Three legacy arms from separate invocations: a cross-run row, not comparable. */
    static List<RunRecord> crossRun(String commit) {
        List<RunRecord> l = new ArrayList<>();
        String[] arms = {"baseline", "human", "agent:claude_code"};
        String[] values = {"1000", "900", "950"};
        for (int i = 0; i < 3; i++) {
            String extra = "{\"primary_by_mode\":{\"latency\":{\"value\":\"" + values[i] + "\",\"origin\":\"raw\"}},"
                    + "\"serving_block\":false,\"path\":\"run_2026-01-18/" + i + "\"}";
            l.add(RunRecord.builder("xr-" + commit + "-" + i)
                    .kind(RunRecord.RunKind.LEGACY)
                    .commit(commit + "00", commit)
                    .agent("claude_code")
                    .armLabel(arms[i])
                    .status(RunRecord.RunStatus.SUCCESS)
                    .modeLabel("latency")
                    .model("m")
                    .pipelineLabel("run_2026-01-18/19")
                    .primary("latency_ms_avg", Double.valueOf(values[i]), "raw")
                    .detailsJson(extra)
                    .build());
        }
        return l;
    }

    /** One serving task, baseline/human/agent:alpha × 5 rounds, agent:bravo crashing with a stored log. */
    static void nativeSession(Store store) {
        String sid = "sess-html";
        store.putSession(SessionRecord.builder(sid)
                .time(Instant.parse("2026-11-25T10:00:00Z"), Instant.parse("2026-11-25T11:00:00Z"))
                .machine("host-a", "2 cpus", "none", "{}").seed(7L).status("done").build());
        String log = store.putArtifact("log", "line 1\nRuntimeError: Engine core initialization failed.\n"
                .getBytes(StandardCharsets.UTF_8));
        double[][] v = {{10.0, 10.2, 9.9, 10.1, 10.05}, {8.0, 8.1, 7.95, 8.05, 8.02}, {7.0, 7.1, 6.95, 7.05, 7.02}};
        String[] arms = {"baseline", "human", "agent:alpha", "agent:bravo"};
        List<RunRecord> runs = new ArrayList<>();
        int job = 0;
        for (int r = 0; r < 5; r++) {
            for (int a = 0; a < 4; a++) {
                boolean crash = a == 3;
                String extra = "{\"task\":\"tpot\",\"job_index\":" + job++ + ",\"intended_commit\":\"abc\"}";
                runs.add(RunRecord.builder("n-" + r + "-" + a)
                        .session(sid)
                        .kind(RunRecord.RunKind.MEASURED)
                        .commit("abcdef0123456789", "abcdef01")
                        .armLabel(arms[a])
                        .round(r)
                        .status(crash ? RunRecord.RunStatus.FAILED : RunRecord.RunStatus.SUCCESS)
                        .failure(crash ? new RunRecord.FailureInfo("SERVER_CRASHED", "server exited", "RuntimeError: Engine core initialization failed.", false) : null)
                        .modeLabel("serving")
                        .model("toy")
                        .pipelineLabel("native")
                        .primary("tpot_ms_mean", crash ? null : v[a][r], "measured")
                        .workload("{\"requests\":8}")
                        .startedAt(Instant.parse("2026-11-25T10:00:00Z").plusSeconds(job))
                        .durationMs(1000.0)
                        .engineVersion("0.1")
                        .envRef("git-worktree:abc")
                        .argvJson("[\"python3\",\"-m\",\"toyllm\"]")
                        .logArtifact(crash ? log : null)
                        .detailsJson(extra)
                        .metrics(crash ? List.of() : List.of(new Metric("tpot_ms_mean", v[a][r], "ms", Better.LOWER), new Metric("ttft_ms_mean", 3 * v[a][r], "ms", Better.LOWER)))
                        .build());
            }
        }
        store.putRuns(runs);
    }

    @Test
    void everyPageIsWellFormedSelfContainedAndSmall() throws Exception {
        assertThat(docs).containsKeys("index.html", "tasks.html", "failures.html", "legacy.html", "todo.html",
                "task-1-1.html", "legacy-claude_code-comparable.html", "legacy-claude_code-cross-run.html");
        assertThat(result.pages()).isEqualTo(docs.size());
        for (String name : docs.keySet()) {
            String html = Files.readString(site.resolve(name));
            assertThat(html).as(name).doesNotContain("<script").doesNotContain("<link ").doesNotContain("@import")
                    .doesNotContain("url(").doesNotContain("src=\"").doesNotContainPattern("href=\"[a-z]+:")
                    .doesNotContainPattern("href=\"//");
            // the only absolute URIs are the two namespace names (text such as evidence lines may quote URLs)
            assertThat(html.replaceAll(">[^<]*<", "><").replace("xmlns=\"http://www.w3.org/1999/xhtml\"", "")
                    .replace("xmlns=\"http://www.w3.org/2000/svg\"", "")).as(name).doesNotContain("http:")
                    .doesNotContain("https:");
        }
        assertThat(result.largestPageBytes()).isLessThan(200_000);
    }

    @Test
    void everyLinkResolves() throws Exception {
        assertThat(HtmlSite.brokenLinks(site, docs)).isEmpty();
        // the crashed arm's full log is linked from the task page
        assertThat(Files.readString(site.resolve("task-1-1.html"))).contains(">full log</a>");
        try (Stream<Path> logs = Files.list(site.resolve("logs"))) {
            Path log = logs.findFirst().orElseThrow();
            assertThat(Files.readString(log)).contains("Engine core initialization failed");
        }
    }

    @Test
    void legacySummaryEqualsTheMarkdownReport() {
        Document d = docs.get("legacy.html");
        Map<String, List<String>> html = rows(d, "legacy-summary");
        int start = md.indexOf("| agent | commits |", md.indexOf("## Executive summary"));
        int end = md.indexOf("\n## ", start + 5);
        int checked = 0;
        for (String line : md.substring(start, end).split("\n")) {
            if (!line.startsWith("| ") || line.startsWith("| agent ")) {
                continue;
            }
            List<String> cells = HtmlSite.mdCells(line);
            assertThat(html.get(cells.get(0))).as(cells.get(0)).isEqualTo(cells);
            checked++;
        }
        assertThat(checked).isGreaterThanOrEqualTo(3);
        assertThat(rows(docs.get("index.html"), "legacy-summary")).isEqualTo(html);
    }

    @Test
    void nativeNumbersEqualTheMarkdownReport() throws Exception {
        String page = Files.readString(site.resolve("task-1-1.html"));
        Map<String, List<String>> mdRows = HtmlSite.markdownTaskRows(md, "tpot");
        assertThat(mdRows).containsKeys("baseline", "human", "agent:alpha", "agent:bravo");
        for (Map.Entry<String, List<String>> e : mdRows.entrySet()) {
            List<String> c = e.getValue();
            assertThat(HtmlSite.cell(page, e.getKey(), "median")).isEqualTo(c.get(3));
            assertThat(HtmlSite.cell(page, e.getKey(), "speedup-vs-baseline")).isEqualTo(c.get(5));
            assertThat(HtmlSite.cell(page, e.getKey(), "verdict-vs-baseline")).isEqualTo(c.get(8).replace("**", ""));
            assertThat(HtmlSite.cell(page, e.getKey(), "speedup-vs-human")).isEqualTo(c.get(9));
            assertThat(HtmlSite.cell(page, e.getKey(), "verdict-vs-human")).isEqualTo(c.get(10).replace("**", ""));
        }
        assertThat(HtmlSite.cell(page, "agent:alpha", "speedup-vs-baseline")).matches("1\\.4\\d\\d× \\[.*");
        assertThat(HtmlSite.cell(page, "agent:bravo", "verdict-vs-baseline")).isEqualTo("failed");
        assertThat(page).contains("SERVER_CRASHED").contains("RuntimeError: Engine core initialization failed.")
                .contains("ttft_ms_mean (ms, lower is better)");
        String index = Files.readString(site.resolve("index.html"));
        // a session stored before rounds designs were recorded: fixed rounds, every round read at 95 %
        assertThat(index).contains("Benchmark receipt").contains("host-a")
                .contains("session sess-html: fixed rounds: 5 per task (1 task)")
                .contains("Mann-Whitney").contains("A/A check").contains("Agent leaderboard")
                .contains("false wins expected by chance");
        assertThat(page).contains("<dd id=\"rounds\">5 rounds (fixed)</dd>")
                .contains("<dd id=\"interval-level\">95 % CI (fixed rounds)</dd>")
                .contains("A/A check not measured (no A/A arm)")
                .contains("speedup vs baseline [95 % CI]");
        assertThat(md).contains("Rounds: 5 rounds (fixed).").contains("| speedup vs baseline [95 % CI] |")
                .contains("- Session sess-html: fixed rounds: 5 per task (1 task).");
    }

    @Test
    void legacyRowsAreMarkedSingleRunAndCrossRunRowsNotComparable() {
        List<Element> comparable = bodyRowList(docs.get("legacy-claude_code-comparable.html"));
        assertThat(comparable).isNotEmpty();
        for (Element tr : comparable) {
            assertThat(tr.getAttribute("class")).isEqualTo("single-run");
            assertThat(cells(tr).get(0)).isEqualTo("single run");
        }
        assertThat(comparable).anyMatch(tr -> cells(tr).get(1).equals("299ebb62"));
        Map<String, List<String>> cross = bodyRows(docs.get("legacy-claude_code-cross-run.html"));
        assertThat(cross).hasSize(1);
        List<String> row = cross.get("not-comparable");
        assertThat(row.get(0)).isEqualTo("not comparable");
        assertThat(row.get(1)).isEqualTo("c0ffee12");
        // and it is in the Markdown report's cross-run section with the same values
        assertThat(md).contains("### Cross-run rows — not comparable").contains("| `c0ffee12` | run_2026-01-18/19 |");
        assertThat(Files.exists(site.resolve("legacy-claude_code-comparable-2.html"))).isFalse();
    }

    @Test
    void eachArmKeepsOneColourFromTheAccessiblePalette() throws Exception {
        Pattern swatch = Pattern.compile("background:(#[0-9A-Fa-f]{6})\"></span>([^<]+)<");
        Map<String, Set<String>> colours = new HashMap<>();
        for (String name : docs.keySet()) {
            Matcher m = swatch.matcher(Files.readString(site.resolve(name)));
            while (m.find()) {
                colours.computeIfAbsent(m.group(2), k -> new HashSet<>()).add(m.group(1));
            }
        }
        assertThat(colours).containsKeys("baseline", "human", "agent:alpha", "agent:bravo");
        Set<String> used = new HashSet<>();
        Set<String> okabeIto = Set.of("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000",
                "#8C6D1F");
        colours.forEach((arm, c) -> {
            assertThat(c).as(arm).hasSize(1);
            assertThat(okabeIto).contains(c.iterator().next());
        });
        for (String arm : List.of("baseline", "human", "agent:alpha", "agent:bravo")) {
            assertThat(used.add(colours.get(arm).iterator().next())).as(arm + " has its own colour").isTrue();
        }
    }

    @Test
    void everyChartHasLabelledAxesWithUnits() {
        int charts = 0;
        for (Map.Entry<String, Document> e : docs.entrySet()) {
            NodeList svgs = e.getValue().getElementsByTagName("svg");
            for (int i = 0; i < svgs.getLength(); i++) {
                Element svg = (Element) svgs.item(i);
                List<String> labels = new ArrayList<>();
                NodeList texts = svg.getElementsByTagName("text");
                for (int t = 0; t < texts.getLength(); t++) {
                    Element x = (Element) texts.item(t);
                    if ("axis-label".equals(x.getAttribute("class"))) {
                        labels.add(x.getTextContent());
                    }
                }
                assertThat(labels).as(e.getKey() + " chart " + i).hasSize(2);
                assertThat(labels.get(0)).as(e.getKey() + " value axis").matches(".*\\((ms|×|count|tok/s|s)[,) ].*");
                assertThat(svg.getAttribute("role")).isEqualTo("img");
                assertThat(svg.getElementsByTagName("title").getLength()).isPositive();
                charts++;
            }
        }
        assertThat(charts).isGreaterThanOrEqualTo(5);
    }

    @Test
    void narrowScreensGetTheirOwnLayout() throws Exception {
        String index = Files.readString(site.resolve("index.html"));
        assertThat(index).contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>")
                .contains("@media (max-width:700px)").contains("overflow-x:auto").contains("svg{max-width:100%");
    }

    @Test
    void longTablesArePagedAndNumbersStillAddUp(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("site");
        String mdText;
        try (Store store = Stores.open(tmp.resolve("s.duckdb").toString())) {
            SyntheticStore.generate(store, 12000, 1, 1L);
            ReportScope o = new ReportScope(null, 5.0, Instant.parse("2026-11-25T00:00:00Z"));
            StringWriter w = new StringWriter();
            try (ReportModel model = ReportModel.build(store, o)) {
                MarkdownReport.write(model, w);
                mdText = w.toString();
                HtmlReport.write(model, out);
            }
        }
        String agentMd = mdText.substring(mdText.indexOf("## Agent: claude_code"), mdText.indexOf("## Agent: codex"));
        long mdRows = agentMd.substring(agentMd.indexOf("### Comparable"), agentMd.indexOf("\n### ",
                agentMd.indexOf("### Comparable") + 3)).lines().filter(l -> l.startsWith("| `")).count();
        assertThat(mdRows).isGreaterThan(HtmlReport.ROWS_PER_PAGE);
        Map<String, Document> paged = HtmlSite.parseAll(out);
        long htmlRows = 0;
        for (int p = 1; paged.containsKey(Paged.file("legacy-claude_code-comparable", p)); p++) {
            int n = bodyRowList(paged.get(Paged.file("legacy-claude_code-comparable", p))).size();
            assertThat(n).isLessThanOrEqualTo(HtmlReport.ROWS_PER_PAGE);
            htmlRows += n;
        }
        assertThat(htmlRows).isEqualTo(mdRows);
        assertThat(paged).containsKey("legacy-claude_code-comparable-2.html");
        assertThat(HtmlSite.brokenLinks(out, paged)).isEmpty();
    }

    @Test
    void aSecondReportReplacesItsOwnPagesOnly(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("site");
        Files.createDirectories(out);
        Files.writeString(out.resolve("task-9-9.html"), "stale");
        Files.writeString(out.resolve("notes.txt"), "mine");
        try (Store store = Stores.open(tmp.resolve("e.duckdb").toString())) {
            HtmlReport.Result r;
            try (ReportModel model = ReportModel.build(store, ReportScope.defaults())) {
                r = HtmlReport.write(model, out);
            }
            assertThat(r.index()).isEqualTo(out.resolve("index.html"));
        }
        assertThat(out.resolve("task-9-9.html")).doesNotExist();
        assertThat(out.resolve("notes.txt")).hasContent("mine");
        Map<String, Document> empty = HtmlSite.parseAll(out);
        assertThat(HtmlSite.brokenLinks(out, empty)).isEmpty();
        assertThat(Files.readString(out.resolve("index.html"))).contains("No native session in this store")
                .contains("No imported 3-way data in this store");
    }

    @Test
    void theCliWritesTheSiteIntoAFolder(@TempDir Path tmp) {
        String db = tmp.resolve("c.duckdb").toString();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db,
                "report", "--format", "html");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--out DIR");
        Path site = tmp.resolve("site");
        code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db,
                "report", "--format", "html", "--out", site.toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains(site.toAbsolutePath().resolve("index.html").toString());
        assertThat(site.resolve("index.html")).exists();
        assertThat(err.toString()).contains("html report: ");
    }

    /** Rows of a table by id: first cell text → all cell texts. */
    private static Map<String, List<String>> rows(Document d, String id) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        NodeList tables = d.getElementsByTagName("table");
        for (int i = 0; i < tables.getLength(); i++) {
            Element t = (Element) tables.item(i);
            if (!id.equals(t.getAttribute("id"))) {
                continue;
            }
            NodeList trs = t.getElementsByTagName("tr");
            for (int r = 1; r < trs.getLength(); r++) {
                List<String> cells = cells((Element) trs.item(r));
                out.put(cells.get(0), cells);
            }
        }
        return out;
    }

    /** Body rows of the first table: row class → cells (the last row per class wins). */
    private static Map<String, List<String>> bodyRows(Document d) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Element tr : bodyRowList(d)) {
            out.put(tr.getAttribute("class"), cells(tr));
        }
        return out;
    }

    private static List<Element> bodyRowList(Document d) {
        List<Element> out = new ArrayList<>();
        NodeList tables = d.getElementsByTagName("table");
        if (tables.getLength() == 0) {
            return out;
        }
        NodeList trs = ((Element) tables.item(0)).getElementsByTagName("tr");
        for (int r = 1; r < trs.getLength(); r++) {
            out.add((Element) trs.item(r));
        }
        return out;
    }

    private static List<String> cells(Element tr) {
        List<String> cells = new ArrayList<>();
        NodeList tds = tr.getElementsByTagName("td");
        for (int c = 0; c < tds.getLength(); c++) {
            cells.add(tds.item(c).getTextContent().replaceAll("\\s+", " ").strip());
        }
        return cells;
    }
}
