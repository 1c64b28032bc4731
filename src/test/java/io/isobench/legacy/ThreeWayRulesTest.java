package io.isobench.legacy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.store.RunRecord;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The 3-way rules on synthetic runs: precedence, comparability, statuses, tie-breaks, edge cases. */
class ThreeWayRulesTest {

    private static int seq;

    static RunRecord run(String pipeline, String arm, String mode, String value, String model) {
        return run(pipeline, arm, mode, value, model, null, false, false);
    }

    static RunRecord run(String pipeline, String arm, String mode, String value, String model, String workload,
                         boolean outputTokS, boolean recovered) {
        ObjectNode extra = LenientJson.MAPPER.createObjectNode();
        ObjectNode byMode = extra.putObject("primary_by_mode");
        if (value != null && mode != null) {
            byMode.putObject(mode).put("value", value).put("origin", "raw");
        }
        extra.put("serving_block", workload != null);
        extra.put("path", pipeline + "/" + arm + (seq++));
        if (outputTokS) {
            extra.put("output_tok_s", "100.0");
        }
        if (recovered) {
            extra.put("recovered", true);
        }
        String wl = workload == null ? null : "{\"successful_requests\":" + workload.split("/")[0]
                + ",\"total_input_tokens\":" + workload.split("/")[1] + "}";
        String armLabel = arm.equals("agent") ? "agent:a" : arm;
        return RunRecord.builder("r" + (seq++))
                .kind(RunRecord.RunKind.LEGACY)
                .commit("abcdef1234", "abcdef12")
                .agent("a")
                .armLabel(armLabel)
                .status(value == null ? RunRecord.RunStatus.FAILED : RunRecord.RunStatus.SUCCESS)
                .modeLabel(mode)
                .model(model)
                .pipelineLabel(pipeline)
                .source("s")
                .primary(null, value == null ? null : Double.valueOf(value), "raw")
                .workload(wl)
                .detailsJson(extra.toString())
                .build();
    }

    static List<RunRecord> three(String pipeline, String mode, String b, String h, String a) {
        List<RunRecord> l = new ArrayList<>();
        l.add(run(pipeline, "baseline", mode, b, "m"));
        l.add(run(pipeline, "human", mode, h, "m"));
        l.add(run(pipeline, "agent", mode, a, "m"));
        return l;
    }

    static ThreeWayRow row(List<RunRecord> runs) {
        return ThreeWayTable.row("abcdef12", runs).orElseThrow();
    }

    @Test
    void precedenceAndCompleteRow() {
        List<RunRecord> runs = new ArrayList<>(three("modal", "serving", "10", "8", "9"));
        runs.addAll(three("rerun_4_fixable", "throughput", "100", "110", "105"));
        ThreeWayRow r = row(runs);
        assertThat(r.status()).isEqualTo("complete_3way_same_run");
        assertThat(r.pipeline()).isEqualTo("rerun_4_fixable");
        assertThat(r.mode()).isEqualTo("throughput");
        assertThat(r.metric()).isEqualTo("total_throughput_tok_s");
        assertThat(r.better()).isEqualTo("higher");
        assertThat(r.humanDeltaPct()).isCloseTo(10.0, within(1e-12));
        assertThat(r.agentVsHumanPct()).isCloseTo((105.0 - 110.0) / 110.0 * 100, within(1e-12));
        assertThat(r.comparability()).isEqualTo("same_run");
    }

    @Test
    void aLaterCompleteCandidateBeatsAnEarlierOneWithIssues() {
        List<RunRecord> runs = new ArrayList<>();
        runs.add(run("docker_3way", "baseline", "serving", "10", "m1"));
        runs.add(run("docker_3way", "human", "serving", "9", "m2"));
        runs.add(run("docker_3way", "agent", "serving", "8", "m1"));
        runs.addAll(three("modal", "latency", "1000", "900", "950"));
        ThreeWayRow r = row(runs);
        assertThat(r.status()).isEqualTo("complete_3way_same_run");
        assertThat(r.pipeline()).isEqualTo("modal");
    }

    @Test
    void modelMismatchInOneInvocationIsSameRunWithIssues() {
        List<RunRecord> runs = new ArrayList<>();
        runs.add(run("docker_3way", "baseline", "serving", "10", "m1"));
        runs.add(run("docker_3way", "human", "serving", "9", null)); // a null model is ignored
        runs.add(run("docker_3way", "agent", "serving", "8", "m2"));
        ThreeWayRow r = row(runs);
        assertThat(r.status()).isEqualTo("same_run_3_values_with_issues");
        assertThat(r.comparability()).isEqualTo("same_run_with_issues");
        assertThat(r.issues()).isEqualTo("model mismatch");
    }

    @Test
    void nullModelsAndArmsWithoutServingBlockDoNotCauseMismatch() {
        List<RunRecord> runs = new ArrayList<>();
        runs.add(run("modal", "baseline", "serving", "10", "m", "100/51200", false, false));
        runs.add(run("modal", "human", "serving", "9", null, null, false, false));
        runs.add(run("modal", "agent", "serving", "8", "m", "100/51200", false, false));
        assertThat(row(runs).status()).isEqualTo("complete_3way_same_run");
        runs.set(2, run("modal", "agent", "serving", "8", "m", "100/25600", false, false));
        ThreeWayRow r = row(runs);
        assertThat(r.status()).isEqualTo("same_run_3_values_with_issues");
        assertThat(r.issues()).isEqualTo("workload mismatch");
    }

    @Test
    void zeroBaselineLeavesDeltasUndefined() {
        ThreeWayRow r = row(three("modal", "throughput", "0", "5", "6"));
        assertThat(r.status()).isEqualTo("same_run_3_values_delta_undefined");
        assertThat(r.humanDeltaPct()).isNull();
        assertThat(r.agentDeltaPct()).isNull();
        assertThat(r.agentVsHumanPct()).isCloseTo(20.0, within(1e-12));
    }

    @Test
    void separateFilesAreCrossRunAndModesResolveToServing() {
        List<RunRecord> runs = new ArrayList<>();
        runs.add(run("separate", "baseline", "throughput", "100", "m1"));
        runs.add(run("separate", "human", "serving", "9", "m2"));
        runs.add(run("separate", "agent", "serving", "8", "m2"));
        ThreeWayRow r = row(runs);
        assertThat(r.mode()).isEqualTo("serving");
        assertThat(r.status()).isEqualTo("incomplete"); // baseline has no serving value
        assertThat(r.comparability()).isEqualTo("cross_run");
        assertThat(r.issues()).isEqualTo("cross-run; modes differ across files; model mismatch");

        List<RunRecord> ok = three("run_2026-01-18/19", "latency", "1000", "900", "950");
        ThreeWayRow r2 = row(ok);
        assertThat(r2.status()).isEqualTo("cross_run_3_values_not_comparable");
        assertThat(r2.pipeline()).isEqualTo("run_2026-01-18/19");
        assertThat(r2.humanDeltaPct()).isCloseTo(10.0, within(1e-12));

        List<RunRecord> alpha = new ArrayList<>();
        alpha.add(run("separate", "baseline", "throughput", "100", "m"));
        alpha.add(run("separate", "human", "latency", "9", "m"));
        assertThat(row(alpha).mode()).isEqualTo("latency");
    }

    @Test
    void incompleteTieBreaksOnOutputThroughputThenPrecedence() {
        List<RunRecord> runs = new ArrayList<>();
        runs.add(run("modal", "baseline", "serving", "10", "m"));
        runs.add(run("modal", "human", "serving", "9", "m"));
        runs.add(run("modal", "agent", "serving", null, "m"));
        runs.add(run("separate", "baseline", "serving", "11", "m", null, true, false));
        runs.add(run("separate", "human", "serving", "10", "m", null, true, false));
        ThreeWayRow r = row(runs);
        assertThat(r.status()).isEqualTo("incomplete");
        assertThat(r.pipeline()).isEqualTo("separate");
        runs.remove(4);
        runs.add(run("separate", "human", "serving", "10", "m"));
        runs.remove(3);
        runs.add(run("separate", "baseline", "serving", "11", "m"));
        assertThat(row(runs).pipeline()).isEqualTo("modal");
        assertThat(row(runs).comparability()).isEqualTo("same_run");
    }

    @Test
    void noMetricsTakesPipelineAndModeFromTheFirstSource() {
        List<RunRecord> runs = new ArrayList<>();
        runs.add(run("separate", "agent", "serving", null, "m"));
        runs.add(run("modal", "baseline", "latency", null, "m"));
        ThreeWayRow r = row(runs);
        assertThat(r.status()).isEqualTo("no_metrics");
        assertThat(r.pipeline()).isEqualTo("modal");
        assertThat(r.mode()).isEqualTo("latency");
        assertThat(r.comparability()).isNull();
        assertThat(r.baselineValue()).isNull();
    }

    @Test
    void recoveredFilesAndOtherKindsAreNeverSources() {
        List<RunRecord> runs = new ArrayList<>();
        runs.add(run("modal", "baseline", "serving", "10", "m", null, false, true));
        assertThat(ThreeWayTable.row("abcdef12", runs)).isEmpty();
        RunRecord r = run("modal", "baseline", "serving", "10", "m");
        RunRecord superseded = RunRecord.builder(r.runId())
                .kind(RunRecord.RunKind.LEGACY_SUPERSEDED)
                .commit(r.commit(), r.commitShort())
                .agent(r.agent())
                .arm(r.arm())
                .status(r.status())
                .mode(r.mode())
                .model(r.model())
                .pipeline(r.pipeline())
                .source(r.sourceId())
                .primary(null, r.primaryValue(), "raw")
                .details(r.details())
                .build();
        assertThat(ThreeWayTable.row("abcdef12", List.of(superseded))).isEmpty();
        RunRecord other = run("docker_single", "human", "latency", "5", "m");
        assertThat(ThreeWayTable.row("abcdef12", List.of(other))).isEmpty();
    }

    @Test
    void valuesPrintAsParsedAndDeltasWithFourDecimals() {
        ThreeWayRow r = row(three("modal", "serving", "4.76", "4.20", "4.30"));
        StringWriter sw = new StringWriter();
        TableFormat.Writer w = TableFormat.CSV.open(new PrintWriter(sw));
        w.row(r);
        w.end();
        assertThat(sw.toString()).endsWith("abcdef12,complete_3way_same_run,modal,serving,tpot_ms_mean,ms,lower,4.76,4.20,"
                + "4.30,11.7647,9.6639,-2.3810,same_run,\n");
        assertThat(TableFormat.plain("1E-7")).isEqualTo("0.0000001");
        assertThat(TableFormat.delta(-0.00001)).isEqualTo("0.0000");
    }

    @Test
    void runsWithoutPerModeCandidatesUseTheirOwnPrimaryValue() {
        List<RunRecord> runs = new ArrayList<>();
        for (String[] a : new String[][] {{"baseline", "10.0"}, {"human", "9.0"}, {"agent:a", "8.5"}}) {
            runs.add(RunRecord.builder("id-" + a[0])
                    .kind(RunRecord.RunKind.LEGACY)
                    .commit("abcdef1234", "abcdef12")
                    .agent("a")
                    .armLabel(a[0])
                    .status(RunRecord.RunStatus.SUCCESS)
                    .modeLabel("serving")
                    .model("m")
                    .pipelineLabel("docker_3way")
                    .primary("tpot_ms_mean", Double.valueOf(a[1]), "raw")
                    .detailsJson("{\"synthetic\":true}")
                    .build());
        }
        ThreeWayRow r = row(runs);
        assertThat(r.status()).isEqualTo("complete_3way_same_run");
        assertThat(r.baselineValue()).isEqualTo("10.0");
        assertThat(r.agentDeltaPct()).isCloseTo(15.0, within(1e-9));
    }
}
