package io.isobench.analysis;

import io.isobench.Arm;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which rounds count, from stored runs (docs/statistics.md, "Which rounds count"): a run whose workload differs from
 * the baseline's of its round, one that lost requests, and one measured on other hardware are excluded with their
 * reasons; the baseline's repeat check calibrates and is not the baseline's gate.
 */
class SessionAnalysisRoundsTest {

    @TempDir
    Path dir;

    static final String S = "s1";
    static final String WORK = "{\"requests\":8,\"input_tokens\":256,\"output_tokens\":1024,\"seed\":0,"
            + "\"dataset\":\"random(32,128)\"}";

    private int job;

    private RunRecord run(String arm, int round, double tpot, String workload, String hw, RunRecord.FailureInfo fi,
                          String pipeline, Map<String, Object> more) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("job", "tpot/" + arm + (pipeline.equals("native") ? "/r" + round : "/check"));
        x.put("job_index", job++);
        if (hw != null) {
            x.put("hardware_id", hw);
        }
        x.putAll(more);
        List<Metric> metrics = new ArrayList<>();
        if (pipeline.equals("native")) {
            metrics.add(Metric.of("tpot_ms_mean", tpot));
            metrics.add(Metric.of("failed_requests", fi != null && fi.category().equals("REQUESTS_FAILED") ? 2 : 0));
        }
        boolean ok = fi == null;
        Double primary = pipeline.equals("native") && (ok || fi.category().equals("REQUESTS_FAILED")) ? tpot : null;
        String id = S + "/" + x.get("job") + (x.containsKey("repeat") ? "-repeat" : "");
        return RunRecord.builder(id)
                .session(S)
                .kind(RunRecord.RunKind.MEASURED)
                .commit("c0ffee00", "c0ffee00")
                .agent(arm.startsWith("agent:") ? arm.substring(6) : null)
                .armLabel(arm)
                .round(Math.max(0, round))
                .status(ok ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED)
                .failure(fi)
                .modeLabel("serving")
                .model("toy-1m")
                .pipelineLabel(pipeline)
                .primary(primary == null ? null : "tpot_ms_mean", primary, primary == null ? null : "measured")
                .workload(workload)
                .startedAt(Instant.now())
                .durationMs(1000.0)
                .argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(x))
                .metrics(metrics)
                .build();
    }

    @Test
    void excludedRoundsCarryTheirReasons() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            // checks: the baseline's, its repeat (calibration), the human's
            store.putRun(run("baseline", -1, 0, null, "hw-a", null, "native-check",
                    Map.of("correctness", Map.of("outcome", "REFERENCE"))));
            Map<String, Object> repeat = new LinkedHashMap<>();
            repeat.put("repeat", true);
            repeat.put("job", "tpot/baseline/check-repeat");
            repeat.put("correctness", Map.of("outcome", "CALIBRATION", "calibration",
                    Map.of("restart_mismatch", 0.0, "batch_mismatch", 0.125, "floor", 0.125)));
            store.putRun(run("baseline", -1, 0, null, "hw-a", null, "native-check", repeat));
            store.putRun(run("human", -1, 0, null, "hw-a", null, "native-check",
                    Map.of("correctness", Map.of("outcome", "MATCH", "rule", "baseline"))));
            double[] wiggle = {0.001, -0.002, 0.0015, 0.0, -0.001, 0.002};
            for (int r = 0; r < 6; r++) {
                double base = 100 * (1 + wiggle[r]) * (r == 2 ? 1.5 : 1.0); // round 3 slow for every arm
                store.putRun(run("baseline", r, base, WORK, "hw-a", null, "native", Map.of()));
                store.putRun(run("baseline-aa", r, base * 1.001, WORK, "hw-a", null, "native", Map.of()));
                String hWork = r == 1 ? WORK.replace("1024", "1000") : WORK; // fewer output tokens: not the same work
                store.putRun(run("human", r, base / 1.2, hWork, "hw-a", null, "native", Map.of()));
                RunRecord.FailureInfo lost = r == 3 ? new RunRecord.FailureInfo("REQUESTS_FAILED",
                        "2 of 8 requests failed: http_500 x2", "2 of 8 requests failed", false) : null;
                String hw = r == 4 ? "hw-b" : "hw-a";
                store.putRun(run("agent:x", r, base / 1.1 * (1 + wiggle[5 - r] / 2), WORK, hw, lost, "native",
                        Map.of()));
            }
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, S, StatsConfig.defaults()).tasks().get(0);
            assertThat(t.hardware()).isEqualTo("hw-a");
            assertThat(t.calibration()).containsEntry("floor", 0.125).containsEntry("batch_mismatch", 0.125);
            assertThat(t.correctness(Arm.BASELINE).outcome()).isEqualTo("REFERENCE");
            TaskAnalysis a = t.analysis();
            assertThat(a.exclusions()).extracting(RoundExclusion::oneLine).containsExactly(
                    "round 2, human: workload_mismatch (output_tokens 1000 vs 1024)",
                    "round 4, agent:x: requests_failed (2 of 8 requests failed: http_500 x2)",
                    "round 5, agent:x: hardware_mismatch (ran on hw-b, the task is judged on hw-a)");
            // the human keeps 5 valid pairs: better, with the slow round cancelled in the pair
            assertThat(a.humanVsBaseline().pairs()).isEqualTo(5);
            assertThat(a.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
            assertThat(a.humanVsBaseline().speedup()).isBetween(1.19, 1.21);
            // the agent keeps 4 pairs, the 2 excluded rounds counted: enough for a verdict from its own pairs
            Comparison ab = a.agent("agent:x").orElseThrow().vsBaseline();
            assertThat(ab.pairs()).isEqualTo(4);
            assertThat(ab.roundsExcluded()).isEqualTo(2);
            assertThat(ab.verdict()).as(ab.reason()).isEqualTo(Verdict.BETTER);
            assertThat(ab.df()).isEqualTo(3);
            // the lost requests are also an outcome of their own
            assertThat(t.outcomes().get(Arm.ofStored("agent:x"))).containsEntry("REQUESTS_FAILED", 1);
            assertThat(a.noiseBand().bandPct()).isCloseTo(0.1, org.assertj.core.data.Offset.offset(1e-6));
        }
    }

    /** A run's stored {@code gpu_telemetry} section reaches the clock rule: flagged, still counted (the default). */
    @Test
    void aRoundWithOtherGpuClocksIsFlaggedFromTheStoredTelemetry() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            putClockSession(store);
            TaskAnalysis a = SessionAnalysis.of(store, S, StatsConfig.defaults()).tasks().get(0).analysis();
            assertThat(a.exclusions()).extracting(RoundExclusion::oneLine).containsExactly(
                    "round 3, human: clock_mismatch (sm clock 1755 vs 1980 MHz (-11.4 %, limit 3 %), throttle share 1"
                            + " vs 0 (limit 0.25) (vs the baseline's run of this round)) [flagged, still counted]");
            assertThat(a.humanVsBaseline().pairs()).isEqualTo(6);
            assertThat(a.humanVsBaseline().roundsExcluded()).isZero();
        }
    }

    /**
     * The clock rule stored with the session ({@code run.exclude_on_clock_mismatch}, its thresholds) is the one the
     * analysis uses, on and off, through the real store; a rule that cannot be read is an error, never the default.
     */
    @Test
    void theSessionsStoredClockRuleDecides() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            putClockSession(store);
            store.putSession(SessionRecord.builder(S).time(Instant.now(), null)
                    .statsConfigJson("{\"confidence\":0.95,\"clock_rule\":{\"exclude_on_clock_mismatch\":true,"
                            + "\"clock_mismatch_sm_pct\":3.0,\"clock_mismatch_throttle_share\":0.25}}").build());
            TaskAnalysis on = SessionAnalysis.of(store, S, StatsConfig.defaults()).tasks().get(0).analysis();
            assertThat(on.exclusions()).singleElement().satisfies(e -> {
                assertThat(e.excluded()).isTrue();
                assertThat(e.oneLine()).startsWith("round 3, human: clock_mismatch (sm clock 1755 vs 1980 MHz")
                        .doesNotContain("flagged");
            });
            assertThat(on.humanVsBaseline().pairs()).isEqualTo(5);
            assertThat(on.humanVsBaseline().roundsExcluded()).isEqualTo(1);

            // off, with a tighter SM clock limit: 1975 vs 1980 MHz (-0.25 %) is flagged in every round, all counted
            store.putSession(SessionRecord.builder(S).time(Instant.now(), null)
                    .statsConfigJson("{\"clock_rule\":{\"exclude_on_clock_mismatch\":false,"
                            + "\"clock_mismatch_sm_pct\":0.2,\"clock_mismatch_throttle_share\":0.25}}").build());
            TaskAnalysis off = SessionAnalysis.of(store, S, StatsConfig.defaults()).tasks().get(0).analysis();
            assertThat(off.exclusions()).hasSize(6).allSatisfy(e -> assertThat(e.excluded()).isFalse());
            assertThat(off.exclusions().get(0).oneLine()).contains("(-0.3 %, limit 0.2 %)");
            assertThat(off.humanVsBaseline().pairs()).isEqualTo(6);
            assertThat(off.humanVsBaseline().roundsExcluded()).isZero();

            store.putSession(SessionRecord.builder(S).time(Instant.now(), null)
                    .statsConfigJson("{\"clock_rule\":{\"exclude_on_clock_mismatch\":\"yes\"}}").build());
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> SessionAnalysis.of(store, S,
                    StatsConfig.defaults())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("the session's clock rule is unreadable");
        }
    }

    /** Six rounds of baseline and human with GPU telemetry; the human's round 3 power-capped at 1755 MHz. */
    private void putClockSession(Store store) throws Exception {
        store.putRun(run("baseline", -1, 0, null, "hw-a", null, "native-check",
                Map.of("correctness", Map.of("outcome", "REFERENCE"))));
        store.putRun(run("human", -1, 0, null, "hw-a", null, "native-check",
                Map.of("correctness", Map.of("outcome", "MATCH", "rule", "baseline"))));
        for (int r = 0; r < 6; r++) {
            store.putRun(run("baseline", r, 100 * (1 + 0.001 * r), WORK, "hw-a", null, "native",
                    Map.of("gpu_telemetry", Map.of("available", true, "gpu_sm_clock_mhz_mean", 1980.0,
                            "gpu_throttle_share", 0.0))));
            Map<String, Object> clocks = r == 2
                    ? Map.of("available", true, "gpu_sm_clock_mhz_mean", 1755.0, "gpu_throttle_share", 1.0)
                    : Map.of("available", true, "gpu_sm_clock_mhz_mean", 1975.0, "gpu_throttle_share", 0.0);
            store.putRun(run("human", r, 100 * (1 + 0.001 * r) / 1.2, WORK, "hw-a", null, "native",
                    Map.of("gpu_telemetry", clocks)));
        }
    }

    @Test
    void workloadDifferenceNamesTheKeysAndIgnoresTheFailureReasons() throws Exception {
        ObjectMapper m = new ObjectMapper();
        assertThat(Rounds.difference(m.readTree(WORK), m.readTree(WORK))).isNull();
        assertThat(Rounds.difference(m.readTree(WORK.replace("}", ",\"failures_by_reason\":{\"timeout\":1}}")),
                m.readTree(WORK))).isNull();
        assertThat(Rounds.difference(m.readTree(WORK.replace("\"seed\":0", "\"seed\":1")), m.readTree(WORK)))
                .isEqualTo("seed 1 vs 0");
        assertThat(Rounds.difference(m.readTree("{\"requests\":8}"), m.readTree("{\"requests\":8.0,\"argv\":[\"a\"]}")))
                .isEqualTo("argv none vs [\"a\"]");
    }
}
