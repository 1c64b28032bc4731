package io.isobench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.SessionSpread;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The spread between sessions in every report (docs/statistics.md §19): a store with two sessions of one task on one
 * hardware shows each session's speedup with its CI, τ and the pooled speedup for human vs baseline and the agent vs
 * baseline, in the Markdown report, the HTML overview and task pages, and the one-session report; a store with one
 * session shows only the sentence that a session's interval does not cover session-to-session variation.
 */
class BetweenSessionsReportTest {

    @TempDir
    Path dir;

    static final String WORK = "{\"requests\":8,\"input_tokens\":256,\"output_tokens\":1024,\"seed\":0}";
    /** Per-round drift shared by the arms of a round, and per-run wiggle. */
    static final double[] DRIFT = {0.0, 0.02, -0.01, 0.015, -0.02};
    static final double[] WIGGLE = {0.004, -0.006, 0.002, -0.003, 0.005};

    private int job;

    private RunRecord run(String session, Instant at, String arm, int round, double tpot) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("job", "tpot/" + arm + "/r" + round);
        x.put("job_index", job++);
        x.put("hardware_id", "hw-a");
        return RunRecord.builder(session + "/" + x.get("job"))
                .session(session).kind(RunRecord.RunKind.MEASURED).commit("c0ffee00", "c0ffee00")
                .agent(arm.startsWith("agent:") ? arm.substring(6) : null).armLabel(arm).round(round)
                .status(RunRecord.RunStatus.SUCCESS).modeLabel("serving").model("toy-1m").pipelineLabel("native")
                .primary("tpot_ms_mean", tpot, "measured").workload(WORK)
                .startedAt(at.plusSeconds(job)).durationMs(1000.0).argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(x))
                .metrics(List.of(Metric.of("tpot_ms_mean", tpot), Metric.of("failed_requests", 0))).build();
    }

    /**
     * One complete session of task tpot on hw-a, 5 rounds: the human's time per token is {@code human} × the
     * baseline's, the agent's {@code agent} × (lower is better: 0.80 is a 1.25× speedup).
     */
    private void session(Store store, String id, Instant at, double human, double agent) throws Exception {
        store.putSession(SessionRecord.builder(id).time(at, at.plusSeconds(600))
                .machine("host-a", "2 cpus", "none", "{}").seed(7L).status("complete").build());
        for (int r = 0; r < 5; r++) {
            double d = 1 + DRIFT[r];
            double w = 1 + WIGGLE[r];
            store.putRun(run(id, at, "baseline", r, 20 * d));
            store.putRun(run(id, at, "baseline-aa", r, 20 * d / w));
            store.putRun(run(id, at, "human", r, 20 * human * d * w));
            store.putRun(run(id, at, "agent:x", r, 20 * agent * d / w));
        }
    }

    private static String markdown(ReportModel model) {
        StringWriter out = new StringWriter();
        MarkdownReport.write(model, out);
        return out.toString();
    }

    private static String sessionReport(ReportModel model) {
        StringWriter out = new StringWriter();
        SessionReport.write(model, out);
        return out.toString();
    }

    @Test
    void twoSessionsOfOneTaskShowTheirSpreadInEveryReport() throws Exception {
        try (Store store = Stores.open(dir.resolve("two.duckdb").toString())) {
            session(store, "s1", Instant.parse("2026-11-20T10:00:00Z"), 0.80, 0.90);
            session(store, "s2", Instant.parse("2026-11-26T10:00:00Z"), 0.86, 0.93);
            TaskAnalysis a1 = SessionAnalysis.of(store, "s1", StatsConfig.defaults()).tasks().get(0).analysis();
            TaskAnalysis a2 = SessionAnalysis.of(store, "s2", StatsConfig.defaults()).tasks().get(0).analysis();
            Comparison h1 = a1.humanVsBaseline();
            Comparison h2 = a2.humanVsBaseline();
            assertThat(h1.verdict().label()).isEqualTo("better");
            assertThat(h2.verdict().label()).isEqualTo("better");
            // the pooling of the two stored comparisons, as the reports must show it
            SessionSpread human = SessionSpread.of(List.of(SessionSpread.estimate("s1", h1).orElseThrow(),
                    SessionSpread.estimate("s2", h2).orElseThrow()), 0.95);
            assertThat(human.tauPct()).isGreaterThan(2.0); // 1.25× vs 1.16×: the sessions disagree
            String humanRow = "| tpot | human vs baseline | hw-a | s1 " + SessionReport.speedup(h1) + "; s2 "
                    + SessionReport.speedup(h2) + String.format(Locale.ROOT, " | ±%.1f %% | %.1f (%.0f %%) |"
                    + " %.3f× [%.3f, %.3f] (k = 2, HKSJ) |", human.tauPct(), human.q(), human.i2() * 100,
                    human.pooledSpeedup(), human.ciLowSpeedup(), human.ciHighSpeedup());

            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0, Instant.EPOCH))) {
                BetweenSessions between = model.betweenSessions();
                assertThat(between.groups()).extracting(BetweenSessions.Group::comparison)
                        .containsExactly("human vs baseline", "agent:x vs baseline");
                String md = markdown(model);
                assertThat(md).contains("**Between sessions.** " + between.statement())
                        .contains("## Between sessions (same task, same hardware)")
                        .contains(humanRow)
                        .contains("| tpot | agent:x vs baseline | hw-a | s1 "
                                + SessionReport.speedup(a1.agents().get(0).vsBaseline()) + "; s2 "
                                + SessionReport.speedup(a2.agents().get(0).vsBaseline()) + " | ")
                        // under each session's task table: the plain line, in both sessions' sections
                        .contains("- human vs baseline: " + human.line());
                assertThat(md.split("- human vs baseline: between sessions", -1)).hasSize(3);
                assertThat(between.statement()).contains(String.format(Locale.ROOT, "±%.1f %%",
                        human.tauPct())).contains("over 2 comparisons of 1 task measured in 2 sessions");

                Path site = dir.resolve("site");
                HtmlReport.write(model, site);
                assertThat(HtmlSite.brokenLinks(site, HtmlSite.parseAll(site))).isEmpty();
                String index = Files.readString(site.resolve("index.html"));
                assertThat(index).contains("<dd id=\"between-sessions-statement\">"
                                + Html.esc(between.statement()) + " <a href=\"#between-sessions\">")
                        .contains("<h3 id=\"between-sessions\">")
                        .contains("<table id=\"between-sessions-table\">")
                        .contains("<tr data-task=\"tpot\" data-arm=\"human\">")
                        .contains("<tr data-task=\"tpot\" data-arm=\"agent:x\">")
                        .contains(Html.esc("s1 " + SessionReport.speedup(h1) + "; s2 " + SessionReport.speedup(h2)))
                        .contains(Html.esc(String.format(Locale.ROOT, "%.3f× [%.3f, %.3f] (k = 2, HKSJ)",
                                human.pooledSpeedup(), human.ciLowSpeedup(), human.ciHighSpeedup())));
                NativeTask second = model.tasks().stream().filter(t -> t.session().sessionId().equals("s2"))
                        .findFirst().orElseThrow();
                String page = Files.readString(site.resolve(second.page()));
                assertThat(page).contains("<h2 id=\"between-sessions\">")
                        .contains("<strong>" + Html.esc("s2 " + SessionReport.speedup(h2)) + "</strong>")
                        .contains(Html.esc("s1 " + SessionReport.speedup(h1)) + "; <strong>");
            }

            // the one-session report of s2 compares it with the store's other session
            try (ReportModel model = ReportModel.build(store, ReportScope.session("s2"))) {
                String md = sessionReport(model);
                assertThat(md).contains("**Between sessions.** " + model.betweenSessions().statement())
                        .contains("measured here as a between-session spread")
                        .contains("### Between sessions (same task, same hardware)")
                        .contains(humanRow)
                        .contains("- human vs baseline: " + human.line());
            }
        }
    }

    @Test
    void oneSessionShowsOnlyTheSentence() throws Exception {
        try (Store store = Stores.open(dir.resolve("one.duckdb").toString())) {
            session(store, "s1", Instant.parse("2026-11-20T10:00:00Z"), 0.80, 0.90);
            String sentence = "A session's confidence interval describes that session only and does not cover"
                    + " session-to-session variation, which is not measured here (no comparison was measured in two or"
                    + " more sessions on the same hardware).";
            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0, Instant.EPOCH))) {
                assertThat(model.betweenSessions().groups()).isEmpty();
                assertThat(model.betweenSessions().statement()).isEqualTo(sentence);
                String md = markdown(model);
                assertThat(md).contains("**Between sessions.** " + sentence)
                        .doesNotContain("## Between sessions (").doesNotContain("between sessions: speedups");
                Path site = dir.resolve("site");
                HtmlReport.write(model, site);
                assertThat(HtmlSite.brokenLinks(site, HtmlSite.parseAll(site))).isEmpty();
                String index = Files.readString(site.resolve("index.html"));
                assertThat(index).contains("<dd id=\"between-sessions-statement\">" + Html.esc(sentence) + "</dd>")
                        .doesNotContain("between-sessions-table");
                String page = Files.readString(site.resolve(model.tasks().get(0).page()));
                assertThat(page).contains("no other session measured this task on the same hardware")
                        .doesNotContain("between-sessions-table");
            }
            try (ReportModel model = ReportModel.build(store, ReportScope.session("s1"))) {
                assertThat(sessionReport(model)).contains("**Between sessions.** " + sentence)
                        .doesNotContain("### Between sessions (");
            }
        }
    }
}
