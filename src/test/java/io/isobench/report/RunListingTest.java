package io.isobench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.legacy.TableFormat;
import io.isobench.parse.Metric;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunKind;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench runs}: the CSV columns are a contract ({@code run_id, source, commit, agent, arm, pipeline, mode,
 * status, category, evidence, metric, value, unit, superseded, attempt_at}), sealed by the golden file
 * {@code golden/runs.csv} over a store holding every kind of run (legacy success, failure with a multi-line evidence,
 * an arm that never ran, a native run, a row of an HF table, a superseded attempt charged to no arm). After an intended change: {@code mvn -o -q test -Dtest=RunListingTest
 * -Disobench.golden.rewrite=true}, review the diff.
 */
class RunListingTest {

    static final Path GOLDEN = Path.of("src/test/resources/golden/runs.csv");

    private static RunRecord run(String id, String session, RunKind kind, String commit, String agent, String arm,
                                 RunStatus status, RunRecord.FailureInfo failure, String mode, String pipeline,
                                 String metric, Double value, String extra) {
        return RunRecord.builder(id)
                .session(session)
                .kind(kind)
                .commit(commit, commit.substring(0, 8))
                .agent(agent)
                .armLabel(arm)
                .status(status)
                .failure(failure)
                .modeLabel(mode)
                .pipelineLabel(pipeline)
                .primary(metric, value, value == null ? null : "raw")
                .detailsJson(extra)
                .metrics(value == null ? List.of() : List.of(Metric.of(metric, value)))
                .build();
    }

    static void fill(Store store) {
        store.putRuns(List.of(
                run("legacy-a1", null, RunKind.LEGACY, "299ebb62b269ce167eb1c71b5e39a1dc1f65ce1c", "claude_code",
                        "baseline", RunStatus.SUCCESS, null, "serving", "modal", "tpot_ms_mean", 4.76,
                        "{\"path\":\"archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/299ebb62/"
                                + "benchmark_result.json\",\"root_path\":\"2026-01/omniperf_results_3way_claude_code/results/"
                                + "modal/299ebb62/benchmark_result.json\"}"),
                run("legacy-b2", null, RunKind.LEGACY, "61b8cea3b42feab021d506e9143551de18f9165c", "claude_code",
                        "baseline", RunStatus.FAILED, new RunRecord.FailureInfo("BAD_PERF_COMMAND",
                                "perf command lacks --dataset-name",
                                "ValueError: dataset_path must be provided for loading data.\n"
                                        + "File \"benchmark_dataset.py\", line 388, in load_data, \"quoted\"", false),
                        "serving", "native_runner", null, null,
                        "{\"root_path\":\"omniperf_results_full/vllm/61b8cea3/benchmark_result.json\"}"),
                run("legacy-b3", null, RunKind.LEGACY, "61b8cea3b42feab021d506e9143551de18f9165c", "claude_code",
                        "agent:claude_code", RunStatus.NOT_RUN, null, "serving", "native_runner", null, null,
                        "{\"root_path\":\"omniperf_results_full/vllm/61b8cea3/benchmark_result.json\","
                                + "\"not_run_reason\":\"not run: the baseline arm failed first (status baseline_failed: "
                                + "Baseline produced no metrics)\"}"),
                run("s1/t1/baseline/r0", "s1", RunKind.MEASURED, "0123456789abcdef0123456789abcdef01234567", null,
                        "baseline", RunStatus.SUCCESS, null, "latency", "native", "latency_ms_avg", 1234.5,
                        "{\"job\":\"t1/baseline/r0\"}"),
                run("hf:abc:human", null, RunKind.HF_IMPORT, "99abb8b650c66664cdc84d815b7f306f33bd9881", "claude_code",
                        "human", RunStatus.SUCCESS, null, "latency", "hf_import", "latency_ms_avg", 2179.971499000385,
                        "{\"hf_file\":\"updated_rows_only.csv\",\"hf_row_number\":11}")));
        // an attempt of a progress log that a later attempt superseded: listed with its time and superseded=true
        RunRecord attempt = run("legacy-p1", null, RunKind.LEGACY_SUPERSEDED, "6dd94dbe94c1820a1e224cba65efcf0befa97995",
                "claude_code", "attempt", RunStatus.FAILED, new RunRecord.FailureInfo("HARNESS_ERROR",
                        "the harness failed before any arm started", "Lookup failed for Function 'x'", false), "serving",
                "modal", null, null, "{\"root_path\":\"2026-01/omniperf_results_3way_claude_code/logs/modal/"
                        + "hero_3way_20260101_055459_progress.json\"}");
        store.putRun(RunRecord.builder(attempt.runId()).kind(attempt.kind())
                .commit(attempt.commit(), attempt.commitShort()).agent(attempt.agent()).arm(attempt.arm())
                .status(attempt.status()).failure(attempt.failure()).mode(attempt.mode()).pipeline(attempt.pipeline())
                .startedAt(Instant.parse("2026-01-01T05:54:59Z")).details(attempt.details()).build());
    }

    private static String write(Store store, RunFilter filter, RunListing.Format format) {
        StringWriter s = new StringWriter();
        RunListing.write(sink -> store.forEachRun(filter, sink), format, new PrintWriter(s));
        return s.toString();
    }

    @Test
    void csvMatchesTheGoldenFile(@TempDir Path dir) throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            fill(store);
            String csv = write(store, RunFilter.all(), RunListing.Format.CSV);
            assertThat(csv).startsWith("run_id,source,commit,agent,arm,pipeline,mode,status,category,evidence,metric,"
                    + "value,unit,superseded,attempt_at\n");
            // evidence on one line, quoted where it holds a comma or a quote
            assertThat(csv.lines()).hasSize(7);
            assertThat(csv).contains(",true,2026-01-01T05:54:59Z\n").contains(",1234.5,ms,false,\n");
            assertThat(csv).contains("\"ValueError: dataset_path must be provided for loading data. ⏎ File "
                    + "\"\"benchmark_dataset.py\"\", line 388, in load_data, \"\"quoted\"\"\"");
            assertThat(csv).contains(",s1/t1/baseline/r0,").contains(",updated_rows_only.csv#row 11,")
                    .contains(",not_run,,not run: the baseline arm failed first");
            if (Boolean.getBoolean("isobench.golden.rewrite")) {
                Files.writeString(GOLDEN, csv, StandardCharsets.UTF_8);
            }
            assertThat(GOLDEN).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
            assertThat(csv).isEqualTo(Files.readString(GOLDEN, StandardCharsets.UTF_8));
        }
    }

    /**
     * Issue 27, point 9: cells that a spreadsheet would run as a formula (legacy folder names such as
     * {@code =HYPERLINK(…)}, {@code =2+5+cmd|…}, {@code @SUM(…)}, {@code +…}, {@code -…}, a leading tab or carriage
     * return) get a leading {@code '} in {@code runs --format csv}; a plain number keeps its sign and stays a number.
     */
    @Test
    void csvCellsNeverStartAFormula(@TempDir Path dir) throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            store.putRuns(List.of(run("=HYPERLINK(\"http://127.0.0.1/x\",\"click\")", null, RunKind.LEGACY,
                    "299ebb62b269ce167eb1c71b5e39a1dc1f65ce1c", "=2+5+cmd|' /C calc'!A0", "baseline",
                    RunStatus.FAILED, new RunRecord.FailureInfo("UNKNOWN", "@SUM(1+1)*cmd|' /C calc'!A0",
                            "-2+3+cmd|x", false), "serving", "modal", "tpot_ms_mean", -1.5, "{}")));
            String csv = write(store, RunFilter.all(), RunListing.Format.CSV);
            String row = csv.lines().skip(1).findFirst().orElseThrow();
            assertThat(row).startsWith("\"'=HYPERLINK(\"\"http://127.0.0.1/x\"\",\"\"click\"\")\",")
                    .contains(",'=2+5+cmd|' /c calc'!a0,").contains(",'-2+3+cmd|x,").contains(",tpot_ms_mean,-1.5,");
            for (String cell : List.of("=1", "+1+1", "-x", "@a", "\tx", "\rx")) {
                assertThat(TableFormat.csvCell(cell)).as(cell).matches("(?s)\"?'.*");
            }
            for (String number : List.of("-1.5", "+3", "-2e-3", "-0", ".5")) {
                assertThat(TableFormat.csvCell(number)).isEqualTo(number);
            }
            assertThat(TableFormat.csvCell("a=1")).isEqualTo("a=1");
        }
    }

    @Test
    void filtersAndTheOtherFormats(@TempDir Path dir) throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            fill(store);
            // an 8-character id and the full hash name the same commit
            assertThat(write(store, RunFilter.runs().ofCommit("61b8cea3"),
                    RunListing.Format.CSV).lines()).hasSize(3);
            assertThat(write(store, RunFilter.runs()
                    .ofCommit("61b8cea3b42feab021d506e9143551de18f9165c"), RunListing.Format.CSV).lines()).hasSize(3);
            assertThat(write(store, RunFilter.runs().ofCommit("61b8").withStatus(RunStatus.NOT_RUN),
                    RunListing.Format.CSV).lines()).hasSize(2);
            assertThat(write(store, RunFilter.runs().ofAgent("claude-code").inCategory("BAD_PERF_COMMAND"),
                    RunListing.Format.CSV).lines()).hasSize(2);
            JsonNode json = new ObjectMapper().readTree(write(store, RunFilter.all(), RunListing.Format.JSON));
            assertThat(json).hasSize(6);
            assertThat(json.get(0).fieldNames()).toIterable().containsExactlyElementsOf(RunListing.COLUMNS);
            JsonNode measured = json.findParents("run_id").stream()
                    .filter(n -> n.get("run_id").asText().equals("s1/t1/baseline/r0")).findFirst().orElseThrow();
            assertThat(measured.get("value").isNumber()).isTrue();
            assertThat(measured.get("category").isNull()).isTrue();
            String table = write(store, RunFilter.all(), RunListing.Format.TABLE);
            assertThat(table.lines().findFirst().orElseThrow()).startsWith("run_id").contains("evidence");
            assertThat(table.lines()).hasSize(7);
            // the default of `isobench runs`: final attempts only
            assertThat(write(store, new RunFilter(null, EnumSet.complementOf(EnumSet.of(
                    RunKind.LEGACY_SUPERSEDED)), null, false), RunListing.Format.CSV).lines()).hasSize(6);
        }
    }
}
