package io.isobench.report;

import io.isobench.Golden;
import io.isobench.TrackHistoryStore;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine history in the reports (issue 30 item 5): the HTML page per tracked task and the Markdown section, from a
 * store filled with track rows directly ({@link TrackHistoryStore}) beside a native session (the confirming session
 * its confirmed row names), against golden files. After an intended change:
 * {@code scripts/test-unit -Dtest=HistoryReportTest -Disobench.golden.rewrite=true}, review the diff.
 */
class HistoryReportTest {

    static final Path MD = Path.of("src/test/resources/golden/history-section.md");
    static final Path HTML = Path.of("src/test/resources/golden/history-page.html");

    @TempDir
    Path dir;

    private Store store() {
        Store store = Stores.open(dir.resolve("db.duckdb").toString());
        NativeOnlyStore.write(store);
        TrackHistoryStore.write(store);
        return store;
    }

    private static ReportScope scope() {
        return new ReportScope(null, 5, Instant.parse("2026-11-29T00:00:00Z"));
    }

    @Test
    void theMarkdownSectionMatchesItsGolden() throws Exception {
        String md;
        try (Store store = store(); ReportModel model = ReportModel.build(store, scope())) {
            StringWriter w = new StringWriter();
            MarkdownReport.write(model, w);
            md = w.toString();
        }
        assertThat(md).contains("Engine history (isobench track): 1 track(s) of 1 task(s), 1 confirmed change(s) (2 other"
                + " change row(s): rejected or not yet confirmed); section *Engine history* below.");
        // the series session is the history's, never a native session of its own
        assertThat(md).doesNotContain("Native session " + TrackHistoryStore.SERIES);
        int at = md.indexOf("## Engine history (isobench track)");
        assertThat(at).as("the section is in the report").isGreaterThan(0);
        String section = md.substring(at);
        Golden.check(MD, section);
        assertThat(section).contains("Only confirmed rows are changes",
                "| confirmed | faster | −15.2 % | [−16.0 %, −14.5 %] |", "`dddddddd` Unroll &lt;script&gt;alert(1)&lt;/script&gt; the loop",
                "| 6 | `gggggggg` | Break the build | not built | — |",
                "1 confirmed change(s), 1 rejected candidate(s), 1 candidate(s) not yet confirmed.",
                "| 7 | `hhhhhhhh` | Tidy comments | measured | 3 ok, 1 failed | 8.550 | 8.500 – 8.600 |");
        assertThat(section).doesNotContain("<script>").doesNotContain(TrackHistoryStore.SECRET);
    }

    @Test
    void theHtmlPageMatchesItsGoldenEscapesSubjectsAndLinksTheConfirmingSession() throws Exception {
        Path site = dir.resolve("site");
        try (Store store = store(); ReportModel model = ReportModel.build(store, scope())) {
            HtmlReport.write(model, site);
        }
        String page = Files.readString(site.resolve("history-1.html"), StandardCharsets.UTF_8);
        String main = page.substring(page.indexOf("<main>"), page.indexOf("</main>") + "</main>".length());
        Golden.check(HTML, main + "\n");
        // untrusted subjects come out as text, never as markup; secrets never come out
        assertThat(page).doesNotContain("<script").contains("Unroll &lt;script&gt;alert(1)&lt;/script&gt;")
                .doesNotContain(TrackHistoryStore.SECRET);
        // the confirmed row links the confirming session's task page; the rejected one names a session not stored
        assertThat(main).contains("<a href=\"task-1-1.html\"><code>s-native</code></a>",
                "<code>s-confirm-7</code>");
        // one mark per change status, one cross for the commit that did not build, the legend names them
        assertThat(main).contains("confirmed change", "rejected candidate", "candidate (not yet confirmed)",
                "not built / no successful run", "first commit (bisected)");
        assertThat(count(main, "<title>gggggggg Break the build: not built: engine.c:12: error")).isEqualTo(1);
        assertThat(count(main, "stroke-dasharray=\"2 3\"><title>rejected")).isEqualTo(1);
        assertThat(count(main, "stroke-dasharray=\"6 4\"><title>candidate")).isEqualTo(1);
        assertThat(count(main, "<title>first commit carrying the change (bisected): " + TrackHistoryStore.commit(3)))
                .isEqualTo(1);
        // four measured commits: a median dot with its interval each
        assertThat(count(main, "r=\"4\" fill=\"#0072B2\" stroke=\"#fff\"><title>")).isEqualTo(4);
        Map<String, Document> docs = HtmlSite.parseAll(site);
        assertThat(docs).containsKey("history-1.html");
        assertThat(HtmlSite.brokenLinks(site, docs)).isEmpty();
        assertThat(Files.readString(site.resolve("tasks.html"), StandardCharsets.UTF_8))
                .as("the series session is the history's, never a native session of its own")
                .doesNotContain(TrackHistoryStore.SERIES);
        String index = Files.readString(site.resolve("index.html"), StandardCharsets.UTF_8);
        assertThat(index).contains("<h2 id=\"history\">Engine history</h2>",
                "<a href=\"history-1.html\">decode</a>: 1 track(s), 1 confirmed change(s), 2 other change row(s)");
    }

    @Test
    void aStoreWithoutTracksHasNoHistory() throws Exception {
        Path site = dir.resolve("site");
        // an earlier report's history page in the folder is one of the report's pages: removed
        Files.createDirectories(site);
        Files.writeString(site.resolve("history-1.html"), "<p>an earlier report</p>");
        String md;
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            NativeOnlyStore.write(store);
            try (ReportModel model = ReportModel.build(store, scope())) {
                HtmlReport.write(model, site);
                StringWriter w = new StringWriter();
                MarkdownReport.write(model, w);
                md = w.toString();
            }
        }
        assertThat(md).doesNotContain("Engine history");
        assertThat(site.resolve("history-1.html")).doesNotExist();
        assertThat(Files.readString(site.resolve("index.html"))).doesNotContain("Engine history");
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
