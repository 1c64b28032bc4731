package io.isobench.export;

import io.isobench.Arm;
import io.isobench.SharedData;
import io.isobench.legacy.LegacyImporter;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For the real ISO-Bench sample, every exported legacy row says what {@code isobench table} says for the same commit
 * and agent (status, comparability, pipeline, mode, metric, the three values, deltas, issues), on both export paths.
 */
class HfLegacyConsistencyTest {

    @TempDir
    Path tmp;

    @Test
    void exportedLegacyRowsEqualTheThreeWayTable() throws Exception {
        try (Store store = TestStores.open(tmp, "legacy")) {
            new LegacyImporter(store, null, null).importTree(SharedData.isobenchData());
            TreeSet<String> agents = new TreeSet<>();
            for (RunRecord r : TestStores.runs(store)) {
                if (r.kind() == RunRecord.RunKind.LEGACY && r.agent() != null) {
                    agents.add(Arm.normalizeAgent(r.agent()));
                }
            }
            Map<String, ThreeWayRow> table = new HashMap<>();
            for (String agent : agents) {
                ThreeWayTable.rows(store, agent, row -> table.put(row.commit() + "/" + agent, row));
            }
            assertThat(table).hasSizeGreaterThan(20);
            for (boolean sql : new boolean[] {true, false}) {
                Path out = tmp.resolve(sql ? "sql" : "stream");
                HfExporter.export(store, out, sql);
                List<String> seen = new ArrayList<>();
                try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                     Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT commit_short, isobench_agent, isobench_status,"
                             + " isobench_comparability, isobench_pipeline, isobench_mode, isobench_primary_metric,"
                             + " isobench_baseline_value, isobench_human_value, isobench_agent_value,"
                             + " isobench_human_delta_pct, isobench_agent_delta_pct, isobench_agent_vs_human_pct,"
                             + " isobench_issues, isobench_data_source FROM read_parquet('"
                             + out.resolve(HfExporter.PARQUET) + "')")) {
                    while (rs.next()) {
                        String key = rs.getString(1) + "/" + rs.getString(2);
                        assertThat(rs.getString(15)).as(key).isEqualTo("legacy");
                        ThreeWayRow t = table.get(key);
                        assertThat(t).as("table row for exported " + key + " (" + (sql ? "sql" : "streaming") + ")").isNotNull();
                        String where = key + " (" + (sql ? "sql" : "streaming") + " path)";
                        assertThat(rs.getString(3)).as("status " + where).isEqualTo(t.status());
                        assertThat(rs.getString(4)).as("comparability " + where).isEqualTo(t.comparability());
                        assertThat(rs.getString(5)).as("pipeline " + where).isEqualTo(t.pipeline());
                        assertThat(rs.getString(6)).as("mode " + where).isEqualTo(t.mode());
                        assertThat(rs.getString(7)).as("metric " + where).isEqualTo(t.metric());
                        assertThat(value(rs, 8)).as("baseline " + where).isEqualTo(parse(t.baselineValue()));
                        assertThat(value(rs, 9)).as("human " + where).isEqualTo(parse(t.humanValue()));
                        assertThat(value(rs, 10)).as("agent " + where).isEqualTo(parse(t.agentValue()));
                        assertThat(value(rs, 11)).as("human delta " + where).isEqualTo(t.humanDeltaPct());
                        assertThat(value(rs, 12)).as("agent delta " + where).isEqualTo(t.agentDeltaPct());
                        assertThat(value(rs, 13)).as("agent vs human " + where).isEqualTo(t.agentVsHumanPct());
                        assertThat(rs.getString(14)).as("issues " + where).isEqualTo(t.issues());
                        seen.add(key);
                    }
                }
                assertThat(seen).as("one exported row per table row").doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(table.keySet());
            }
        }
    }

    private static Double value(ResultSet rs, int i) throws SQLException {
        double d = rs.getDouble(i);
        return rs.wasNull() ? null : d;
    }

    private static Double parse(String s) {
        return s == null ? null : Double.valueOf(s);
    }
}
