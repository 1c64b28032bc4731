package io.isobench.export;

import io.isobench.SharedData;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.SyntheticStore;
import io.isobench.store.TaskRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static io.isobench.export.HfComputedRowsTest.run;
import static org.assertj.core.api.Assertions.assertThat;

/** The SQL path (inside a DuckDB store) and the streaming path (RowBuilder) write the same table. */
class HfSqlPathTest {

    @TempDir
    Path tmp;

    /**
     * Without imported HF rows the SQL path computes the rows in two halves at once and writes parquet and the two JSONL
     * halves at once: the same rows as the streaming path, one order, parquet and JSONL row for row.
     */
    @Test
    void jsonlIsTheParquetRowForRowInTheSameOrder() throws Exception {
        try (Store store = TestStores.open(tmp, "computed")) {
            SyntheticStore.generate(store, 251, 2, 11);
            HfExporter.Summary s = HfExporter.export(store, tmp.resolve("out"), true);
            assertThat(s.importedRows()).isZero();
            HfExporter.Summary streamed = HfExporter.export(store, tmp.resolve("java"), false);
            assertThat(s.rows()).isEqualTo(streamed.rows()).isGreaterThan(200);
            assertSameRows(tmp.resolve("out/data/train-00000-of-00001.parquet"),
                    tmp.resolve("java/data/train-00000-of-00001.parquet"));
            Path parquet = tmp.resolve("out/data/train-00000-of-00001.parquet");
            Path jsonl = tmp.resolve("out/data/train-00000-of-00001.jsonl");
            assertThat(jsonl.resolveSibling(jsonl.getFileName() + ".part2")).doesNotExist();
            List<String> lines = Files.readAllLines(jsonl);
            assertThat(lines).hasSize((int) s.rows()).allMatch(l -> l.startsWith("{") && l.endsWith("}"));
            try (Connection conn = DriverManager.getConnection("jdbc:duckdb:"); Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT commit_short, agent_name, baseline_tpot_mean FROM read_parquet('"
                         + parquet + "')")) {
                int i = 0;
                while (rs.next()) {
                    var row = HfMapping.JSON.readTree(lines.get(i++));
                    assertThat(row.get("commit_short").asText()).as("row %d", i).isEqualTo(rs.getString(1));
                    assertThat(row.get("agent_name").asText()).as("row %d", i).isEqualTo(rs.getString(2));
                    double b = rs.getDouble(3);
                    assertThat(rs.wasNull() ? row.get("baseline_tpot_mean").isNull()
                            : row.get("baseline_tpot_mean").asDouble() == b).as("row %d", i).isTrue();
                }
                assertThat(i).isEqualTo(lines.size());
            }
        }
    }

    /**
     * The SQL path groups by a 64-bit hash of (commit, agent, pipeline, arm). Forcing every key onto three hash values
     * must make it re-number the keys and compute exactly the rows it computes without collisions.
     */
    @Test
    void collidingGroupHashesAreRenumberedAndChangeNothing() throws Exception {
        try (Store store = TestStores.open(tmp, "collide")) {
            SyntheticStore.generate(store, 120, 3, 5);
            try (Connection c = SqlRows.connect(store); Statement st = c.createStatement()) {
                assertThat(c).as("a DuckDB file store is shared with the SQL path").isNotNull();
                st.execute(SqlRows.LG_DDL);
                for (String forced : new String[] {null, "gid % 3"}) {
                    String rows = forced == null ? "x_plain" : "x_forced";
                    List<String> steps = ExportSql.statements(false, rows);
                    for (String step : steps) {
                        if (step.equals(ExportSql.UNIQUE_GID)) {
                            if (forced != null) {
                                st.execute("UPDATE x_mine SET gid = " + forced);
                                st.execute("UPDATE x_arm SET gid = " + forced);
                            }
                            assertThat(SqlRows.uniqueGid(st)).as("re-numbered").isEqualTo(forced != null);
                            try (ResultSet rs = st.executeQuery("SELECT count(*) - count(DISTINCT gid) FROM x_arm")) {
                                rs.next();
                                assertThat(rs.getLong(1)).isZero();
                            }
                        } else {
                            st.execute(step.replace("TABLE " + rows + " AS", "TEMP TABLE " + rows + " AS"));
                        }
                    }
                }
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM x_plain")) {
                    rs.next();
                    assertThat(rs.getLong(1)).as("native rows of the synthetic store").isGreaterThan(50);
                }
                for (String q : List.of("SELECT * FROM x_plain EXCEPT ALL SELECT * FROM x_forced",
                        "SELECT * FROM x_forced EXCEPT ALL SELECT * FROM x_plain")) {
                    try (ResultSet rs = st.executeQuery("SELECT count(*) FROM (" + q + ")")) {
                        rs.next();
                        assertThat(rs.getLong(1)).as(q).isZero();
                    }
                }
            }
        }
    }

    @Test
    void sqlAndStreamingPathsWriteTheSameRows() throws Exception {
        try (Store store = TestStores.open(tmp, "mixed")) {
            SyntheticStore.generate(store, 300, 3, 7);
            HfImporter.importFile(store, SharedData.require(HfRoundTripTest.SAMPLE_CSV));
            String c = "e206b5433109d298e53451015465b2bf8f03ef0a";
            String[] arms = {"baseline", "human", "agent:claude_code"};
            for (int i = 0; i < 3; i++) {
                store.putRun(run("L" + i, RunRecord.RunKind.LEGACY, c, "claude-code", arms[i], 0, RunRecord.RunStatus.SUCCESS,
                        "serving", "modal", null, i == 2 ? "other/model" : "meta-llama/Llama-3.1-8B-Instruct", null,
                        List.of(Metric.of("tpot_ms_mean", 20.0 + i), Metric.of("ttft_ms_p99", 100.0 * i)),
                        "{\"subject\":\"s\",\"agent_model\":\"m1\"}"));
                store.putRun(run("D" + i, RunRecord.RunKind.LEGACY, c, "claude-code", arms[i], 0, RunRecord.RunStatus.SUCCESS,
                        "serving", "separate", null, null, null, List.of(Metric.of("tpot_ms_mean", 30.0 + i)), null));
            }
            String c2 = "cccccccc11112222333344445555666677778888";
            store.putTask(TaskRecord.builder("cccccccc").repo("vllm").commit(c2, "p").subject("subj")
                    .perfCommand("python benchmarks/benchmark_latency.py").model("mm").gpus("H100:2", 2).build());
            for (int r = 0; r < 4; r++) {
                store.putRun(run("Nb" + r, RunRecord.RunKind.MEASURED, c2, null, "baseline", r, RunRecord.RunStatus.SUCCESS,
                        "latency", "native", "s9", "m", null, List.of(Metric.of("latency_ms_avg", 100.0 + r)), null));
                store.putRun(run("Nh" + r, RunRecord.RunKind.MEASURED, c2, null, "human", r,
                        r == 3 ? RunRecord.RunStatus.FAILED : RunRecord.RunStatus.SUCCESS, "latency", "native", "s9", "m",
                        r == 3 ? new RunRecord.FailureInfo("TIMEOUT", "t", "e", true) : null,
                        r == 3 ? List.of() : List.of(Metric.of("latency_ms_avg", 90.0 + r)), null));
                for (String agent : List.of("agent:codex", "agent:trae")) {
                    store.putRun(run("N" + agent + r, RunRecord.RunKind.MEASURED, c2, null, agent, r, RunRecord.RunStatus.FAILED,
                            "latency", "native", "s9", "m", new RunRecord.FailureInfo(agent.endsWith("trae") ? "EMPTY_PATCH" : "GPU_OOM", "d", "e", false),
                            List.of(), null));
                }
            }
            // rounds beyond 63 (the SQL path counts rounds 0-63 as a bit set, the others exactly), one of them twice
            String c3 = "dddddddd11112222333344445555666677778888";
            int[] rounds = {0, 70, 100, 70};
            for (int k = 0; k < rounds.length; k++) {
                for (String arm : List.of("baseline", "human", "agent:codex")) {
                    store.putRun(run("W" + arm + k, RunRecord.RunKind.MEASURED, c3, null, arm, rounds[k],
                            RunRecord.RunStatus.SUCCESS, "latency", "native", "s10", "m", null,
                            List.of(Metric.of("latency_ms_avg", 50.0 + k + arm.length())), null));
                }
            }
            HfExporter.Summary sql = HfExporter.export(store, tmp.resolve("sql"), true);
            HfExporter.Summary java = HfExporter.export(store, tmp.resolve("java"), false);
            assertThat(sql.rows()).isEqualTo(java.rows()).isGreaterThan(300);
            assertThat(sql.importedRows()).isEqualTo(11);
            assertSameRows(tmp.resolve("sql/data/train-00000-of-00001.parquet"),
                    tmp.resolve("java/data/train-00000-of-00001.parquet"));
            String a = "read_parquet('" + tmp.resolve("sql/data/train-00000-of-00001.parquet") + "')";
            try (Connection conn = DriverManager.getConnection("jdbc:duckdb:"); Statement st = conn.createStatement()) {
                try (ResultSet rs = st.executeQuery("SELECT isobench_pipeline, isobench_comparability, agent_name, isobench_agent_model"
                        + " FROM " + a + " WHERE commit_short = 'e206b543'")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("modal");
                    assertThat(rs.getString(2)).isEqualTo("same_run_with_issues");
                    assertThat(rs.getString(3)).isEqualTo("claude-code");
                    assertThat(rs.getString(4)).isEqualTo("sonnet-4.5");
                    assertThat(rs.next()).isFalse();
                }
                try (ResultSet rs = st.executeQuery("SELECT isobench_n_rounds FROM " + a + " WHERE commit_short = 'dddddddd'")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).as("distinct rounds 0, 70, 100").isEqualTo(3);
                }
                try (ResultSet rs = st.executeQuery("SELECT agent_name, has_agent_patch, isobench_failure_agent, human_latency_avg,"
                        + " isobench_n_rounds, gpu_config FROM " + a + " WHERE commit_short = 'cccccccc' ORDER BY agent_name")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("codex");
                    assertThat(rs.getBoolean(2)).isTrue();
                    assertThat(rs.getString(3)).isEqualTo("GPU_OOM");
                    assertThat(rs.getDouble(4)).isEqualTo(91.0);
                    assertThat(rs.getInt(5)).isEqualTo(4);
                    assertThat(rs.getString(6)).isEqualTo("H100:2");
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("trae");
                    assertThat(rs.getBoolean(2)).isFalse();
                }
            }
        }
    }

    /** Both parquet files hold the same rows (as multisets), in (commit, agent) order. */
    static void assertSameRows(Path first, Path second) throws Exception {
        String a = "read_parquet('" + first + "')";
        String b = "read_parquet('" + second + "')";
        try (Connection conn = DriverManager.getConnection("jdbc:duckdb:"); Statement st = conn.createStatement()) {
            for (String[] pair : new String[][] {{a, b}, {b, a}}) {
                try (ResultSet rs = st.executeQuery("SELECT * FROM " + pair[0] + " EXCEPT ALL SELECT * FROM " + pair[1]
                        + " ORDER BY commit_short LIMIT 1")) {
                    StringBuilder diff = new StringBuilder();
                    while (rs.next()) {
                        diff.append(rs.getString("commit_short")).append('/').append(rs.getString("agent_name")).append(' ');
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            diff.append(rs.getMetaData().getColumnName(i)).append('=').append(rs.getString(i)).append(", ");
                        }
                        diff.append('\n');
                    }
                    assertThat(diff.toString()).as("rows only in " + pair[0]).isEmpty();
                }
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM (SELECT commit_short < lag(commit_short) OVER ()"
                        + " OR (commit_short = lag(commit_short) OVER () AND isobench_agent < lag(isobench_agent) OVER ())"
                        + " AS back FROM " + pair[0] + ") WHERE back")) {
                    rs.next();
                    assertThat(rs.getLong(1)).as("rows out of (commit, agent) order in " + pair[0]).isZero();
                }
            }
        }
    }
}
