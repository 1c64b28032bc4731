package io.isobench.analysis;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
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
 * A load sweep from stored runs to curves, capacities and the verdict on capacity (docs/statistics.md, "Load sweeps
 * and capacity"): constructed runs of a real store, each with its {@code sweep} details as the session writes them.
 */
class SweepAnalysisTest {

    @TempDir
    Path dir;

    static final String S = "s1";
    static final List<Double> RATES = List.of(1.0, 2.0, 4.0, 8.0);
    static final String WORK = "{\"requests\":20,\"input_tokens\":640,\"output_tokens\":2560,\"seed\":0,"
            + "\"dataset\":\"random(32,128)\"}";

    private int job;

    /** A run at a point: {@code good} of 20 requests met the SLO; {@code failed} requests lost. */
    private RunRecord run(String arm, int round, int point, int good, int failed, String workload) throws Exception {
        double rate = RATES.get(point);
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "serve");
        x.put("job", "serve/" + arm + "/r" + round + "/request_rate=" + rate);
        x.put("job_index", job++);
        x.put("hardware_id", "hw-a");
        x.put("sweep", Map.of("kind", "request_rate", "value", rate, "index", point, "points", RATES.size(),
                "min_good_fraction", 0.9));
        int completed = 20 - failed;
        double duration = 20 / rate;
        double wiggle = 1 + 0.01 * ((round * 7 + point * 3 + arm.length()) % 5 - 2);
        List<Metric> m = new ArrayList<>();
        m.add(Metric.of("completed_requests", completed));
        m.add(Metric.of("failed_requests", failed));
        m.add(Metric.of("request_throughput_rps", completed / duration));
        m.add(Metric.of("request_goodput_rps", good / duration));
        m.add(Metric.of("output_throughput_tok_s", completed * 128 / duration * wiggle));
        m.add(Metric.of("ttft_ms_median", 20 * rate * wiggle));
        m.add(Metric.of("ttft_ms_p99", 50 * rate * wiggle));
        m.add(Metric.of("tpot_ms_mean", 5 * rate * wiggle));
        m.add(Metric.of("tpot_ms_median", 5 * rate * wiggle));
        RunRecord.FailureInfo fi = failed > 0 ? new RunRecord.FailureInfo("REQUESTS_FAILED", failed + " failed", null, false) : null;
        return RunRecord.builder(S + "/" + x.get("job"))
                .session(S).kind(RunRecord.RunKind.MEASURED).commit("c0ffee00", "c0ffee00")
                .agent(arm.startsWith("agent:") ? arm.substring(6) : null).armLabel(arm).round(round)
                .status(fi == null ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED).failure(fi)
                .modeLabel("serving").model("toy-1m").pipelineLabel("native")
                .primary("tpot_ms_mean", 5 * rate * wiggle, "measured")
                .workload(workload).startedAt(Instant.now()).durationMs(1000.0).argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(x)).metrics(m).build();
    }

    /** Good requests of 20 at each point for an arm whose capacity is {@code cap} (index): 20 up to it, 10 above. */
    private void arm(Store store, String arm, int round, int cap) throws Exception {
        for (int p = 0; p < RATES.size(); p++) {
            store.putRun(run(arm, round, p, p <= cap ? 20 : 10, 0, WORK));
        }
    }

    @Test
    void capacityPerArmAndTheVerdictOnCapacity() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            for (int r = 0; r < 6; r++) {
                arm(store, "baseline", r, 1);      // 2 req/s
                arm(store, "baseline-aa", r, 1);
                arm(store, "human", r, 2);         // 4 req/s
                arm(store, "agent:lo", r, -1);     // below the lowest point
                arm(store, "agent:hi", r, 3);      // every point met
            }
            SessionAnalysis a = SessionAnalysis.of(store, S, StatsConfig.defaults());
            SessionAnalysis.TaskResult t = a.tasks().get(0);
            SweepAnalysis sw = t.sweep();
            assertThat(sw).isNotNull();
            assertThat(sw.axis().points()).containsExactly(1.0, 2.0, 4.0, 8.0);
            assertThat(sw.axis().unit()).isEqualTo("req/s");
            assertThat(sw.capacity().get("baseline").value().median()).isEqualTo(2.0);
            assertThat(sw.capacity().get("human").value().median()).isEqualTo(4.0);
            assertThat(sw.capacityText("human")).isEqualTo("4 req/s");
            assertThat(sw.capacity().get("agent:lo").belowLowest()).isEqualTo(6);
            assertThat(sw.capacityText("agent:lo")).isEqualTo("< 1 req/s (lowest point not met)");
            assertThat(sw.capacity().get("agent:hi").atHighest()).isEqualTo(6);
            assertThat(sw.capacityText("agent:hi")).isEqualTo("≥ 8 req/s (highest point met)");
            // the task's verdict is the verdict on capacity, like any metric's
            assertThat(t.analysis()).isSameAs(sw.verdicts());
            assertThat(t.analysis().metric()).isEqualTo("capacity_request_rate_rps");
            assertThat(t.unit()).isEqualTo("req/s");
            assertThat(t.analysis().humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
            assertThat(t.analysis().humanVsBaseline().speedup()).isCloseTo(2.0, org.assertj.core.data.Offset.offset(1e-9));
            AgentOutcome lo = t.analysis().agents().stream().filter(o -> o.agent().contains("lo")).findFirst()
                    .orElseThrow();
            assertThat(lo.vsBaseline().verdict()).isEqualTo(Verdict.WORSE);
            // the curve: per point the median over rounds with its CI; the baseline's good fraction falls at 4 req/s
            SweepAnalysis.PointStats b4 = sw.curves().get("baseline").get(2);
            assertThat(b4.load()).isEqualTo(4.0);
            assertThat(b4.runs()).isEqualTo(6);
            assertThat(b4.met()).isZero();
            assertThat(b4.metrics().get("good_fraction").median()).isEqualTo(0.5);
            assertThat(b4.metrics().get("ttft_ms_p99").low()).isLessThanOrEqualTo(b4.metrics().get("ttft_ms_p99").median());
            assertThat(sw.curves().get("human").get(2).met()).isEqualTo(6);
        }
    }

    @Test
    void lostRequestsMissThePointAndAnIncomparableRunGivesNoSample() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            for (int r = 0; r < 5; r++) {
                arm(store, "baseline", r, 1);
                if (r == 0) {
                    // round 0: the human loses requests at 2 req/s (a failure outcome and an exclusion): not met
                    store.putRun(run("human", r, 0, 20, 0, WORK));
                    store.putRun(run("human", r, 1, 18, 2, WORK));
                    store.putRun(run("human", r, 2, 20, 0, WORK));
                    store.putRun(run("human", r, 3, 10, 0, WORK));
                } else if (r == 1) {
                    // round 1: the human did other work at 4 req/s: not comparable, the round has no capacity sample
                    arm(store, "human", r, 2);
                    store.putRun(run("human", r, 2, 20, 0, WORK.replace("2560", "2000")));
                } else {
                    arm(store, "human", r, 2);
                }
            }
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, S, StatsConfig.defaults()).tasks().get(0);
            SweepAnalysis.Capacity h = t.sweep().capacity().get("human");
            assertThat(h.perRound()).containsEntry(0, 1.0).doesNotContainKey(1).containsEntry(2, 4.0);
            assertThat(t.analysis().exclusions()).extracting(RoundExclusion::oneLine).anyMatch(l -> l.contains(
                    "round 1, human: requests_failed (request_rate=2")).anyMatch(l -> l.contains(
                    "round 2, human: workload_mismatch (request_rate=4: output_tokens 2000 vs 2560)"));
        }
    }
}
