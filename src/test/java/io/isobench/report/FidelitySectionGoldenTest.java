package io.isobench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task's load fidelity per run, Markdown and HTML, from a real store of constructed runs whose details carry the
 * {@code client_check} and {@code schedule} sections (one run's client saturated, one run measured again after a
 * saturated attempt), against golden files; a task
 * whose runs carry neither shows no section. After an intended change:
 * {@code scripts/test-unit -Dtest=FidelitySectionGoldenTest -Disobench.golden.rewrite=true}, review the diff.
 */
class FidelitySectionGoldenTest {

    static final Path MD = Path.of("src/test/resources/golden/report/load-fidelity.md");
    static final Path HTML = Path.of("src/test/resources/golden/report/load-fidelity.html");
    private static final String S = "s1";

    @TempDir
    Path dir;

    private int job;

    private RunRecord run(String arm, int round, double tpot, boolean fidelity, boolean saturated) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("job", "tpot/" + arm + "/r" + round);
        x.put("job_index", job++);
        x.put("hardware_id", "hw-a");
        if (fidelity) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("saturated", saturated);
            c.put("reasons", saturated ? List.of("event-loop lag p99 38.2 ms > 10 ms", "schedule lag p99 31.5 ms > 10 ms")
                    : List.of());
            c.put("cpu_busy_pct", saturated ? 97.5 : 11.75 + round);
            c.put("loop_lag_ms_p99", saturated ? 38.2 : 0.35);
            c.put("loop_lag_ms_max", saturated ? 51.0 : 1.2);
            c.put("send_lag_ms_p99", saturated ? 31.5 : 0.41);
            x.put("client_check", c);
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("requests", 8);
            s.put("lag_ms_p50", saturated ? 12.25 : 0.08);
            s.put("lag_ms_p99", saturated ? 31.5 : 0.41);
            s.put("lag_ms_max", saturated ? 33.0 : 0.5);
            s.put("late_threshold_ms", 1.0);
            s.put("late_pct", saturated ? 87.5 : 0.0);
            s.put("configured_rate_rps", 20.0);
            s.put("delivered_rate_rps", saturated ? 13.4 : 19.96);
            s.put("configured_max_concurrency", arm.equals("human") ? 4 : null);
            s.put("delivered_concurrency_mean", 2.5);
            x.put("schedule", s);
            if (arm.equals("baseline") && round == 2) {
                // its first attempt's client was saturated and the run measured again (session.RetryPolicy)
                x.put("client_saturated_attempts", List.of(Map.of("attempt", 1, "duration_ms", 900.0, "client_check",
                        Map.of("saturated", true, "reasons", List.of("event-loop lag p99 17.2 ms > 10 ms")),
                        "metrics", Map.of("tpot_ms_mean", 102.5))));
            }
        }
        return RunRecord.builder(S + "/" + x.get("job"))
                .session(S).kind(RunRecord.RunKind.MEASURED).commit("c0ffee00", "c0ffee00")
                .agent(arm.startsWith("agent:") ? arm.substring(6) : null).armLabel(arm).round(round)
                .status(RunRecord.RunStatus.SUCCESS).modeLabel("serving").model("toy-1m").pipelineLabel("native")
                .primary("tpot_ms_mean", tpot, "measured").workload("{\"requests\":8}").startedAt(Instant.now())
                .durationMs(1000.0).argvJson("[]").detailsJson(new ObjectMapper().writeValueAsString(x))
                .metrics(List.of(Metric.of("tpot_ms_mean", tpot), Metric.of("failed_requests", 0))).build();
    }

    private NativeTask task(boolean fidelity) throws Exception {
        try (Store store = Stores.open(dir.resolve(fidelity + ".duckdb").toString())) {
            for (int r = 0; r < 3; r++) {
                for (String arm : List.of("baseline", "human", "agent:x")) {
                    store.putRun(run(arm, r, arm.equals("baseline") ? 100 + r : 90 - r, fidelity,
                            arm.equals("agent:x") && r == 1));
                }
            }
            SessionAnalysis a = SessionAnalysis.of(store, S, StatsConfig.defaults());
            return NativeTask.collect(store, null, a, 1, new HashSet<>()).get(0);
        }
    }

    @Test
    void markdownAndHtmlMatchTheirGoldens() throws Exception {
        NativeTask t = task(true);
        StringBuilder md = new StringBuilder();
        FidelitySection.markdown(t, md);
        StringBuilder html = new StringBuilder();
        FidelitySection.html(t, html, new Colours(Map.of("x", "#CC79A7"))::of);
        check(MD, md.toString());
        check(HTML, html.toString());
        // what the goldens must show, whatever their layout: every run, the saturated one marked with its reasons
        assertThat(md.toString().lines().filter(l -> l.startsWith("| ") && !l.startsWith("| round"))).hasSize(9);
        assertThat(md.toString()).contains("| 2 | agent:x | 12.3 / 31.5 / 33.0 | 87.5 % (&gt; 1.00 ms) | 13.4 / 20.0 |"
                + " 2.50 / none | 98 % / 38.2 ms | CLIENT_SATURATED: event-loop lag p99 38.2 ms &gt; 10 ms; schedule lag"
                + " p99 31.5 ms &gt; 10 ms |", "| 1 | human | 0.08 / 0.41 / 0.50 | 0.0 % (&gt; 1.00 ms) | 20.0 / 20.0 |"
                + " 2.50 / 4 | 12 % / 0.35 ms | ok |", "| 3 | baseline | 0.08 / 0.41 / 0.50 | 0.0 % (&gt; 1.00 ms) |"
                + " 20.0 / 20.0 | 2.50 / none | 14 % / 0.35 ms | ok (measured again: 1 earlier attempt saturated) |");
        assertThat(html.toString()).contains("<h2 id=\"load-fidelity\">", "<td><strong>CLIENT_SATURATED</strong>: "
                + "event-loop lag p99 38.2 ms &gt; 10 ms");
        // and the analysis excluded that round
        assertThat(t.result().analysis().exclusions()).singleElement()
                .satisfies(e -> assertThat(e.oneLine()).startsWith("round 2, agent:x: client_saturated ("));
    }

    @Test
    void runsWithoutFidelityShowNoSection() throws Exception {
        NativeTask t = task(false);
        StringBuilder md = new StringBuilder();
        FidelitySection.markdown(t, md);
        StringBuilder html = new StringBuilder();
        FidelitySection.html(t, html, new Colours(Map.of())::of);
        assertThat(md).isEmpty();
        assertThat(html).isEmpty();
    }

    private static void check(Path golden, String actual) throws Exception {
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        assertThat(golden).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
        assertThat(actual).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }
}
