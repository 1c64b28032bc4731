package io.isobench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The reasons and the one-row rule of the corrections to published numbers (issue 28). */
class CorrectionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LATENCY = "python benchmarks/benchmark_latency.py --model m --input-len 32";
    private static final String SERVING = "python benchmarks/benchmark_serving.py --model m --dataset-name random";

    /** A run of one arm (baseline, human, agent:claude_code) with its primary value, command and published record. */
    private static RunRecord run(String id, RunRecord.RunKind kind, String pipeline, String arm, String mode,
                                 double value, String origin, String command, ObjectNode published) {
        ObjectNode d = JSON.createObjectNode();
        d.put("path", pipeline + "/" + id);
        d.put("perf_command", command);
        if (kind == RunRecord.RunKind.HF_IMPORT) {
            d.put("hf_key", "abcdef12|claude_code|m");
            d.put("data_source", "modal");
        }
        if (published != null) {
            d.set("published", published);
        }
        String metric = mode.equals("latency") ? "latency_ms_avg" : "tpot_ms_mean";
        return RunRecord.builder(id).kind(kind).commit("abcdef1234", "abcdef12").agent("claude_code").armLabel(arm)
                .status(RunStatus.SUCCESS).modeLabel(mode).model("m").pipelineLabel(pipeline).source("src-" + pipeline)
                .primary(metric, value, origin).detailsJson(d.toString()).metrics(List.of(Metric.of(metric, value)))
                .build();
    }

    /** A published record: improvements per comparison {@code {comparison, metric, pct}} and per-arm values. */
    private static ObjectNode published(String source, Object[][] figures, Object[][] values) {
        ObjectNode p = JSON.createObjectNode();
        for (Object[] f : figures) {
            (p.has((String) f[0]) ? (ObjectNode) p.get((String) f[0]) : p.putObject((String) f[0]))
                    .put((String) f[1], (Double) f[2]);
        }
        ObjectNode v = p.putObject("values");
        for (Object[] f : values) {
            (v.has((String) f[0]) ? (ObjectNode) v.get((String) f[0]) : v.putObject((String) f[0]))
                    .put((String) f[1], (Double) f[2]);
        }
        p.put("source", source);
        return p;
    }

    /** Three arms of one pipeline, all carrying {@code p}; values baseline 100, human 90, agent 95 (lower is better). */
    private static List<RunRecord> arms(RunRecord.RunKind kind, String pipeline, String mode, String[] commands,
                                       String origin, ObjectNode p) {
        String[] arms = {"baseline", "human", "agent:claude_code"};
        double[] values = {100, 90, 95};
        List<RunRecord> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(run(pipeline + i, kind, pipeline, arms[i], mode, values[i], origin, commands[i], p));
        }
        return out;
    }

    private static List<Corrections.Correction> corrections(List<RunRecord> runs) {
        ThreeWayRow row = ThreeWayTable.row("abcdef12", runs).orElseThrow();
        return Corrections.of(row, runs);
    }

    private static final String[] SAME = {LATENCY, LATENCY, LATENCY};

    @Test
    void aPublishedFigureOnTheSameMetricIsComparedFirst() {
        // isobench: human +10 % on latency_ms_avg. The record also has an engine-log throughput figure that differs.
        ObjectNode agrees = published("the result file's *_improvement fields",
                new Object[][] {{"human", "throughput", 99.8}, {"human", "latency_avg", 10.0}},
                new Object[][] {{"baseline", "latency_avg", 100.0}, {"human", "latency_avg", 90.0}});
        assertThat(corrections(arms(RunRecord.RunKind.LEGACY, "modal", "latency", SAME, "raw", agrees))).isEmpty();

        ObjectNode differs = published("the result file's *_improvement fields",
                new Object[][] {{"human", "throughput", 99.8}, {"human", "latency_avg", 12.0}},
                new Object[][] {{"baseline", "latency_avg", 100.0}, {"human", "latency_avg", 90.0}});
        List<Corrections.Correction> c = corrections(arms(RunRecord.RunKind.LEGACY, "modal", "latency", SAME, "raw",
                differs));
        assertThat(c).hasSize(1);
        assertThat(c.get(0).metric()).isEqualTo("latency_avg");
        assertThat(c.get(0).reason()).startsWith("different computation");

        // a record with no figure on the row's metric is compared on the one it has
        ObjectNode other = published("the result file's *_improvement fields",
                new Object[][] {{"human", "throughput", 99.8}}, new Object[][] {});
        c = corrections(arms(RunRecord.RunKind.LEGACY, "modal", "latency", SAME, "raw", other));
        assertThat(c).singleElement().satisfies(x -> {
            assertThat(x.metric()).isEqualTo("throughput");
            assertThat(x.reason()).startsWith("different metric: the published figure compares 'throughput'");
        });
    }

    @Test
    void twoRunsWithDifferentCommandsAreNamedAsSuch() {
        // a rerun's analysis: the baseline ran another command than the human; its values are not isobench's
        ObjectNode analysis = published("the rerun's analysis", new Object[][] {{"human", "latency_avg", 40.0}},
                new Object[][] {{"baseline", "latency_avg", 150.0}, {"human", "latency_avg", 90.0}});
        String[] commands = {SERVING, LATENCY, LATENCY};
        List<Corrections.Correction> c = corrections(arms(RunRecord.RunKind.LEGACY, "rerun_4_fixable", "latency",
                commands, "raw", analysis));
        assertThat(c).singleElement().satisfies(x -> assertThat(x.reason()).isEqualTo("two different runs (different"
                + " commands): the published baseline's command has 'benchmarks/benchmark_serving.py --dataset-name"
                + " random', the published human's 'benchmarks/benchmark_latency.py --input-len 32'"));

        // the same record on runs of one command: the raw line against the stored key
        c = corrections(arms(RunRecord.RunKind.LEGACY, "rerun_4_fixable", "latency", SAME, "raw", analysis));
        assertThat(c).singleElement().satisfies(x -> assertThat(x.reason()).startsWith("raw line vs stored key"));
    }

    @Test
    void thePublishedRunAgainstIsobenchsRunOfAnotherCommand() {
        // isobench reads the modal runs (benchmark_latency); the HF row published a run of another command
        List<RunRecord> runs = new ArrayList<>(arms(RunRecord.RunKind.LEGACY, "modal", "latency", SAME, "raw", null));
        ObjectNode hf = published("the published HF row", new Object[][] {{"human", "latency_avg", 30.0}},
                new Object[][] {{"baseline", "latency_avg", 200.0}, {"human", "latency_avg", 140.0}});
        String[] serving = {LATENCY + " --batch-size 8", LATENCY + " --batch-size 8", LATENCY + " --batch-size 8"};
        runs.addAll(arms(RunRecord.RunKind.HF_IMPORT, "hf_import", "latency", serving, "json", hf));
        assertThat(corrections(runs)).singleElement().satisfies(x -> assertThat(x.reason()).isEqualTo("two different"
                + " runs (different commands): the published baseline's command has '--batch-size 8', isobench's"
                + " baseline's nothing the other lacks"));
    }

    @Test
    void crossRunRowsAreNotComparable() {
        ObjectNode p = published("the result file's *_improvement fields",
                new Object[][] {{"human", "latency_avg", 25.0}},
                new Object[][] {{"baseline", "latency_avg", 120.0}, {"human", "latency_avg", 90.0}});
        List<Corrections.Correction> c = corrections(arms(RunRecord.RunKind.LEGACY, "separate", "latency", SAME,
                "json", p));
        assertThat(c).singleElement().satisfies(x -> assertThat(x.reason()).startsWith("not comparable: isobench's"
                + " arms were measured in separate invocations (cross_run_3_values_not_comparable"));
    }

    @Test
    void aFigurePublishedInASourceFileAndInTheHfTableIsOneRow() {
        Object[][] figures = {{"human", "latency_avg", 12.0}, {"agent", "latency_avg", 7.0}};
        Object[][] values = {{"baseline", "latency_avg", 100.0}, {"human", "latency_avg", 90.0},
                {"agent", "latency_avg", 95.0}};
        List<RunRecord> runs = new ArrayList<>();
        // the HF table first, as an import order might store them
        runs.addAll(arms(RunRecord.RunKind.HF_IMPORT, "hf_import", "latency", SAME, "json",
                published("the published HF row", figures, values)));
        runs.addAll(arms(RunRecord.RunKind.LEGACY, "modal", "latency", SAME, "raw",
                published("the result file's *_improvement fields", figures, values)));
        List<Corrections.Correction> c = corrections(runs);
        assertThat(c).extracting(Corrections.Correction::comparison).containsExactly("human", "agent");
        assertThat(c).allSatisfy(x -> assertThat(x.source())
                .isEqualTo("the result file's *_improvement fields; also the published HF row"));
    }

    @Test
    void theReportListsTheCorrectionOnceAfterImportHfAndImportLegacy(@TempDir Path dir) {
        Object[][] figures = {{"human", "latency_avg", 12.0}};
        Object[][] values = {{"baseline", "latency_avg", 100.0}, {"human", "latency_avg", 90.0}};
        List<RunRecord> runs = new ArrayList<>();
        runs.addAll(arms(RunRecord.RunKind.LEGACY, "modal", "latency", SAME, "raw",
                published("the result file's *_improvement fields", figures, values)));
        runs.addAll(arms(RunRecord.RunKind.HF_IMPORT, "hf_import", "latency", SAME, "json",
                published("the published HF row", figures, values)));
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            store.putRuns(runs);
            assertThat(ReportText.markdown(store).lines().filter(l -> l.startsWith("| `abcdef12` | claude_code | human |")))
                    .singleElement().satisfies(l -> assertThat(l).contains("| latency_avg | +12.00 | latency_ms_avg |"
                            + " +10.00 | different computation").endsWith("| the result file's *_improvement"
                            + " fields; also the published HF row |"));
        }
    }
}
