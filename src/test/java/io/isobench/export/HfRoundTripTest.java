package io.isobench.export;

import io.isobench.SharedData;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Import {@code hf_export/updated_rows_only.csv}, export it, read the parquet back with DuckDB: nothing lost. */
class HfRoundTripTest {

    static final String SAMPLE_CSV =
            "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/hf_export/updated_rows_only.csv";

    @TempDir
    Path tmp;

    @Test
    void csvImportThenExportKeepsEvery76ColumnValue() throws Exception {
        Path csv = SharedData.require(SAMPLE_CSV);
        Store store = TestStores.open(tmp, "s");
        HfImporter.Summary s = HfImporter.importFile(store, csv);
        assertThat(s.rows()).isEqualTo(11);
        assertThat(s.runs()).isEqualTo(33);
        assertThat(TestStores.runs(store)).hasSize(33).allMatch(r -> r.kind() == RunRecord.RunKind.HF_IMPORT);

        HfExporter.Summary e = HfExporter.export(store, tmp.resolve("out"));
        assertThat(e.rows()).isEqualTo(11);
        assertThat(e.importedRows()).isEqualTo(11);
        Path parquet = tmp.resolve("out/data/train-00000-of-00001.parquet");
        Path jsonl = tmp.resolve("out/data/train-00000-of-00001.jsonl");
        assertThat(parquet).exists();
        assertThat(jsonl).exists();
        assertThat(tmp.resolve("out/README.md")).exists();

        List<Map<String, String>> source = readCsvIndependently(csv);
        assertThat(source).hasSize(11);
        Map<String, Map<String, String>> sourceByCommit = new HashMap<>();
        for (Map<String, String> row : source) {
            sourceByCommit.put(row.get("commit_hash"), row);
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM read_parquet('" + parquet + "')")) {
            int n = 0;
            while (rs.next()) {
                n++;
                Map<String, String> src = sourceByCommit.get(rs.getString("commit_hash"));
                assertThat(src).as("row for %s", rs.getString("commit_hash")).isNotNull();
                for (HfSchema.Column col : HfSchema.V5) {
                    String expected = src.get(col.name());
                    Object actual = rs.getObject(col.name());
                    String where = rs.getString("commit_short") + "." + col.name();
                    if (expected == null || expected.isEmpty()) {
                        assertThat(actual).as(where).isNull();
                        continue;
                    }
                    switch (col.type()) {
                        case STRING -> assertThat(actual).as(where).isEqualTo(expected);
                        case FLOAT64 -> assertThat((Double) actual).as(where).isEqualTo(Double.parseDouble(expected));
                        case BOOL -> assertThat(actual).as(where).isEqualTo(Boolean.parseBoolean(expected.toLowerCase()));
                        case LIST_STRING -> assertThat(pyRepr((Array) actual)).as(where).isEqualTo(expected);
                        default -> throw new AssertionError(col);
                    }
                }
            }
            assertThat(n).isEqualTo(11);
        }
        // the multi-line raw text survived whole
        String raw = sourceByCommit.get("22d33baca2c0c639cfd45c48e99803e56c3efa74").get("baseline_raw");
        assertThat(raw).contains("\n").contains("unrecognized arguments: --backend vllm");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT baseline_raw FROM read_parquet('" + parquet + "') WHERE commit_short = '22d33bac'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(raw);
        }
    }

    @Test
    void exportedTableHasTheCardsColumnsThenIsobenchColumnsInParquetAndJsonl() throws Exception {
        Store store = TestStores.open(tmp, "s");
        HfImporter.importFile(store, SharedData.require(SAMPLE_CSV));
        HfExporter.export(store, tmp.resolve("out"));
        List<String[]> card = HfSchemaTest.cardFeatures();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
            List<String[]> cols = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("DESCRIBE SELECT * FROM read_parquet('" + tmp.resolve("out/data/train-00000-of-00001.parquet") + "')")) {
                while (rs.next()) {
                    cols.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
            assertThat(cols).hasSize(HfSchema.EXPORT.size());
            for (int i = 0; i < 76; i++) {
                assertThat(cols.get(i)[0]).as("column %d", i).isEqualTo(card.get(i)[0]);
                String expected = switch (card.get(i)[1]) {
                    case "string" -> "VARCHAR";
                    case "list<string>" -> "VARCHAR[]";
                    case "bool" -> "BOOLEAN";
                    case "float64" -> "DOUBLE";
                    default -> throw new AssertionError(card.get(i)[1]);
                };
                assertThat(cols.get(i)[1]).as("type of %s", cols.get(i)[0]).isEqualTo(expected);
            }
            for (int i = 76; i < cols.size(); i++) {
                assertThat(cols.get(i)[0]).startsWith("isobench_");
            }
            // the parquet's own schema: physical/logical types as the HF card declares them
            Map<String, String> logical = new HashMap<>();
            try (ResultSet rs = st.executeQuery("SELECT name, type, converted_type FROM parquet_schema('"
                    + tmp.resolve("out/data/train-00000-of-00001.parquet") + "')")) {
                while (rs.next()) {
                    logical.putIfAbsent(rs.getString(1), rs.getString(2) + "/" + rs.getString(3));
                }
            }
            assertThat(logical.get("commit_hash")).isEqualTo("BYTE_ARRAY/UTF8");
            assertThat(logical.get("baseline_ttft_mean")).startsWith("DOUBLE");
            assertThat(logical.get("has_agent_patch")).startsWith("BOOLEAN");
            assertThat(logical.get("files_changed")).endsWith("LIST");

            // JSONL twin: same rows, same keys in the same order
            List<String> lines = Files.readAllLines(tmp.resolve("out/data/train-00000-of-00001.jsonl"));
            assertThat(lines).hasSize(11);
            var node = HfMapping.JSON.readTree(lines.get(0));
            List<String> keys = new ArrayList<>();
            node.fieldNames().forEachRemaining(keys::add);
            assertThat(keys).containsExactlyElementsOf(HfSchema.EXPORT.stream().map(HfSchema.Column::name).toList());
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM (SELECT * EXCLUDE (files_changed, models) FROM read_parquet('"
                    + tmp.resolve("out/data/train-00000-of-00001.parquet") + "') EXCEPT SELECT * EXCLUDE (files_changed, models) FROM read_json('"
                    + tmp.resolve("out/data/train-00000-of-00001.jsonl") + "', columns = " + jsonColumns() + "))")) {
                rs.next();
                assertThat(rs.getLong(1)).as("parquet rows missing from the JSONL").isZero();
            }
        }
        String readme = Files.readString(tmp.resolve("out/README.md"));
        assertThat(readme).startsWith("---\n");
        for (HfSchema.Column col : HfSchema.EXPORT) {
            assertThat(readme).contains("- name: " + col.name() + "\n");
        }
        assertThat(readme).contains("single-run legacy data, ±5 % band").contains("## Method")
                .contains("num_examples: 11").contains("path: data/train-*.parquet");
    }

    @Test
    void reimportingTheSameFileChangesNothingAndTheExportReimportsLosslessly() throws Exception {
        Path csv = SharedData.require(SAMPLE_CSV);
        Store store = TestStores.open(tmp, "s");
        HfImporter.importFile(store, csv);
        List<RunRecord> before = TestStores.runs(store);
        HfImporter.Summary again = HfImporter.importFile(store, csv);
        assertThat(again.alreadyImported()).isTrue();
        assertThat(TestStores.runs(store)).isEqualTo(before);

        HfExporter.export(store, tmp.resolve("a"));
        Store second = TestStores.open(tmp, "second");
        HfImporter.Summary fromParquet = HfImporter.importFile(second, tmp.resolve("a/data/train-00000-of-00001.parquet"));
        assertThat(fromParquet.rows()).isEqualTo(11);
        assertThat(fromParquet.ignoredColumns()).isNotEmpty().allMatch(c -> c.startsWith("isobench_"));
        HfImporter.Summary fromJsonl = HfImporter.importFile(TestStores.open(tmp, "third"), tmp.resolve("a/data/train-00000-of-00001.jsonl"));
        assertThat(fromJsonl.rows()).isEqualTo(11);
        HfExporter.export(second, tmp.resolve("b"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM (SELECT * FROM read_parquet('" + tmp.resolve("a/data/train-00000-of-00001.parquet")
                     + "') EXCEPT ALL SELECT * FROM read_parquet('" + tmp.resolve("b/data/train-00000-of-00001.parquet") + "')))")) {
            rs.next();
            assertThat(rs.getLong(1)).isZero();
        }
    }

    static String jsonColumns() {
        StringBuilder sb = new StringBuilder("{");
        for (HfSchema.Column col : HfSchema.EXPORT) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append('\'').append(col.name()).append("': '").append(col.type().duckdbType()).append('\'');
        }
        return sb.append('}').toString();
    }

    /** The source CSV read by DuckDB's own CSV reader (independent of isobench's), all values as text. */
    static List<Map<String, String>> readCsvIndependently(Path csv) throws Exception {
        List<Map<String, String>> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM read_csv('" + csv + "', header = true, all_varchar = true,"
                     + " delim = ',', quote = '\"', escape = '\"', max_line_size = 16777216)")) {
            int n = rs.getMetaData().getColumnCount();
            assertThat(n).isEqualTo(76);
            while (rs.next()) {
                Map<String, String> row = new HashMap<>();
                for (int i = 1; i <= n; i++) {
                    row.put(rs.getMetaData().getColumnName(i), rs.getString(i));
                }
                out.add(row);
            }
        }
        return out;
    }

    /** How pandas writes a list cell to CSV: Python's repr of a list of str. */
    static String pyRepr(Array a) throws Exception {
        Object[] items = (Object[]) a.getArray();
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < items.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            String s = (String) items[i];
            char q = s.contains("'") && !s.contains("\"") ? '"' : '\'';
            sb.append(q);
            for (char ch : s.toCharArray()) {
                switch (ch) {
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\t' -> sb.append("\\t");
                    case '\r' -> sb.append("\\r");
                    default -> {
                        if (ch == q) {
                            sb.append('\\');
                        }
                        sb.append(ch);
                    }
                }
            }
            sb.append(q);
        }
        return sb.append(']').toString();
    }

    @SuppressWarnings("unused")
    private static String join(Object[] a) {
        return Arrays.toString(a);
    }
}
