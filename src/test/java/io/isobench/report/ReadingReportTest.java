package io.isobench.report;

import io.isobench.AdaptiveSessions;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.SweepRuns;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the verdicts were read, in every report (docs/html-report.md): a session run with adaptive rounds
 * ({@link AdaptiveSessions}: decided at the first look, equivalent, futile, the last look, an unstable A/A check) and a
 * sweep whose capacity is ordinal ({@link SweepRuns}, fixed rounds, no design recorded) — each interval labelled with
 * its level, the ordinal comparisons with the sign test and no interval, equivalence with its margin, the A/A line a
 * check, each task's rounds and why it stopped, and the rounds saved in the summary; Markdown, HTML and the
 * one-session report alike.
 */
class ReadingReportTest {

    static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

    @TempDir
    static Path dir;

    static String md;
    static String one;
    static Path site;
    /** task id → its HTML page's text. */
    static final Map<String, String> pages = new LinkedHashMap<>();
    static SessionAnalysis adaptive;
    static SessionAnalysis sweep;

    @BeforeAll
    static void build() throws Exception {
        try (Store store = Stores.open(dir.resolve("r.duckdb").toString())) {
            AdaptiveSessions.session(store, T0);
            store.putSession(SessionRecord.builder(SweepRuns.S).time(T0.plusSeconds(3600), T0.plusSeconds(4000))
                    .machine("host-b", "2 cpu", "none", "{}").seed(3L).status("complete").build());
            new SweepRuns().session(store);
            adaptive = SessionAnalysis.of(store, AdaptiveSessions.SESSION, StatsConfig.defaults());
            sweep = SessionAnalysis.of(store, SweepRuns.S, StatsConfig.defaults());
            StringWriter out = new StringWriter();
            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0, T0))) {
                MarkdownReport.write(model, out);
                site = dir.resolve("site");
                HtmlReport.write(model, site);
                for (NativeTask t : model.tasks()) {
                    pages.put(t.result().taskId(), Files.readString(site.resolve(t.page())));
                }
            }
            md = out.toString();
            // kept as a test artifact for people reading the build output
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "reading-report.md"), md);
            StringWriter s = new StringWriter();
            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0, T0,
                    AdaptiveSessions.SESSION))) {
                SessionReport.write(model, s);
            }
            one = s.toString();
        }
    }

    private static TaskAnalysis task(SessionAnalysis a, String id) {
        return a.tasks().stream().filter(t -> t.taskId().equals(id)).findFirst().orElseThrow().analysis();
    }

    /** The Markdown section of a task (of the full report). */
    private static String section(String id) {
        int start = md.indexOf("### Task " + id + " (");
        assertThat(start).as("task %s", id).isNotNegative();
        int end = md.indexOf("\n### ", start + 5);
        return md.substring(start, end < 0 ? md.length() : end);
    }

    /** The text of the element with {@code id} on an HTML page. */
    private static String byId(String html, String id) {
        Matcher m = Pattern.compile("id=\"" + id + "\">(.*?)</(dd|p|td)>", Pattern.DOTALL).matcher(html);
        assertThat(m.find()).as("element #%s", id).isTrue();
        return HtmlSite.text(m.group(1));
    }

    @Test
    void theSummarySaysTheRoundsRunAgainstTheDesignsMaximumAndTheRoundsSaved() {
        String summary = "adaptive rounds: 5 tasks took 3, 3, 5, 8 and 3 rounds (22 of up to 40; 18 saved against"
                + " running every task to 8). Design: adaptive: a look after every round from 3 to 8, O'Brien-Fleming"
                + "-type error spending, repeated confidence intervals";
        String exec = md.substring(md.indexOf("## Executive summary"), md.indexOf("\n## ", md.indexOf("## Executive")
                + 5));
        assertThat(exec).contains("- Session s-adaptive: " + summary)
                .contains("- Session s1: fixed rounds: 6 per task (1 task).");
        assertThat(md).contains("Rounds: " + summary);
        assertThat(one).contains("Rounds: " + summary);
        String index = byId(read("index.html"), "rounds");
        assertThat(index).contains("session s-adaptive: " + summary).contains("session s1: fixed rounds: 6 per task");
        // the session table: how many rounds each task took, and why
        assertThat(md).containsPattern("\\| fast \\| serving \\| `tpot_ms_mean` \\| valid \\| [^|]+ \\| better \\| x:"
                + " better \\| 3 of up to 8: every gating comparison decided \\|")
                .containsPattern("\\| long \\|[^\\n]*\\| 8 of up to 8: the last look \\|")
                .containsPattern("\\| noisy \\|[^\\n]*\\| 5 of up to 8: the rest futile \\|")
                .containsPattern("\\| serve \\|[^\\n]*\\| 6 \\(fixed\\) \\|");
    }

    @Test
    void eachTaskSaysHowManyRoundsItTookAndWhyItStopped() {
        assertThat(section("fast")).contains("Rounds: stopped after round 3 of up to 8: every gating comparison decided"
                + " (human vs baseline better, agent:x vs baseline better).");
        assertThat(section("noisy")).contains("Rounds: stopped after round 5 of up to 8: the rest futile (human vs"
                + " baseline better, agent:x vs baseline inconclusive: futile).").contains("**inconclusive**: futile");
        assertThat(section("long")).contains("Rounds: stopped after round 8 of up to 8: the last look (human vs"
                + " baseline better, agent:x vs baseline inconclusive: wide CI).");
        assertThat(section("serve")).contains("Rounds: 6 rounds (fixed).");
        assertThat(byId(pages.get("fast"), "rounds")).isEqualTo("stopped after round 3 of up to 8: every gating"
                + " comparison decided (human vs baseline better, agent:x vs baseline better)");
        assertThat(byId(pages.get("serve"), "rounds")).isEqualTo("6 rounds (fixed)");
        assertThat(HtmlSite.text(read("tasks.html"))).contains("5 of up to 8: the rest futile");
    }

    @Test
    void everyIntervalIsLabelledWithTheLevelOfItsLook() {
        // the first look's repeated CI, the last look's: each task's intervals at the look it stopped at
        double first = task(adaptive, "fast").humanVsBaseline().read().ciConfidence();
        double last = task(adaptive, "long").humanVsBaseline().read().ciConfidence();
        assertThat(first).isBetween(0.998, 0.9999);
        assertThat(last).isBetween(0.96, 0.98);
        assertThat(ReadingText.percent(first)).isEqualTo("99.9");
        assertThat(ReadingText.percent(0.95)).isEqualTo("95");
        assertThat(ReadingText.percent(0.99996)).isEqualTo("99.996");
        String lastPct = ReadingText.percent(last);
        assertThat(section("fast")).contains("| speedup vs baseline [99.9 % repeated CI] |",
                "| speedup vs human [99.9 % repeated CI] |");
        assertThat(section("long")).contains("| speedup vs baseline [" + lastPct + " % repeated CI] |");
        assertThat(byId(pages.get("fast"), "interval-level")).isEqualTo("99.9 % repeated CI (the look after round 3)");
        assertThat(byId(pages.get("long"), "interval-level")).isEqualTo(lastPct + " % repeated CI (the look after"
                + " round 8)");
        assertThat(HtmlSite.text(pages.get("fast"))).contains("speedup vs baseline [99.9 % repeated CI]")
                .contains("whiskers: the 99.9 % repeated CI");
    }

    @Test
    void equivalenceIsShownWithItsMargin() {
        assertThat(md).containsPattern("\\| same \\|[^\\n]*\\| better \\| x: equivalent within ±2 % \\|");
        Map<String, List<String>> rows = HtmlSite.markdownTaskRows(md, "same");
        assertThat(rows.get("agent:x").get(8)).isEqualTo("**equivalent** within ±2 %");
        assertThat(HtmlSite.cell(pages.get("same"), "agent:x", "verdict-vs-baseline")).isEqualTo("equivalent within"
                + " ±2 %");
        assertThat(section("same")).contains("Margin ±2 % (the minimum effect; the A/A band never widens it).")
                .contains("(A/A: equivalent within ±2 %)");
        assertThat(byId(pages.get("same"), "margin")).isEqualTo("±2 % (the minimum effect; the A/A band never widens"
                + " it)");
    }

    @Test
    void anUnstableAACheckShowsItsNumbersAndMakesEveryVerdictOfItsTaskInconclusive() {
        TaskAnalysis ta = task(adaptive, "unstable");
        Comparison aa = ta.aa();
        assertThat(ta.noiseBand().unstable()).isTrue();
        String line = String.format(Locale.ROOT, "A/A band %.1f %%, unstable: every verdict of the task is inconclusive"
                + " (A/A: worse, speedup %.3f× [%.3f, %.3f] 99.9 %% repeated CI)", ta.noiseBand().bandPct(),
                aa.speedup(), aa.ciLowSpeedup(), aa.ciHighSpeedup());
        assertThat(section("unstable")).contains(line);
        Map<String, List<String>> rows = HtmlSite.markdownTaskRows(md, "unstable");
        assertThat(rows.get("human").get(8)).isEqualTo("**inconclusive**: A/A unstable");
        assertThat(rows.get("agent:x").get(8)).isEqualTo("**inconclusive**: A/A unstable");
        assertThat(rows.get("agent:x").get(10)).isEqualTo("**inconclusive**: A/A unstable");
        assertThat(rows.get("baseline-aa").get(8)).isEqualTo("**worse**");
        assertThat(byId(pages.get("unstable"), "noise-floor")).isEqualTo(line);
        assertThat(md).containsPattern("\\| unstable \\|[^\\n]*\\| " + Pattern.quote(String.format(Locale.ROOT,
                "%.1f %%, unstable", ta.noiseBand().bandPct())) + " \\| inconclusive: A/A unstable \\|");
        assertThat(byId(read("index.html"), "aa-check")).contains("unstable (A/A itself better or worse, every verdict"
                + " of the task inconclusive) in 1")
                .contains("the margin is the minimum effect, ±2 %, never widened by it");
        // a stable check says so, with the A/A verdict
        assertThat(section("long")).contains("A/A band ").contains(", stable (A/A: equivalent within ±2 %)");
        assertThat(section("fast")).contains(", no instability detected (A/A: inconclusive: wide CI)");
    }

    @Test
    void anOrdinalCapacityHasTheSignTestAndNoInterval() {
        TaskAnalysis ta = task(sweep, "serve");
        assertThat(ta.humanVsBaseline().variance()).isEqualTo(Comparison.Variance.ORDINAL);
        assertThat(ta.humanVsBaseline().ciLowSpeedup()).isNull();
        String s = section("serve");
        assertThat(s).contains("Capacity verdicts: sign test at the grid's resolution (grid 1, 2, 4, 8 req/s), no"
                + " interval.")
                .contains("| speedup vs baseline (sign test, no CI) |", "| speedup vs human (sign test, no CI) |");
        Map<String, List<String>> rows = HtmlSite.markdownTaskRows(md, "serve");
        assertThat(rows.get("human").get(5)).isEqualTo("2.000× (sign test)");
        rows.forEach((arm, cells) -> assertThat(cells.get(5) + cells.get(9)).as(arm).doesNotContain("["));
        assertThat(byId(pages.get("serve"), "interval-level")).isEqualTo("sign test at the grid's resolution (grid 1,"
                + " 2, 4, 8 req/s), no interval");
        assertThat(HtmlSite.cell(pages.get("serve"), "human", "speedup-vs-baseline")).isEqualTo("2.000× (sign test)");
        assertThat(pages.get("serve")).contains("<td>ordinal</td><td>none: sign test</td>");
        // the A/A twin ties the baseline on a grid coarser than the margin: no instability, and no equivalence either
        assertThat(s).contains("no instability detected (A/A: inconclusive: below the sweep's resolution)");
    }

    @Test
    void theHtmlTaskPagesShowTheMarkdownsCells() {
        for (String id : List.of("fast", "same", "noisy", "long", "unstable", "serve")) {
            Map<String, List<String>> rows = HtmlSite.markdownTaskRows(md, id);
            assertThat(rows).as(id).isNotEmpty();
            rows.forEach((arm, c) -> {
                assertThat(HtmlSite.cell(pages.get(id), arm, "speedup-vs-baseline")).as(id + " " + arm)
                        .isEqualTo(c.get(5));
                assertThat(HtmlSite.cell(pages.get(id), arm, "verdict-vs-baseline")).as(id + " " + arm)
                        .isEqualTo(c.get(8).replace("**", ""));
                assertThat(HtmlSite.cell(pages.get(id), arm, "verdict-vs-human")).as(id + " " + arm)
                        .isEqualTo(c.get(10).replace("**", ""));
            });
        }
    }

    @Test
    void noReportStillSaysTheAABandWidensTheMargin() {
        for (String text : List.of(md, one, read("index.html"), read("tasks.html"), pages.get("fast"))) {
            assertThat(text).doesNotContain("max(A/A").doesNotContain("max of the A/A").doesNotContain("pooled_with_aa")
                    .doesNotContain("A/A arm joining");
        }
    }

    private static String read(String page) {
        try {
            return Files.readString(site.resolve(page));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
