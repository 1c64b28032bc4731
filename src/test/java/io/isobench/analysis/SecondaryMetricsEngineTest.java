package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.engine.Engines;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The secondary metrics' server rows come from the engine adapter whose namespace the counted runs carry
 * (docs/engines.md): SGLang runs show {@code sglang:*} rows in SGLang's order with the adapter's units; a planted
 * adapter's runs show its rows; vLLM runs show vLLM's (the goldens of report.SecondarySectionTest hold their output).
 */
class SecondaryMetricsEngineTest {

    private static RunRecord run(String arm, int round, Map<String, Double> server) {
        List<Metric> metrics = new ArrayList<>();
        metrics.add(Metric.of("tpot_ms_mean", 10 + round));
        metrics.add(Metric.of("server_metrics_scrapes", 3));
        server.forEach((k, v) -> metrics.add(new Metric(k, v, "x", Better.NONE)));
        return RunRecord.builder("s/" + arm + "/" + round).session("s").kind(RunRecord.RunKind.MEASURED)
                .commit("c0ffee00", "c0ffee00").armLabel(arm).round(round).status(RunRecord.RunStatus.SUCCESS)
                .modeLabel("serving").model("m").pipelineLabel("native").primary("tpot_ms_mean", 10.0 + round, "measured")
                .workload("{}").startedAt(Instant.parse("2026-11-28T00:00:00Z")).durationMs(1000.0).argvJson("[]")
                .detailsJson("{}").metrics(metrics).build();
    }

    private static SecondaryMetrics of(Map<String, Double> baseline, Map<String, Double> human) {
        Map<Arm, TreeMap<Integer, RunRecord>> counted = new LinkedHashMap<>();
        TreeMap<Integer, RunRecord> b = new TreeMap<>();
        TreeMap<Integer, RunRecord> h = new TreeMap<>();
        for (int r = 0; r < 3; r++) {
            b.put(r, run("baseline", r, baseline));
            h.put(r, run("human", r, human));
        }
        counted.put(Arm.BASELINE, b);
        counted.put(Arm.HUMAN, h);
        return SecondaryMetrics.of(counted, List.of(), StatsConfig.defaults());
    }

    @Test
    void sglangRunsShowSglangsRowsInItsOrderWithItsUnits() {
        SecondaryMetrics s = of(Map.of("sglang:num_running_reqs_mean", 4.0, "sglang:token_usage_mean", 0.5),
                Map.of("sglang:num_running_reqs_mean", 2.0, "sglang:token_usage_mean", 0.25));
        assertThat(s.rows()).extracting(SecondaryMetrics.Row::metric)
                .containsExactly("sglang:token_usage_mean", "sglang:num_running_reqs_mean");
        assertThat(s.rows()).extracting(SecondaryMetrics.Row::unit).containsExactly("ratio", "requests");
        assertThat(s.rows().get(1).deltas().get(0).changePct()).isEqualTo(-50.0);
        List<String> omitted = s.omitted().stream().flatMap(o -> o.metrics().stream()).toList();
        assertThat(omitted).contains("sglang:cache_hit_rate_mean", "sglang:time_to_first_token_ms_mean")
                .allMatch(n -> n.startsWith("sglang:") || n.startsWith("gpu_"));
        assertThat(s.omitted()).anyMatch(o -> o.reason().equals("no speculative decoding, or not exported by the"
                + " server"));
        assertThat(s.ttft().omittedReason()).contains("sglang:time_to_first_token_seconds");
    }

    @Test
    void aPlantedAdaptersRunsShowItsRows() {
        SecondaryMetrics s = of(Map.of("planted:busy_ratio_mean", 0.5), Map.of("planted:busy_ratio_mean", 0.6));
        assertThat(s.rows()).extracting(SecondaryMetrics.Row::metric).containsExactly("planted:busy_ratio_mean");
        assertThat(s.rows().get(0).unit()).isEqualTo("ratio");
    }

    @Test
    void vllmRunsShowVllmsRowsAsBefore() {
        SecondaryMetrics s = of(Map.of("vllm:num_preemptions_delta", 4.0), Map.of("vllm:num_preemptions_delta", 2.0));
        assertThat(s.rows()).extracting(SecondaryMetrics.Row::metric).containsExactly("vllm:num_preemptions_delta");
        assertThat(s.rows().get(0).unit()).isEqualTo("preemptions");
        assertThat(s.omitted().stream().flatMap(o -> o.metrics().stream())).hasSize(
                Engines.vllm().serverMetrics().shown().size() - 1)
                .allMatch(n -> n.startsWith("vllm:"));
        assertThat(s.ttft().omittedReason()).contains("vllm:time_to_first_token_seconds");
    }
}
