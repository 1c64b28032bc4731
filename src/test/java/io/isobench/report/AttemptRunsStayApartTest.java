package io.isobench.report;

import io.isobench.Arm;
import io.isobench.SharedData;
import io.isobench.export.HfExporter;
import io.isobench.legacy.LegacyImporter;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs of kind AGENT_ATTEMPT never enter a measured analysis, a failure table, the legacy 3-way table or an export row:
 * the same store is reported and exported before and after attempt records are added — attempts that look as much like
 * measured runs as a record can (the measured session's id, the measured arm's label, a primary value, a failure) — and
 * every output is byte-for-byte the same, apart from the attempt sections and columns themselves.
 */
class AttemptRunsStayApartTest {

    @TempDir
    Path dir;

    @Test
    void reports_tables_and_export_are_unchanged_by_attempt_records() throws Exception {
        try (Store store = Stores.open(dir.resolve("h.duckdb").toString())) {
            new LegacyImporter(store, null, new PrintWriter(new StringWriter())).importTree(SharedData.isobenchData());
            store.putRuns(HtmlReportTest.crossRun("c0ffee12"));
            HtmlReportTest.nativeSession(store);
            Outputs before = outputs(store, "before");

            store.putRuns(lookalikeAttempts(store));
            Outputs after = outputs(store, "after");

            assertThat(after.markdown).contains("## Attempts per agent");
            assertThat(cut(after.markdown, "## Attempts per agent", end(after.markdown))).isEqualTo(before.markdown);
            assertThat(after.session).contains("### Attempts per agent");
            assertThat(cut(after.session, "### Attempts per agent", end(after.session))).isEqualTo(before.session);
            assertThat(after.pages.keySet()).isEqualTo(before.pages.keySet());
            for (String page : before.pages.keySet()) {
                String a = after.pages.get(page);
                if (page.equals("index.html")) {
                    assertThat(a).contains("<table id=\"attempt-scores\">");
                    a = cut(a, "<h2 id=\"attempts\">", a.indexOf("</p>\n", a.indexOf("<p id=\"attempt-sensitivity\">"))
                            + "</p>\n".length());
                } else if (a.contains("<details class=\"attempt\"")) {
                    a = cut(a, "<h2 id=\"attempts\">Agent attempts</h2>", a.lastIndexOf("</details>\n")
                            + "</details>\n".length());
                }
                assertThat(a).as(page).isEqualTo(before.pages.get(page));
            }
            assertThat(after.table).isEqualTo(before.table);
            assertThat(after.export).hasSameSizeAs(before.export);
            for (int i = 0; i < before.export.size(); i++) {
                Map<String, Object> row = new LinkedHashMap<>(after.export.get(i));
                row.keySet().removeIf(k -> k.startsWith("isobench_agent_") && isAttemptColumn(k));
                Map<String, Object> old = new LinkedHashMap<>(before.export.get(i));
                old.keySet().removeIf(k -> k.startsWith("isobench_agent_") && isAttemptColumn(k));
                assertThat(row).isEqualTo(old);
            }
        }
    }

    private static boolean isAttemptColumn(String name) {
        return List.of("isobench_agent_attempt", "isobench_agent_adapter", "isobench_agent_cli_version",
                "isobench_agent_executor", "isobench_agent_status", "isobench_agent_turns", "isobench_agent_tokens_in",
                "isobench_agent_tokens_out", "isobench_agent_cost_usd", "isobench_agent_wall_s",
                "isobench_agent_prompt_sha256", "isobench_agent_patch_sha256", "isobench_agent_trajectory")
                .contains(name);
    }

    /** Attempts of agent alpha at task tpot, as near a measured run as a record gets. */
    private static List<RunRecord> lookalikeAttempts(Store store) {
        List<RunRecord> out = new ArrayList<>();
        String traj = store.putArtifact("trajectory", "{\"steps\":[]}".getBytes(StandardCharsets.UTF_8));
        String[][] cases = {{"alpha@1", "agents-1", "OK"}, {"alpha", "sess-html", "AGENT_CRASH"},
                {"bravo@1", "sess-html", "BUDGET_EXCEEDED"}};
        int i = 0;
        for (String[] c : cases) {
            boolean ok = c[2].equals("OK");
            out.add(RunRecord.builder("attempt-" + i++)
                    .session(c[1])
                    .kind(RunRecord.RunKind.AGENT_ATTEMPT)
                    .commit("abcdef0123456789", "abcdef01")
                    .agent(c[0])
                    .arm(Arm.agent(c[0]))
                    .round(1)
                    .status(ok ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED)
                    .failure(ok ? null : new RunRecord.FailureInfo(c[2], "scripted", "scripted", false))
                    .modeLabel("serving")
                    .model("toy")
                    .pipelineLabel("native")
                    .primary("tpot_ms_mean", 1.0, "measured")
                    .metrics(List.of(new Metric("tpot_ms_mean", 1.0, "ms", Better.LOWER)))
                    .startedAt(Instant.parse("2026-11-25T09:00:00Z").plusSeconds(i))
                    .durationMs(5000.0)
                    .detailsJson("{\"task\":\"tpot\",\"job_index\":0,\"agent_attempt\":{\"task\":\"tpot\",\"agent\":\""
                            + Arm.normalizeAgent(c[0].replaceAll("@.*", "")) + "\",\"attempt\":1,\"status\":\"" + c[2]
                            + "\",\"trajectory_sha256\":\"" + traj + "\"}}")
                    .build());
        }
        return out;
    }

    private record Outputs(String markdown, String session, Map<String, String> pages, List<String> table,
                           List<Map<String, Object>> export) {
    }

    private Outputs outputs(Store store, String name) throws Exception {
        Instant now = Instant.parse("2026-11-25T00:00:00Z");
        StringWriter md = new StringWriter();
        Path site = dir.resolve("site-" + name);
        try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0, now))) {
            MarkdownReport.write(model, md);
            HtmlReport.write(model, site);
        }
        StringWriter one = new StringWriter();
        try (ReportModel model = ReportModel.build(store, ReportScope.session("sess-html"))) {
            SessionReport.write(model, one);
        }
        Map<String, String> pages = new TreeMap<>();
        try (Stream<Path> s = Files.walk(site)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                pages.put(site.relativize(p).toString(), Files.readString(p));
            }
        }
        List<String> table = new ArrayList<>();
        for (String agent : List.of("alpha", "bravo", "claude_code")) {
            AgentTable.rows(store, agent, null, (ThreeWayRow r) -> table.add(r.toString()));
        }
        Path out = dir.resolve("export-" + name);
        HfExporter.export(store, out);
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM read_parquet('" + out.resolve(HfExporter.PARQUET)
                     + "') ORDER BY commit_short, isobench_agent")) {
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    row.put(rs.getMetaData().getColumnName(i), rs.getObject(i));
                }
                rows.add(row);
            }
        }
        return new Outputs(md.toString(), one.toString(), pages, table, rows);
    }

    /** Where the Markdown attempt section ends: after its rule line. */
    private static int end(String md) {
        String m = "(docs/statistics.md §18).\n\n";
        return md.indexOf(m, md.indexOf("Attempts per agent")) + m.length();
    }

    /** The text without [indexOf(start), end). */
    private static String cut(String text, String start, int end) {
        int i = text.indexOf(start);
        assertThat(i).as("section %s", start).isNotNegative();
        assertThat(end).isGreaterThan(i);
        return text.substring(0, i) + text.substring(end);
    }
}
