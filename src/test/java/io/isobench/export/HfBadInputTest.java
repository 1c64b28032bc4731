package io.isobench.export;

import io.isobench.IsobenchException;
import io.isobench.SharedData;
import io.isobench.guard.Secrets;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HfBadInputTest {

    @TempDir
    Path tmp;

    private static Path sample() {
        return SharedData.require(HfRoundTripTest.SAMPLE_CSV);
    }

    @Test
    void renamedColumnIsRefusedNamingFileAndFirstMissingColumn() throws Exception {
        String text = Files.readString(sample());
        Path bad = tmp.resolve("renamed.csv");
        Files.writeString(bad, text.replaceFirst(",perf_command,", ",perf_cmd,"));
        Store store = TestStores.open(tmp, "s");
        assertThatThrownBy(() -> HfImporter.importFile(store, bad))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(bad.toString())
                .hasMessageContaining("column 'perf_command' missing")
                .hasMessageContaining("perf_cmd")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(store.countRuns()).isZero();
        assertThat(store.sources()).isEmpty();
    }

    @Test
    void missingColumnIsRefused() throws Exception {
        Path bad = tmp.resolve("short.csv");
        Files.writeString(bad, "commit_hash,commit_short\nabc,abc\n");
        assertThatThrownBy(() -> HfTableReader.read(bad))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(bad.toString())
                .hasMessageContaining("column 'commit_subject' missing");
    }

    @Test
    void gitLfsPointerIsReportedAsSuchNotAsCorruptParquet() throws Exception {
        Path ptr = tmp.resolve("train-00000-of-00001.parquet");
        Files.writeString(ptr, "version https://git-lfs.github.com/spec/v1\n"
                + "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 500946\n");
        assertThatThrownBy(() -> HfImporter.importFile(TestStores.open(tmp, "s"), ptr))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(ptr.toString())
                .hasMessageContaining("LFS pointer, data not present")
                .satisfies(e -> assertThat(e.getMessage().toLowerCase()).doesNotContain("corrupt"));
    }

    @Test
    void garbageParquetIsUnreadableWithTheFileNamed() throws Exception {
        Path junk = tmp.resolve("junk.parquet");
        Files.write(junk, "PAR1 this is not really parquet".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> HfTableReader.read(junk))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(junk.toString())
                .hasMessageContaining("unreadable parquet")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        Path text = tmp.resolve("text.parquet");
        Files.writeString(text, "hello");
        assertThatThrownBy(() -> HfTableReader.read(text)).hasMessageContaining("not a parquet file");
        assertThatThrownBy(() -> HfTableReader.read(tmp.resolve("absent.csv"))).hasMessageContaining("no such file");
    }

    @Test
    void olderExportTablesAreRefusedWithAClearMessage() {
        Path parquet = SharedData.require(
                "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/exports/data/train-00000-of-00001.parquet");
        assertThatThrownBy(() -> HfTableReader.read(parquet))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(parquet.toString())
                .hasMessageContaining("older 33-column export");
        Path jsonl = SharedData.require(
                "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/exports/full_results.jsonl");
        assertThatThrownBy(() -> HfTableReader.read(jsonl))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("older 33-column export");
    }

    @Test
    void aBadValueNamesRowAndColumnAndNothingIsStored() throws Exception {
        String text = Files.readString(sample());
        Path bad = tmp.resolve("badvalue.csv");
        Files.writeString(bad, text.replace(",596.34,", ",fast,"));
        Store store = TestStores.open(tmp, "s");
        assertThatThrownBy(() -> HfImporter.importFile(store, bad))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("row 1, column 'baseline_ttft_mean' (float64)")
                .hasMessageContaining("'fast'");
        assertThat(store.countRuns()).isZero();
    }

    @Test
    void aStoreFailureMidwayLeavesNothingHalfWritten() throws Exception {
        Store real = TestStores.open(tmp, "s");
        Store store = new TestStores.FailingStore(real, 20);
        Path file = sample(); // outside the lambda: an absent ../shared skips the test instead of failing the assertion
        assertThatThrownBy(() -> HfImporter.importFile(store, file)).hasMessageContaining("simulated");
        assertThat(real.countRuns()).isZero();
        assertThat(real.sources()).isEmpty();
        assertThat(real.tasks()).isEmpty();
        assertThat(real.artifact(HfImporter.sha256(Files.readAllBytes(sample())))).isEmpty();
    }

    @Test
    void listLiteralsParseLikePython() throws Exception {
        assertThat(ListCell.parse("[]")).isEmpty();
        assertThat(ListCell.parse("['a', \"b's\", 'c\\'d', 'e\\\\f']")).containsExactly("a", "b's", "c'd", "e\\f");
        assertThat(ListCell.parse("[\"x\", null]")).containsExactly("x", null);
        assertThatThrownBy(() -> ListCell.parse("a, b")).isInstanceOf(HfValues.BadValue.class);
        // a numpy repr (no commas) is a list too since issue 28 (ListCellTest)
        assertThat(ListCell.parse("['a' 'b']")).containsExactly("a", "b");
    }

    @Test
    void secretsAreRedactedBeforeStoring() {
        assertThat(Secrets.redact("token hf_abcdefghijklmnopqrstuvwxyz123456 used"))
                .isEqualTo("token hf_*** used");
        assertThat(Secrets.redact("Authorization: Bearer abc.def")).isEqualTo("Authorization: Bearer ***");
        String clean = "no secrets here";
        assertThat(Secrets.redact(clean)).isSameAs(clean);
    }
}
