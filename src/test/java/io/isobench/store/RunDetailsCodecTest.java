package io.isobench.store;

import io.isobench.parse.MetricResolution;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RunDetailsCodecTest {

    @Test
    void storedTextComesBackByteForByte() {
        String text = "{\"task\":\"t1\",\"job\":\"t1/baseline/r0\",\"job_index\":3,\"x\":1.0E-7,\"u\":\"\\u00e9\"}";
        RunDetails d = RunDetailsCodec.decode(text);
        assertThat(RunDetailsCodec.encode(d)).isEqualTo(text);
        assertThat(d.task()).isEqualTo("t1");
        assertThat(d.jobIndex(-1)).isEqualTo(3);
    }

    @Test
    void noneIsNullAndUnreadableTextIsKeptButReadsEmpty() {
        assertThat(RunDetailsCodec.encode(RunDetailsCodec.decode(null))).isNull();
        assertThat(RunDetails.NONE.isNone()).isTrue();
        RunDetails broken = RunDetailsCodec.decode("{not json");
        assertThat(RunDetailsCodec.encode(broken)).isEqualTo("{not json");
        assertThat(broken.task()).isNull();
        assertThat(broken.outputs()).isEmpty();
        assertThat(broken.gate()).isNull();
    }

    @Test
    void writersMapKeepsItsOrderAndTheWritersSerialization() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", "t");
        extra.put("pgid", 42L);
        extra.put("group", Map.of("pgid", 42));
        extra.put("attempt", 1);
        RunDetails d = RunDetails.of(extra);
        assertThat(RunDetailsCodec.encode(d)).isEqualTo("{\"task\":\"t\",\"pgid\":42,\"group\":{\"pgid\":42},\"attempt\":1}");
        assertThat(d.recordsGroup()).isTrue();
        assertThat(RunDetailsCodec.encode(d.without("pgid").without("group").with("group_outcome", "gone")))
                .isEqualTo("{\"task\":\"t\",\"attempt\":1,\"group_outcome\":\"gone\"}");
    }

    @Test
    void gateIsTyped() {
        RunDetails d = RunDetailsCodec.decode("{\"correctness\":{\"outcome\":\"OUTPUT_MISMATCH\",\"rule\":\"r1\","
                + "\"reason\":\"differs\",\"vs_baseline\":{\"exact_match_rate\":0.5,\"first_divergence_char\":7},"
                + "\"calibration\":{\"floor\":0.1,\"note\":\"n\",\"x\":[1]}},\"outputs\":[\"a\",\"b\"],"
                + "\"review_findings\":[\"f\"]}");
        GateResult g = d.gate();
        assertThat(g.outcome()).isEqualTo("OUTPUT_MISMATCH");
        assertThat(g.why()).isEqualTo(new GateResult.Why("r1", "differs"));
        assertThat(g.rates()).isEqualTo(new GateResult.Rates(0.5, null, 7.0));
        assertThat(g.calibration()).containsExactly(Map.entry("floor", 0.1), Map.entry("note", "n"),
                Map.entry("x", "[1]"));
        assertThat(d.outputs()).isEqualTo(List.of("a", "b"));
        assertThat(d.reviewFindings()).containsExactly("f");
        assertThat(d.exactMatchRate()).isEqualTo(0.5);
        assertThat(d.gateOutcomeText()).isEqualTo("OUTPUT_MISMATCH");
    }

    @Test
    void olderStoresGateForms() {
        RunDetails d = RunDetailsCodec.decode("{\"correctness\":\"MATCH\",\"mismatch_fraction\":0.25}");
        assertThat(d.gate().outcome()).isNull();
        assertThat(d.gateOutcomeText()).isEqualTo("MATCH");
        assertThat(d.exactMatchRate()).isEqualTo(0.75);
    }

    @Test
    void sourceFacts() {
        RunDetails d = RunDetailsCodec.decode("{\"recovered\":true,\"subject\":\"s\",\"perf_command\":\"p\","
                + "\"published\":{\"source\":\"x\"},\"serving_block\":true}");
        assertThat(d.recovered()).isTrue();
        assertThat(d.flag("serving_block")).isTrue();
        assertThat(d.subject()).isEqualTo("s");
        assertThat(d.perfCommand()).isEqualTo("p");
        assertThat(d.published().path("source").asText()).isEqualTo("x");
        assertThat(RunDetailsCodec.decode("{}").published()).isNull();
    }

    /**
     * The resolution of the metrics isobench measured itself: written in name order (the same text in every JVM),
     * read back typed, per metric and for a run's primary; older stores (no section) and malformed entries read none.
     */
    @Test
    void metricResolutionIsWrittenAndReadBackAndOlderStoresHaveNone() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", "t");
        extra.put(RunDetails.METRIC_RESOLUTION, RunDetails.resolutionSection(Map.of(
                "command_wall_s", MetricResolution.MONOTONIC_CLOCK, "command_cpu_s", MetricResolution.CGROUP_CPU_STAT)));
        RunDetails d = RunDetails.of(extra);
        assertThat(RunDetailsCodec.encode(d)).isEqualTo("{\"task\":\"t\",\"metric_resolution\":{\"command_cpu_s\":"
                + "{\"resolution\":1.0E-6,\"source\":\"cgroup_v2_cpu_stat\"},\"command_wall_s\":{\"resolution\":1.0E-9,"
                + "\"source\":\"monotonic_clock\"}}}");
        assertThat(d.metricResolution("command_cpu_s")).isEqualTo(new MetricResolution(1e-6, "cgroup_v2_cpu_stat"));
        assertThat(d.metricResolution("command_wall_s")).isEqualTo(MetricResolution.MONOTONIC_CLOCK);
        assertThat(d.metricResolution("tok_s")).as("read from the engine's output: not isobench's clock").isNull();
        RunDetails fallback = RunDetailsCodec.decode("{\"metric_resolution\":{\"command_cpu_s\":{\"resolution\":0.01,"
                + "\"source\":\"sh_times_clock_ticks\"}}}");
        assertThat(fallback.metricResolution("command_cpu_s")).isEqualTo(MetricResolution.SH_TIMES);
        assertThat(RunDetailsCodec.decode("{\"task\":\"t\"}").metricResolution("command_cpu_s")).isNull();
        assertThat(RunDetails.NONE.metricResolution("command_cpu_s")).isNull();
        assertThat(RunDetailsCodec.decode("{\"metric_resolution\":{\"command_cpu_s\":{\"resolution\":0,"
                + "\"source\":\"x\"}}}").metricResolution("command_cpu_s")).isNull();
        assertThat(RunDetailsCodec.decode("{\"metric_resolution\":{\"command_cpu_s\":{\"resolution\":\"1e-6\"}}}")
                .metricResolution("command_cpu_s")).isNull();

        RunRecord run = RunRecord.builder("r1").kind(RunRecord.RunKind.MEASURED).arm(io.isobench.Arm.BASELINE)
                .status(RunRecord.RunStatus.SUCCESS).primary("command_cpu_s", 0.16, "measured").details(d).build();
        assertThat(run.primaryResolution()).isEqualTo(MetricResolution.CGROUP_CPU_STAT);
        assertThat(run.withDetails(RunDetails.NONE).primaryResolution()).as("an older store").isNull();
    }
}
