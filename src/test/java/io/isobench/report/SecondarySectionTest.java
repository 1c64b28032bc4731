package io.isobench.report;

import io.isobench.Arm;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.Golden;
import io.isobench.analysis.SecondaryMetrics;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TtftCrossCheck;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secondary metrics next to the verdict, from runs stored in a real DuckDB store (docs/statistics.md section 16):
 * server-metric changes vs baseline with CIs over the verdict's counted rounds (a round excluded for its workload
 * is kept out of them too) against the baseline's run of the round (the A/A run standing in only where it is missing),
 * metrics a run lacks omitted with the reason (never 0),
 * the client-vs-server TTFT cross-check with a flagged run; goldens of the Markdown block, the HTML section and the
 * machine form. The verdict is the same with and without the secondary metrics.
 */
class SecondarySectionTest {

    @TempDir
    Path dir;

    static final Path GOLDEN = Path.of("src/test/resources/golden/report");
    static final String WORK = "{\"requests\":8,\"input_tokens\":256,\"output_tokens\":1024,\"seed\":0}";
    /** Per-round noise shared by the arms of a round, and per-run wiggle. */
    static final double[] DRIFT = {0.0, 0.02, -0.01, 0.015, -0.02, 0.01};
    static final double[] WIGGLE = {0.004, -0.006, 0.002, -0.003, 0.005, -0.001};

    private int job;

    private RunRecord run(String session, String arm, int round, double tpot, String workload,
                          Map<String, Double> server) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("job", "tpot/" + arm + "/r" + round);
        x.put("job_index", job++);
        x.put("hardware_id", "hw-a");
        List<Metric> metrics = new ArrayList<>();
        metrics.add(Metric.of("tpot_ms_mean", tpot));
        metrics.add(Metric.of("failed_requests", 0));
        server.forEach((k, v) -> metrics.add(Metric.of(k, v)));
        return RunRecord.builder(session + "/" + x.get("job"))
                .session(session).kind(RunRecord.RunKind.MEASURED).commit("c0ffee00", "c0ffee00")
                .agent(arm.startsWith("agent:") ? arm.substring(6) : null).armLabel(arm).round(round)
                .status(RunRecord.RunStatus.SUCCESS).modeLabel("serving").model("toy-1m").pipelineLabel("native")
                .primary("tpot_ms_mean", tpot, "measured").workload(workload)
                .startedAt(Instant.parse("2026-11-26T22:00:00Z")).durationMs(1000.0).argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(x)).metrics(metrics).build();
    }

    /**
     * The server side of a run: preemptions, prefix-cache hit rate, server TTFT and E2E means, the cross-check.
     * {@code scale} multiplies preemptions, {@code hits} is the hit rate; the client's TTFT is the server's + gap.
     */
    private static Map<String, Double> server(double preemptions, double hits, double serverTtft, double gap,
                                              boolean withMetrics) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("server_metrics_scrapes", withMetrics ? 3.0 : 0.0);
        m.put("server_metrics_scrape_failures", withMetrics ? 0.0 : 3.0);
        m.put("server_metrics_bad_lines", 0.0);
        if (!withMetrics) {
            return m;
        }
        m.put("vllm:num_preemptions_delta", preemptions);
        m.put("vllm:prefix_cache_hit_rate", hits);
        m.put("vllm:time_to_first_token_ms_mean", serverTtft);
        m.put("ttft_ms_mean", serverTtft + gap);
        m.put("ttft_client_minus_server_ms", gap);
        m.put("ttft_client_server_gap_large", Math.abs(gap) > 10 && Math.abs(gap) > 0.25 * (serverTtft + gap)
                ? 1.0 : 0.0);
        return m;
    }

    /** 6 rounds: human −40 % preemptions, +18 % prefix hits, 1.25× faster; round 2 of the human did other work. */
    private void session(Store store, String s, boolean withMetrics) throws Exception {
        for (int r = 0; r < 6; r++) {
            double d = 1 + DRIFT[r];
            double w = 1 + WIGGLE[r];
            store.putRun(run(s, "baseline", r, 20 * d, WORK, server(50 * d, 0.5 * w, 12 * d, 1.5, withMetrics)));
            store.putRun(run(s, "baseline-aa", r, 20 * d / w, WORK,
                    server(50 * d / w, 0.5 / w, 12 * d / w, 1.4, withMetrics)));
            String hWork = r == 1 ? WORK.replace("1024", "1000") : WORK;
            double hGap = r == 4 ? 30.0 : 1.2; // round 5: a large gap (30 ms of 39 ms)
            store.putRun(run(s, "human", r, 16 * d * w, hWork,
                    server(30 * d * w, 0.59 * d, 9 * d * w, hGap, withMetrics)));
            store.putRun(run(s, "agent:x", r, 20 * d * w, WORK, server(0, 0.5 * d, 12 * d * w, 1.3, withMetrics)));
        }
    }

    @Test
    void deltasCrossCheckAndOmissionsNextToTheVerdict() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            session(store, "s1", true);
            store.putSession(SessionRecord.builder("s1")
                    .time(Instant.parse("2026-11-26T22:00:00Z"), Instant.parse("2026-11-26T22:10:00Z"))
                    .machine("host-a", "2 cpus", "none", "{}").seed(7L).status("complete").build());
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, "s1", StatsConfig.defaults()).tasks().get(0);
            SecondaryMetrics sm = t.secondary();
            assertThat(sm.rows()).extracting(SecondaryMetrics.Row::metric).containsExactly(
                    "vllm:num_preemptions_delta", "vllm:prefix_cache_hit_rate", "vllm:time_to_first_token_ms_mean");
            SecondaryMetrics.Delta pre = delta(sm, "vllm:num_preemptions_delta", "human");
            // the human's round 2 did other work: out of the verdict, and out of the secondary pairs too
            assertThat(t.analysis().humanVsBaseline().pairs()).isEqualTo(5);
            assertThat(pre.pairs()).isEqualTo(5);
            assertThat(pre.changePct()).isBetween(-41.0, -39.0);
            assertThat(pre.ciLowPct()).isLessThan(pre.changePct());
            assertThat(pre.ciHighPct()).isGreaterThan(pre.changePct()).isLessThan(-30.0);
            SecondaryMetrics.Delta hits = delta(sm, "vllm:prefix_cache_hit_rate", "human");
            assertThat(hits.changePct()).isBetween(17.0, 19.5);
            assertThat(delta(sm, "vllm:num_preemptions_delta", "baseline-aa").changePct()).isBetween(-2.0, 2.0);
            // the agent never preempts, the baseline does: no ratio, said so, never a −100 % or a 0 shown as a change
            SecondaryMetrics.Delta zero = delta(sm, "vllm:num_preemptions_delta", "agent:x");
            assertThat(zero.changePct()).isNull();
            assertThat(zero.note()).isEqualTo("no ratio: a value is 0");
            assertThat(sm.omitted()).extracting(SecondaryMetrics.Omitted::oneLine).contains(
                    "vllm:spec_decode_acceptance_rate: no speculative draft tokens, or not exported by the server")
                    .anyMatch(l -> l.startsWith("GPU telemetry: no GPU telemetry (not sampled"));
            TtftCrossCheck c = sm.ttft();
            assertThat(c.arms()).extracting(TtftCrossCheck.ArmGaps::arm)
                    .containsExactly(Arm.BASELINE, Arm.BASELINE_AA, Arm.HUMAN, Arm.agent("x"));
            assertThat(c.flagged()).singleElement().satisfies(f -> {
                assertThat(f.arm()).isEqualTo(Arm.HUMAN);
                assertThat(f.round()).isEqualTo(4);
                assertThat(f.gapMs()).isEqualTo(30.0);
            });
            // the counted human rounds: 5 of 6 (round 2 excluded)
            assertThat(c.arms().get(2).runs()).isEqualTo(5);

            StringBuilder md = new StringBuilder();
            SecondarySection.markdown(t, md);
            Golden.check(GOLDEN.resolve("secondary.md"), md.toString());
            StringBuilder html = new StringBuilder();
            SecondarySection.html(t, html);
            Golden.check(GOLDEN.resolve("secondary.html"), html.toString());
            Golden.check(GOLDEN.resolve("secondary.json"), new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(sm.toMap()) + "\n");

            // the whole session report carries the block after the verdict's reasons
            StringWriter out = new StringWriter();
            try (ReportModel model = ReportModel.build(store, ReportScope.session("s1"))) {
                SessionReport.write(model, out);
                HtmlReport.write(model, dir.resolve("site"));
            }
            String report = out.toString();
            assertThat(report.indexOf("Secondary metrics (server /metrics and GPU telemetry; not judged): human vs"
                    + " baseline: vllm:num_preemptions_delta -")).isGreaterThan(report.indexOf("Why, per comparison"));
            assertThat(report).contains("- round 5, human: client 38.86 ms, server 8.864 ms, gap 30 ms (77 % of the client's)");
            String page = Files.list(dir.resolve("site")).filter(p -> p.getFileName().toString().startsWith("task-"))
                    .map(p -> {
                        try {
                            return Files.readString(p);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }).collect(Collectors.joining());
            assertThat(page).contains("<h2 id=\"secondary\">").contains("<table id=\"ttft-gap-table\">")
                    .contains("<ul id=\"ttft-flagged\">");
        }
    }

    @Test
    void aSecondaryMetricNeverChangesTheVerdict() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            session(store, "with", true);
            session(store, "without", false);
            SessionAnalysis.TaskResult with = SessionAnalysis.of(store, "with", StatsConfig.defaults()).tasks().get(0);
            SessionAnalysis.TaskResult without = SessionAnalysis.of(store, "without", StatsConfig.defaults())
                    .tasks().get(0);
            assertThat(with.analysis().toMap()).isEqualTo(without.analysis().toMap());
            // scraped, but /metrics never answered: nothing shown, the reason given, no 0
            assertThat(without.secondary().rows()).isEmpty();
            assertThat(without.secondary().omitted()).extracting(SecondaryMetrics.Omitted::oneLine).first()
                    .isEqualTo("server metrics: not scraped: /metrics never answered (69 failed scrape(s); a server"
                            + " without /metrics)");
            assertThat(without.secondary().ttft().omittedReason()).startsWith("not scraped: /metrics never answered");
            StringBuilder md = new StringBuilder();
            SecondarySection.markdown(without, md);
            assertThat(md.toString()).startsWith("\nSecondary metrics (server /metrics and GPU telemetry): none ("
                    + "server metrics: not scraped: /metrics never answered").doesNotContain("| 0 ");
        }
    }

    private static SecondaryMetrics.Delta delta(SecondaryMetrics sm, String metric, String arm) {
        return sm.rows().stream().filter(r -> r.metric().equals(metric)).findFirst().orElseThrow().deltas().stream()
                .filter(d -> d.arm().label().equals(arm)).findFirst().orElseThrow();
    }
}
