package io.isobench.cli;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class HfCliTest {

    @TempDir
    Path tmp;

    @Test
    void importHfThenExportHfThroughTheCli() {
        Path csv = SharedData.require("isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/hf_export/updated_rows_only.csv");
        String db = tmp.resolve("s.duckdb").toString();
        MainTest.Result r = MainTest.run("--db", db, "import", "hf", csv.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("imported 11 rows (csv, schema v5) as 33 runs");

        MainTest.Result again = MainTest.run("import", "hf", "--db", db, csv.toString());
        assertThat(again.code()).isZero();
        assertThat(again.out()).contains("already imported");

        Path out = tmp.resolve("ds");
        MainTest.Result e = MainTest.run("export", "hf", "--db", db, "--out", out.toString());
        assertThat(e.code()).as(e.err()).isZero();
        assertThat(e.out()).contains("train-00000-of-00001.parquet");
        assertThat(e.err()).contains("11 rows (11 imported verbatim");
        assertThat(out.resolve("data/train-00000-of-00001.parquet")).exists();
        assertThat(out.resolve("data/train-00000-of-00001.jsonl")).exists();
        assertThat(out.resolve("README.md")).exists();
    }

    @Test
    void thePublishedUpdatedRowsImportAndAnUnreadableListCellIsOneWarningLine() throws Exception {
        // hf_export/updated_rows.csv writes files_changed as numpy reprs (['a'\n 'b']): refused whole before issue 28
        Path csv = SharedData.require("isobench-data-wide/archive/results/2026-01/omniperf_results_3way_claude_code/"
                + "hf_export/updated_rows.csv");
        String db = tmp.resolve("s.duckdb").toString();
        MainTest.Result r = MainTest.run("--db", db, "import", "hf", csv.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("imported 8 rows (csv, schema v5) as 24 runs");
        assertThat(r.err()).doesNotContain("warning");

        // the same table with two cells no reader can take: imported, one warning line for the column
        String text = Files.readString(csv).replace("['vllm/model_executor/layers/sampler.py'",
                "['vllm/model_executor/layers/sampler.py' ['nested']").replaceFirst("\\['N/A'\\]", "[N/A garbage]");
        Path bad = tmp.resolve("updated_rows_bad.csv");
        Files.writeString(bad, text);
        MainTest.Result w = MainTest.run("--db", tmp.resolve("t.duckdb").toString(), "import", "hf", bad.toString());
        assertThat(w.code()).as(w.err()).isZero();
        assertThat(w.out()).contains("imported 8 rows");
        assertThat(w.err().lines().filter(l -> l.contains("warning")).toList()).containsExactly(
                "isobench: warning: " + bad + ": column 'files_changed': 1 cell is not a readable list, kept as text"
                        + " (first: row 4: not a flat list (a '[' inside the brackets): '['vllm/model_executor/layers/"
                        + "sampler.py' ['nested']  'vll...')",
                "isobench: warning: " + bad + ": column 'models': 1 cell is not a readable list, kept as text"
                        + " (first: row 3: unquoted item 'N/A' (only numbers, nan, inf, True, False and None may stand"
                        + " bare) in '[N/A garbage]')");
    }

    @Test
    void lfsPointerIsBadInputWithOneLine() throws Exception {
        Path ptr = tmp.resolve("t.parquet");
        Files.writeString(ptr, "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 1\n");
        MainTest.Result r = MainTest.run("--db", tmp.resolve("s.duckdb").toString(), "import", "hf", ptr.toString());
        assertThat(r.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(r.err().strip()).doesNotContain("\n").contains(ptr.toString()).contains("LFS pointer, data not present");
    }

    @Test
    void exportNeedsOut() {
        MainTest.Result r = MainTest.run("export", "hf");
        assertThat(r.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(r.err()).contains("--out");
    }
}
