package io.isobench.export;

import io.isobench.SharedData;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Rows computed from legacy and native runs (not imported from an HF table). */
class HfComputedRowsTest {

    @TempDir
    Path tmp;

    static RunRecord run(String id, RunRecord.RunKind kind, String commit, String agent, String arm, int round,
                         RunRecord.RunStatus status, String mode, String pipeline, String session, String model,
                         RunRecord.FailureInfo failure, List<Metric> metrics, String extra) {
        String primary = mode == null ? null : switch (mode) {
            case "serving" -> "tpot_ms_mean";
            case "latency" -> "latency_ms_avg";
            case "throughput" -> "total_throughput_tok_s";
            default -> "output_throughput_tok_s";
        };
        Double pv = metrics.stream().filter(m -> m.name().equals(primary)).map(Metric::value).findFirst().orElse(null);
        return RunRecord.builder(id)
                .session(session)
                .kind(kind)
                .commit(commit, commit.substring(0, 8))
                .agent(agent)
                .armLabel(arm)
                .round(round)
                .status(status)
                .failure(failure)
                .modeLabel(mode)
                .model(model)
                .pipelineLabel(pipeline)
                .primary(primary, pv, pv == null ? null : "raw")
                .startedAt(Instant.parse("2026-01-14T10:00:00Z"))
                .detailsJson(extra)
                .metrics(metrics)
                .build();
    }

    @Test
    void legacyAndNativeRunsBecomeOneRowPerCommitAndAgent() throws Exception {
        Store store = TestStores.open(tmp, "s");
        String c1 = "aaaaaaaa11112222333344445555666677778888";
        // legacy tree claude_code, modal pipeline (one invocation), serving
        double[][] v = {{20.0, 100.0, 3000.0}, {18.0, 90.0, 3300.0}, {21.0, 110.0, 2900.0}};
        String[] arms = {"baseline", "human", "agent:claude_code"};
        for (int i = 0; i < 3; i++) {
            store.putRun(run("L" + i, RunRecord.RunKind.LEGACY, c1, "claude_code", arms[i], 0, RunRecord.RunStatus.SUCCESS,
                    "serving", "modal", null, "meta-llama/Llama-3.1-8B-Instruct", null,
                    List.of(Metric.of("tpot_ms_mean", v[i][0]), Metric.of("ttft_ms_mean", v[i][1]),
                            Metric.of("output_throughput_tok_s", v[i][2])),
                    "{\"subject\":\"Speed up X\",\"perf_command\":\"python benchmarks/benchmark_serving.py --model m\"}"));
        }
        // a superseded attempt is never used
        store.putRun(run("S0", RunRecord.RunKind.LEGACY_SUPERSEDED, c1, "claude_code", "baseline", 0,
                RunRecord.RunStatus.SUCCESS, "serving", "modal", null, null, null, List.of(Metric.of("tpot_ms_mean", 99.0)), null));
        store.putTask(TaskRecord.builder("aaaaaaaa").repo("vllm-project/vllm")
                .commit(c1, "ffffffff00001111222233334444555566667777").subject("Speed up X").gpus("H100:1", 1)
                .build());

        // native session with 5 rounds, throughput mode, agent codex failing with an OOM
        String c2 = "bbbbbbbb11112222333344445555666677778888";
        for (int r = 0; r < 5; r++) {
            store.putRun(run("Nb" + r, RunRecord.RunKind.MEASURED, c2, null, "baseline", r, RunRecord.RunStatus.SUCCESS,
                    "throughput", "native", "s1", "m", null, List.of(Metric.of("total_throughput_tok_s", 1000.0 + r)), null));
            store.putRun(run("Nh" + r, RunRecord.RunKind.MEASURED, c2, null, "human", r, RunRecord.RunStatus.SUCCESS,
                    "throughput", "native", "s1", "m", null, List.of(Metric.of("total_throughput_tok_s", 1200.0 + r)), null));
            store.putRun(run("Na" + r, RunRecord.RunKind.MEASURED, c2, null, "agent:codex", r, RunRecord.RunStatus.FAILED,
                    "throughput", "native", "s1", "m", new RunRecord.FailureInfo("GPU_OOM", "CUDA out of memory", "e", false),
                    List.of(), null));
        }

        HfExporter.Summary s = HfExporter.export(store, tmp.resolve("out"));
        assertThat(s.rows()).isEqualTo(2);
        assertThat(s.computedRows()).isEqualTo(2);

        Map<String, Map<String, Object>> rows = read(tmp.resolve("out/data/train-00000-of-00001.parquet"));
        Map<String, Object> a = rows.get("aaaaaaaa");
        assertThat(a.get("commit_hash")).isEqualTo(c1);
        assertThat(a.get("repo")).isEqualTo("vllm-project/vllm");
        assertThat(a.get("parent_commit")).isEqualTo("ffffffff00001111222233334444555566667777");
        assertThat(a.get("gpu_config")).isEqualTo("H100:1");
        assertThat(a.get("commit_subject")).isEqualTo("Speed up X");
        assertThat(a.get("benchmark_mode")).isEqualTo("serving");
        assertThat(a.get("agent_name")).isEqualTo("claude_code");
        assertThat(a.get("benchmark_date")).isEqualTo("2026-01-14");
        assertThat(a.get("baseline_tpot_mean")).isEqualTo(20.0);
        assertThat(a.get("agent_throughput")).isEqualTo(2900.0);
        assertThat((Double) a.get("human_improvement_tpot_mean")).isCloseTo(10.0, within(1e-9));
        assertThat((Double) a.get("agent_improvement_throughput")).isCloseTo(-100.0 / 30.0, within(1e-9));
        assertThat(a.get("data_source")).isEqualTo("modal");
        assertThat(a.get("isobench_pipeline")).isEqualTo("modal");
        assertThat(a.get("isobench_data_source")).isEqualTo("legacy");
        assertThat(a.get("isobench_comparability")).isEqualTo("same_run");
        assertThat(a.get("isobench_status")).isEqualTo("complete_3way_same_run");
        assertThat(a.get("isobench_n_rounds")).isEqualTo(1);
        // single runs: win / tie / loss in their own columns, never a verdict of the rounds' vocabulary
        assertThat(a.get("isobench_legacy_human_result")).isEqualTo("win");   // +10 %
        assertThat(a.get("isobench_legacy_agent_result")).isEqualTo("tie");   // -5 % is inside the band
        assertThat(a.get("isobench_legacy_band_pct")).isEqualTo(5.0);
        assertThat(a.get("isobench_human_verdict")).isNull();
        assertThat(a.get("isobench_agent_verdict")).isNull();
        assertThat(a.get("isobench_verdict_rule")).isEqualTo("single-run legacy data, ±5 % band");

        Map<String, Object> b = rows.get("bbbbbbbb");
        assertThat(b.get("benchmark_mode")).isEqualTo("standalone");
        assertThat(b.get("agent_name")).isEqualTo("codex");
        assertThat(b.get("isobench_mode")).isEqualTo("throughput");
        assertThat(b.get("baseline_throughput")).isEqualTo(1002.0); // median of 1000..1004
        assertThat(b.get("human_throughput")).isEqualTo(1202.0);
        assertThat(b.get("agent_throughput")).isNull();
        assertThat(b.get("isobench_n_rounds")).isEqualTo(5);
        assertThat(b.get("isobench_status_agent")).isEqualTo("failed");
        assertThat(b.get("isobench_failure_agent")).isEqualTo("GPU_OOM");
        assertThat(b.get("isobench_status_baseline")).isEqualTo("success");
        assertThat(b.get("isobench_comparability")).isEqualTo("same_run");
        assertThat(b.get("isobench_status")).isEqualTo("incomplete");
        assertThat(b.get("isobench_agent_verdict")).isEqualTo("failed");
    }

    @Test
    void anImportedRowKeepsItsValuesAndTakesIsobenchColumnsFromLegacyRunsOfTheSameAgent() throws Exception {
        Store store = TestStores.open(tmp, "s");
        HfImporter.importFile(store, SharedData.require(HfRoundTripTest.SAMPLE_CSV));
        String c = "e206b5433109d298e53451015465b2bf8f03ef0a";
        String[] arms = {"baseline", "human", "agent:claude_code"};
        double[] tpot = {22.04, 22.76, 30.88};
        for (int i = 0; i < 3; i++) {
            store.putRun(run("L" + i, RunRecord.RunKind.LEGACY, c, "claude-code", arms[i], 0, RunRecord.RunStatus.SUCCESS,
                    "serving", "modal", null, "meta-llama/Llama-3.1-8B-Instruct", null,
                    List.of(Metric.of("tpot_ms_mean", tpot[i])), null));
        }
        HfExporter.Summary s = HfExporter.export(store, tmp.resolve("out"));
        assertThat(s.rows()).isEqualTo(11);
        Map<String, Object> row = read(tmp.resolve("out/data/train-00000-of-00001.parquet")).get("e206b543");
        assertThat(row.get("agent_name")).isEqualTo("claude-code");          // verbatim source label
        assertThat(row.get("data_source")).isEqualTo("merged");
        assertThat(row.get("isobench_agent")).isEqualTo("claude_code");
        assertThat(row.get("isobench_agent_model")).isEqualTo("sonnet-4.5");
        assertThat(row.get("isobench_pipeline")).isEqualTo("modal");
        assertThat(row.get("isobench_data_source")).isEqualTo("legacy");
        assertThat(row.get("isobench_status")).isEqualTo("complete_3way_same_run");
        assertThat(row.get("isobench_baseline_value")).isEqualTo(22.04);
    }

    static Map<String, Map<String, Object>> read(Path parquet) throws Exception {
        Map<String, Map<String, Object>> out = new HashMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM read_parquet('" + parquet + "')")) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                Map<String, Object> row = new HashMap<>();
                for (int i = 1; i <= n; i++) {
                    row.put(rs.getMetaData().getColumnName(i), rs.getObject(i));
                }
                out.put(rs.getString("commit_short"), row);
            }
        }
        return out;
    }
}
