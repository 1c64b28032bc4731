package io.isobench.analysis;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.task.Sweep;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Constructed measured runs of a sweep task (request rates 1, 2, 4, 8 req/s; 20 requests a run), stored with the
 * {@code sweep} details a session writes: for the sweep's analysis and report tests.
 */
public final class SweepRuns {

    public static final String S = "s1";
    public static final List<Double> RATES = List.of(1.0, 2.0, 4.0, 8.0);
    public static final String WORK = "{\"requests\":20,\"input_tokens\":640,\"output_tokens\":2560,\"seed\":0,"
            + "\"dataset\":\"random(32,128)\"}";

    private int job;

    /** A run at a point: {@code good} of its 20 requests met the SLO; {@code failed} requests lost. */
    public RunRecord run(String arm, int round, int point, int good, int failed, String workload) throws Exception {
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
        // an arm with a later knee (human, agent:hi) has flatter latency
        double slope = arm.equals("human") || arm.equals("agent:hi") ? 0.5 : 1.0;
        List<Metric> m = new ArrayList<>();
        m.add(Metric.of("completed_requests", completed));
        m.add(Metric.of("failed_requests", failed));
        m.add(Metric.of("request_throughput_rps", completed / duration * wiggle));
        m.add(Metric.of("request_goodput_rps", good / duration * wiggle));
        m.add(Metric.of("output_throughput_tok_s", completed * 128 / duration * wiggle));
        m.add(Metric.of("ttft_ms_median", 20 * rate * slope * wiggle));
        m.add(Metric.of("ttft_ms_p99", 50 * rate * slope * wiggle));
        m.add(Metric.of("tpot_ms_mean", 5 * rate * slope * wiggle));
        m.add(Metric.of("tpot_ms_median", 5 * rate * slope * wiggle));
        m.add(Metric.of("tpot_ms_p99", 9 * rate * slope * wiggle));
        RunRecord.FailureInfo fi = failed > 0
                ? new RunRecord.FailureInfo("REQUESTS_FAILED", failed + " failed", null, false) : null;
        return RunRecord.builder(S + "/" + x.get("job"))
                .session(S).kind(RunRecord.RunKind.MEASURED).commit("c0ffee00", "c0ffee00")
                .agent(arm.startsWith("agent:") ? arm.substring(6) : null).armLabel(arm).round(round)
                .status(fi == null ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED).failure(fi)
                .modeLabel("serving").model("toy-1m").pipelineLabel("native")
                .primary("tpot_ms_mean", 5 * rate * slope * wiggle, "measured")
                .workload(workload).startedAt(Instant.parse("2026-11-26T20:00:00Z").plusSeconds(job))
                .durationMs(1000.0).argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(x)).metrics(m).build();
    }

    /** An arm whose capacity is point {@code cap} (index; −1 below the lowest): 20 good up to it, 10 above. */
    public void arm(Store store, String arm, int round, int cap) throws Exception {
        for (int p = 0; p < RATES.size(); p++) {
            store.putRun(run(arm, round, p, p <= cap ? 20 : 10, 0, WORK));
        }
    }

    /**
     * {@code sweep: auto}'s pilot runs that chose {@link #RATES} (start 1 req/s, at most 3 pilots): 1 and 2 req/s met
     * the SLO, 4 broke it; the saturation is 2, the points 1, 2, 4, 8.
     */
    public void pilots(Store store) throws Exception {
        double[][] pilots = {{1, 0.98, 20}, {2, 1.96, 19}, {4, 3.1, 9}};
        for (int n = 1; n <= pilots.length; n++) {
            double rate = pilots[n - 1][0];
            double achieved = pilots[n - 1][1];
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("task", "serve");
            x.put("job", "serve/baseline/pilot" + n + "/request_rate=" + Sweep.text(rate));
            x.put("job_index", -1);
            x.put("pilot", Map.of("n", n, "rate_rps", rate, "start_rps", 1.0, "max_pilots", 3,
                    "min_good_fraction", 0.9));
            store.putRun(RunRecord.builder(S + "/" + x.get("job")).session(S).kind(RunRecord.RunKind.MEASURED)
                    .commit("c0ffee00", "c0ffee00").armLabel("baseline").round(0).status(RunRecord.RunStatus.SUCCESS)
                    .modeLabel("serving").model("toy-1m").pipelineLabel("native-pilot")
                    .primary("tpot_ms_mean", 5 * rate, "measured").workload(WORK)
                    .startedAt(Instant.parse("2026-11-26T19:59:00Z").plusSeconds(n)).durationMs(1000.0).argvJson("[]")
                    .detailsJson(new ObjectMapper().writeValueAsString(x)).metrics(List.of(
                            Metric.of("completed_requests", 20), Metric.of("failed_requests", 0),
                            Metric.of("request_throughput_rps", achieved),
                            Metric.of("request_goodput_rps", achieved * pilots[n - 1][2] / 20))).build());
        }
    }

    /** Six rounds: baseline and its A/A twin at 2 req/s, human at 4, agent:lo below 1, agent:hi at every point. */
    public void session(Store store) throws Exception {
        for (int r = 0; r < 6; r++) {
            arm(store, "baseline", r, 1);
            arm(store, "baseline-aa", r, 1);
            arm(store, "human", r, 2);
            arm(store, "agent:lo", r, -1);
            arm(store, "agent:hi", r, 3);
        }
    }
}
