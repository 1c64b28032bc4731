package io.isobench.export;

import io.isobench.SharedData;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The published CSV exports as they are (issue 28): list columns written as numpy reprs are read, a list cell that
 * cannot be read is kept as text with one warning per column, and TRAE's rows get the result trees' agent names.
 */
class HfPublishedCsvTest {

    static final String UPDATED_ROWS = "isobench-data-wide/archive/results/2026-01/omniperf_results_3way_claude_code/"
            + "hf_export/updated_rows.csv";

    @TempDir
    Path tmp;

    @Test
    void theRealUpdatedRowsImportWithTheirNumpyListsRead() {
        Path csv = SharedData.require(UPDATED_ROWS);
        HfTableReader.HfTable table = HfTableReader.read(csv);
        assertThat(table.rows()).hasSize(8);
        assertThat(table.warnings()).isEmpty();
        // row 3 of the file: files_changed is "['tests/…/test_chunked_prefill.py'\n 'vllm/core/scheduler.py']"
        assertThat(table.rows().get(2).get("files_changed"))
                .isEqualTo(List.of("tests/basic_correctness/test_chunked_prefill.py", "vllm/core/scheduler.py"));
        assertThat(table.rows().stream().map(r -> r.get("models")).toList()).contains(List.of("N/A"), List.of());

        Store store = TestStores.open(tmp, "s");
        HfImporter.Summary s = HfImporter.importFile(store, csv);
        assertThat(s.rows()).isEqualTo(8);
        assertThat(s.runs()).isEqualTo(24);
        assertThat(s.warnings()).isEmpty();
        assertThat(store.countRuns()).isEqualTo(24);
    }

    @Test
    void anUnreadableListCellIsKeptAsTextWithOneWarningPerColumn() throws Exception {
        List<List<String>> records = records();
        int files = col(records, "files_changed");
        int models = col(records, "models");
        records.get(1).set(files, "['a' ['nested']]");
        records.get(2).set(files, "['x' ... 'z']");
        records.get(4).set(models, "not a list");
        Path bad = write(records, "unreadable.csv");

        HfTableReader.HfTable table = HfTableReader.read(bad);
        assertThat(table.rows()).hasSize(8);
        assertThat(table.rows().get(0).get("files_changed")).isEqualTo(List.of("['a' ['nested']]"));
        assertThat(table.rows().get(1).get("files_changed")).isEqualTo(List.of("['x' ... 'z']"));
        assertThat(table.warnings()).hasSize(2);
        assertThat(table.warnings().get(0)).startsWith("column 'files_changed': 2 cells are not a readable list, kept"
                + " as text (first: row 1: ");
        assertThat(table.warnings().get(1)).startsWith("column 'models': 1 cell is not a readable list, kept as text"
                + " (first: row 4: ");

        Store store = TestStores.open(tmp, "s");
        HfImporter.Summary s = HfImporter.importFile(store, bad);
        assertThat(s.runs()).isEqualTo(24);
        assertThat(s.warnings()).isEqualTo(table.warnings());
    }

    @Test
    void aBadNumberIsStillRefused() throws Exception {
        List<List<String>> records = records();
        records.get(1).set(col(records, "baseline_ttft_mean"), "fast");
        Path bad = write(records, "badnumber.csv");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HfTableReader.read(bad))
                .hasMessageContaining("row 1, column 'baseline_ttft_mean' (float64)");
    }

    @Test
    void traeRowsGetTheResultTreesNamesAndAnUnknownModelIsNamedOnce() throws Exception {
        List<List<String>> records = records();
        int agent = col(records, "agent_name");
        int model = col(records, "agent_model");
        String[][] pairs = {{"trae", "gpt-5"}, {"trae", "sonnet-4.5"}, {"trae", "gpt-4o"}, {"trae", "gpt-4o"}};
        for (int i = 0; i < pairs.length; i++) {
            records.get(i + 1).set(agent, pairs[i][0]);
            records.get(i + 1).set(model, pairs[i][1]);
        }
        Path file = write(records, "trae.csv");
        Store store = TestStores.open(tmp, "s");
        HfImporter.Summary s = HfImporter.importFile(store, file);
        assertThat(s.warnings()).containsExactly("agent 'trae' with model 'gpt-4o' (2 rows): no alias in the agent"
                + " table, name kept (docs/hf-export.md, agent names)");
        Map<String, Integer> agents = new TreeMap<>();
        store.forEachRun(RunFilter.all(), r -> agents.merge(r.agent(), 1, Integer::sum));
        assertThat(agents).containsEntry("trae_gpt5", 3).containsEntry("trae_sonnet45", 3).containsEntry("trae", 6)
                .containsEntry("claude_code", 12).hasSize(4);
        // the published row itself is kept verbatim: its agent_name is still 'trae'
        List<RunRecord> gpt5 = new ArrayList<>();
        store.forEachRun(RunFilter.all(), r -> {
            if ("trae_gpt5".equals(r.agent())) {
                gpt5.add(r);
            }
        });
        assertThat(gpt5).allSatisfy(r -> assertThat(r.details().string("agent_name")).isEqualTo("trae"));
        assertThat(gpt5).anySatisfy(r -> assertThat(r.arm().label()).isEqualTo("agent:trae_gpt5"));
    }

    private static List<List<String>> records() throws Exception {
        String text = Files.readString(SharedData.require(UPDATED_ROWS));
        List<List<String>> out = new ArrayList<>();
        for (List<String> r : HfTableReader.Csv.parse(text)) {
            if (!(r.size() == 1 && r.get(0).isEmpty())) {
                out.add(new ArrayList<>(r));
            }
        }
        return out;
    }

    private static int col(List<List<String>> records, String name) {
        int i = records.get(0).indexOf(name);
        assertThat(i).as(name).isNotNegative();
        return i;
    }

    private Path write(List<List<String>> records, String name) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (List<String> r : records) {
            List<String> cells = new ArrayList<>();
            for (String c : r) {
                cells.add(c.isEmpty() ? "" : "\"" + c.replace("\"", "\"\"") + "\"");
            }
            sb.append(String.join(",", cells)).append('\n');
        }
        Path p = tmp.resolve(name);
        Files.writeString(p, sb.toString());
        return p;
    }
}
