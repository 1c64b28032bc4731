package io.isobench.legacy;

import io.isobench.store.RunDetailsCodec;
import io.isobench.IsobenchException;
import io.isobench.SharedData;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LegacyImportTest {

    static Store newStore(Path dir) {
        return TestStores.open(dir);
    }

    static ImportSummary importSample(Store store) {
        return new LegacyImporter(store, null, null).importTree(SharedData.isobenchData());
    }

    static List<ThreeWayRow> table(Store store, String agent) {
        List<ThreeWayRow> rows = new ArrayList<>();
        ThreeWayTable.rows(store, agent, rows::add);
        return rows;
    }

    private static final Map<String, String> OLD_METRIC = Map.of("tpot_mean", "tpot_ms_mean", "latency_avg",
            "latency_ms_avg", "total_tokens_per_s", "total_throughput_tok_s", "output_toks_per_s",
            "output_throughput_tok_s");

    @Test
    void tableMatchesExpectedRowsForClaudeCode(@TempDir Path dir) throws Exception {
        Path expectedFile = SharedData.require("isobench-data/expected_3way_dev.csv");
        try (Store store = newStore(dir)) {
            importSample(store);
            Map<String, ThreeWayRow> got = new HashMap<>();
            for (ThreeWayRow r : table(store, "claude_code")) {
                got.put(r.commit(), r);
            }
            List<Map<String, String>> expected = Csv.read(Files.readString(expectedFile));
            assertThat(expected).isNotEmpty();
            for (Map<String, String> e : expected) {
                String c = e.get("commit");
                ThreeWayRow r = got.get(c);
                assertThat(r).as("row for %s", c).isNotNull();
                assertThat(r.status()).as("%s status", c).isEqualTo(e.get("recompute_status"));
                assertThat(nz(r.mode())).as("%s mode", c).isEqualTo(e.get("mode"));
                if (e.get("recompute_status").equals("no_metrics")) {
                    continue;
                }
                assertThat(r.pipeline()).as("%s pipeline", c).isEqualTo(e.get("pipeline"));
                assertThat(r.metric()).as("%s metric", c).isEqualTo(OLD_METRIC.get(e.get("metric")));
                value(c + " baseline", e.get("baseline_value"), r.baselineValue());
                value(c + " human", e.get("human_value"), r.humanValue());
                value(c + " agent", e.get("agent_value"), r.agentValue());
                delta(c + " human delta", e.get("human_delta_pct"), r.humanDeltaPct());
                delta(c + " agent delta", e.get("agent_delta_pct"), r.agentDeltaPct());
                delta(c + " agent vs human", e.get("agent_vs_human_pct"), r.agentVsHumanPct());
                assertThat(nz(r.comparability())).as("%s comparability", c).isEqualTo(e.get("comparability"));
                assertThat(String.join("|", r.origins().stream().map(LegacyImportTest::nz).toList()))
                        .as("%s origins", c)
                        .isEqualTo(nz(e.get("baseline_origin")) + "|" + nz(e.get("human_origin")) + "|"
                                + nz(e.get("agent_origin")));
            }
        }
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static void value(String what, String expected, String actual) {
        if (expected.isEmpty()) {
            assertThat(actual).as(what).isNull();
        } else {
            assertThat(actual).as(what).isNotNull();
            double e = Double.parseDouble(expected);
            assertThat(Double.parseDouble(actual)).as(what).isCloseTo(e, within(Math.abs(e) * 1e-9));
        }
    }

    private static void delta(String what, String expected, Double actual) {
        if (expected.isEmpty()) {
            assertThat(actual).as(what).isNull();
        } else {
            assertThat(actual).as(what).isNotNull();
            assertThat(actual).as(what).isCloseTo(Double.parseDouble(expected), within(0.0001));
        }
    }

    @Test
    void everyFileIsAccountedForAndRecoveriesAreFlagged(@TempDir Path dir) throws Exception {
        Path data = SharedData.isobenchData();
        long onDisk;
        try (Stream<Path> s = Files.walk(data)) {
            onDisk = s.filter(Files::isRegularFile).count();
        }
        try (Store store = newStore(dir)) {
            ImportSummary sum = importSample(store);
            assertThat(sum.files()).hasSize((int) onDisk);
            long results = sum.files().stream().filter(f -> f.path().startsWith("archive/")).count();
            assertThat(results).isEqualTo(42);
            Map<String, ImportSummary.FileOutcome> byName = new HashMap<>();
            sum.files().forEach(f -> byName.put(f.path(), f));
            ImportSummary.FileOutcome trae = find(sum, "f092153f_agent_result.json");
            assertThat(trae.outcome()).isEqualTo(ImportSummary.Outcome.RECOVERED);
            assertThat(trae.reason()).contains("stray fragment");
            ImportSummary.FileOutcome bfdb = find(sum, "bfdb1ba5_result.json");
            assertThat(bfdb.outcome()).as(bfdb.reason()).isEqualTo(ImportSummary.Outcome.RECOVERED);
            assertThat(bfdb.reason()).contains("throughput_tok_s");
            assertThat(find(sum, "omniperf_report_vllm.json").outcome()).isEqualTo(ImportSummary.Outcome.SKIPPED);
            assertThat(find(sum, "omniperf_report_vllm.json").reason()).contains("derived");
            assertThat(find(sum, "train-00000-of-00001.parquet").reason()).contains("isobench import hf");
            assertThat(find(sum, "updated_rows_only.csv").reason()).contains("isobench import hf");
            assertThat(find(sum, "full_results.jsonl").reason()).contains("isobench import hf");
            assertThat(find(sum, "README.md").reason()).isEqualTo("not a result file");
            assertThat(find(sum, "hero_3way_20251231_011435_progress.json").formatId()).isEqualTo("R2");
            assertThat(find(sum, "0d243f2a/benchmark_result.json").formatId()).isEqualTo("R11");
            assertThat(find(sum, "ce6bf3a2/benchmark_result.json").formatId()).isEqualTo("R12");
            assertThat(find(sum, "09deb20d/benchmark_result.json").formatId()).isEqualTo("R9");
            assertThat(find(sum, "22dd9c27_result.json").formatId()).isEqualTo("R6");
            for (ImportSummary.FileOutcome f : sum.files()) {
                assertThat(f.outcome()).as(f.path()).isNotEqualTo(ImportSummary.Outcome.UNCHANGED);
                if (f.outcome() != ImportSummary.Outcome.IMPORTED) {
                    assertThat(f.reason()).as(f.path()).isNotBlank();
                }
            }
            // Recovered file: imported and flagged, but no 3-way row comes from it.
            assertThat(table(store, "trae_gpt5")).isEmpty();
            List<RunRecord> trae5 = new ArrayList<>();
            store.forEachRun(new RunFilter("trae-gpt5", null, null, true), trae5::add);
            assertThat(trae5).hasSize(1);
            assertThat(trae5.get(0).notes()).contains("recovered");
            StringWriter out = new StringWriter();
            sum.print(new PrintWriter(out));
            assertThat(out.toString()).contains("total").contains("recovered:").contains("stray fragment");
        }
    }

    private static ImportSummary.FileOutcome find(ImportSummary sum, String suffix) {
        return sum.files().stream().filter(f -> f.path().endsWith(suffix)).findFirst()
                .orElseThrow(() -> new AssertionError("no file ending " + suffix));
    }

    @Test
    void reimportChangesNothing(@TempDir Path dir) throws Exception {
        try (Store store = newStore(dir)) {
            ImportSummary first = importSample(store);
            long runs = store.countRuns();
            int sources = store.sources().size();
            List<ThreeWayRow> rows = table(store, "claude_code");
            ImportSummary second = importSample(store);
            assertThat(store.countRuns()).isEqualTo(runs);
            assertThat(store.sources()).hasSize(sources);
            assertThat(table(store, "claude-code")).isEqualTo(rows);
            assertThat(second.count(ImportSummary.Outcome.UNCHANGED)).isEqualTo(first.files().size());
            // A root inside the tree names the files the same way: still nothing new.
            Path tree = SharedData.require("isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code");
            ImportSummary third = new LegacyImporter(store, null, null).importTree(tree);
            assertThat(third.count(ImportSummary.Outcome.UNCHANGED)).isEqualTo(third.files().size());
            assertThat(store.countRuns()).isEqualTo(runs);
        }
    }

    @Test
    void lfsPointerIsReportedAsSuch(@TempDir Path dir) throws Exception {
        Path tree = dir.resolve("tree/2026-01/omniperf_results_3way_x/exports/data");
        Files.createDirectories(tree);
        Files.writeString(tree.resolve("train-00000-of-00001.parquet"), LegacyImporter.LFS_MAGIC
                + "\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n");
        Path modal = dir.resolve("tree/2026-01/omniperf_results_3way_x/results/modal/abcdef12");
        Files.createDirectories(modal);
        Files.writeString(modal.resolve("benchmark_result.json"), LegacyImporter.LFS_MAGIC + "\noid sha256:00\nsize 1\n");
        try (Store store = newStore(dir)) {
            ImportSummary sum = new LegacyImporter(store, null, null).importTree(dir.resolve("tree"));
            assertThat(sum.files()).hasSize(2).allSatisfy(f -> {
                assertThat(f.outcome()).isEqualTo(ImportSummary.Outcome.REFUSED);
                assertThat(f.reason()).isEqualTo("LFS pointer, data not present");
            });
        }
    }

    @Test
    void unrecoverableJsonIsRefusedWithItsReason(@TempDir Path dir) throws Exception {
        Path modal = dir.resolve("omniperf_results_3way_claude-code/results/modal/abcdef12");
        Files.createDirectories(modal);
        Files.writeString(modal.resolve("benchmark_result.json"), "{\"result\": {\"status\": \"succ");
        Files.writeString(dir.resolve("omniperf_results_3way_claude-code/results/abcdef12_human_result.json"),
                "[1, 2]");
        try (Store store = newStore(dir)) {
            ImportSummary sum = new LegacyImporter(store, null, null).importTree(dir);
            assertThat(sum.count(ImportSummary.Outcome.REFUSED)).isEqualTo(2);
            assertThat(find(sum, "benchmark_result.json").reason()).startsWith("invalid JSON");
            assertThat(find(sum, "abcdef12_human_result.json").reason()).contains("expected a JSON object");
        }
    }

    @Test
    void badRootsAreBadInput(@TempDir Path dir) throws Exception {
        try (Store store = newStore(dir)) {
            LegacyImporter imp = new LegacyImporter(store, null, null);
            assertThatThrownBy(() -> imp.importTree(dir.resolve("missing")))
                    .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("missing")
                    .hasMessageContaining("does not exist");
            Path file = Files.writeString(dir.resolve("file.json"), "{}");
            assertThatThrownBy(() -> imp.importTree(file))
                    .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("not a directory");
            Path empty = Files.createDirectories(dir.resolve("empty"));
            assertThatThrownBy(() -> imp.importTree(empty))
                    .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("empty");
        }
    }

    @Test
    void otherAgentsOfTheSample(@TempDir Path dir) throws Exception {
        try (Store store = newStore(dir)) {
            importSample(store);
            Map<String, ThreeWayRow> codex = new HashMap<>();
            table(store, "codex").forEach(r -> codex.put(r.commit(), r));
            // 61b8cea3: stored status error, raw holds a valid throughput line -> a value from raw text.
            ThreeWayRow r = codex.get("61b8cea3");
            assertThat(r.status()).isEqualTo("incomplete");
            assertThat(r.mode()).isEqualTo("throughput");
            assertThat(r.agentValue()).isEqualTo("19152.84");
            assertThat(r.origins().get(2)).isEqualTo("raw");
            assertThat(r.pipeline()).isEqualTo("run_2026-01-18/19");
            assertThat(r.comparability()).isEqualTo("cross_run");
            assertThat(codex.get("aea94362").agentValue()).isEqualTo("11.32");
            assertThat(codex.get("98f47f2a").mode()).isEqualTo("latency");
            assertThat(codex.get("67da5720").status()).isEqualTo("no_metrics");
            assertThat(codex.get("fe66b347").status()).isEqualTo("no_metrics");
            assertThat(codex.get("fe66b347").mode()).isEqualTo("serving");
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter("codex", null, null, false), runs::add);
            RunRecord fixed = runs.stream().filter(x -> "61b8cea3".equals(x.commitShort())).findFirst().orElseThrow();
            assertThat(fixed.status()).isEqualTo(RunRecord.RunStatus.SUCCESS);
            assertThat(fixed.notes()).contains("old status was wrong");
            assertThat(RunDetailsCodec.encode(fixed.details())).contains("\"source_status\":\"error\"");
            Map<String, ThreeWayRow> cli = new HashMap<>();
            table(store, "codex-cli").forEach(x -> cli.put(x.commit(), x));
            assertThat(cli.get("2deb029d").mode()).isEqualTo("prefix_caching");
            assertThat(cli.get("2deb029d").agentValue()).isEqualTo("3347.27");
            assertThat(cli.get("9474e89b").mode()).isEqualTo("throughput");
            assertThat(cli.get("9474e89b").agentValue()).isEqualTo("4611.33");
        }
    }

    @Test
    void storesSourcesArtifactsAndTasks(@TempDir Path dir) throws Exception {
        try (Store store = newStore(dir)) {
            importSample(store);
            var src = store.findSource(
                    "archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/299ebb62/benchmark_result.json",
                    LegacyImporter.sha256(Files.readAllBytes(SharedData.require(
                            "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/299ebb62/benchmark_result.json"))));
            assertThat(src).isPresent();
            assertThat(src.get().formatId()).isEqualTo("R1");
            assertThat(src.get().pipeline()).isEqualTo("modal");
            assertThat(src.get().agent()).isEqualTo("claude_code");
            assertThat(store.artifact(src.get().contentArtifact())).isPresent();
            assertThat(new String(store.artifact(src.get().contentArtifact()).get(), StandardCharsets.UTF_8))
                    .contains("Serving Benchmark Result");
            var task = store.task("299ebb62");
            assertThat(task).isPresent();
            assertThat(task.get().subject()).startsWith("[Core] Speed up decode");
            assertThat(task.get().gpuCount()).isEqualTo(1);
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter("claude_code", null, null, true), runs::add);
            RunRecord base = runs.stream().filter(r -> "299ebb62".equals(r.commitShort()) && r.arm().label().equals("baseline"))
                    .findFirst().orElseThrow();
            assertThat(base.primaryMetric()).isEqualTo("tpot_ms_mean");
            assertThat(base.primaryValue()).isEqualTo(4.76);
            assertThat(base.primaryOrigin()).isEqualTo("raw");
            assertThat(base.workload()).contains("\"successful_requests\":100").contains("\"total_input_tokens\":51200");
            assertThat(base.metrics()).extracting(m -> m.name()).contains("ttft_ms_mean", "output_throughput_tok_s");
            assertThat(store.artifact(base.logArtifact()).map(b -> new String(b, StandardCharsets.UTF_8).length())).contains(3000);
        }
    }

    @Test
    void aChangedFileReplacesItsRuns(@TempDir Path dir) throws Exception {
        Path src = SharedData.require("isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/310aca88/benchmark_result.json");
        Path modal = dir.resolve("tree/omniperf_results_3way_x/results/modal/310aca88");
        Files.createDirectories(modal);
        Path copy = modal.resolve("benchmark_result.json");
        Files.copy(src, copy);
        try (Store store = newStore(dir)) {
            LegacyImporter imp = new LegacyImporter(store, null, null);
            imp.importTree(dir.resolve("tree"));
            assertThat(table(store, "x").get(0).baselineValue()).isEqualTo("4261.011293366673");
            Files.writeString(copy, Files.readString(copy).replace("4261.011293366673", "4000.5"));
            ImportSummary again = new LegacyImporter(store, null, null).importTree(dir.resolve("tree"));
            assertThat(again.count(ImportSummary.Outcome.IMPORTED)).isEqualTo(1);
            assertThat(store.countRuns()).isEqualTo(3);
            assertThat(table(store, "x").get(0).baselineValue()).isEqualTo("4000.5");
        }
    }
}
