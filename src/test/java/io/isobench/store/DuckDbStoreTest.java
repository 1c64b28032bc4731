package io.isobench.store;

import io.isobench.IsobenchException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DuckDbStoreTest extends StoreContract {

    @TempDir
    Path dir;

    @Override
    String freshSpec() {
        return dir.resolve("nested/deeper/isobench.duckdb").toString();
    }

    @Test
    void createsParentFoldersAndDescribesTheFile() {
        Path file = Path.of(spec).toAbsolutePath();
        assertThat(file).exists();
        assertThat(store.describe()).isEqualTo(file.toString());
    }

    @Test
    void pathUnderProcIsRefusedWithoutLeavingAFile() {
        assertThatThrownBy(() -> Stores.open("/proc/x.duckdb"))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("/proc/x.duckdb")
                .hasMessageNotContaining("\n");
        assertThat(Path.of("/proc/x.duckdb")).doesNotExist();
    }

    @Test
    void folderIsRefused() {
        assertThatThrownBy(() -> Stores.open(dir.toString()))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(dir.toString())
                .hasMessageContaining("is a folder");
    }

    @Test
    void textFileIsRefusedAndLeftAlone() throws Exception {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "just some notes, not a database\n");
        assertThatThrownBy(() -> Stores.open(text.toString()))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(text.toString())
                .hasMessageContaining("not a DuckDB database");
        assertThat(Files.readString(text)).isEqualTo("just some notes, not a database\n");
    }

    @Test
    void fileUnderAFileIsRefused() throws Exception {
        Path text = dir.resolve("plain");
        Files.writeString(text, "x");
        assertThatThrownBy(() -> Stores.open(text.resolve("db.duckdb").toString()))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining(text.resolve("db.duckdb").toString())
                .hasMessageContaining("cannot create folder");
    }

    @Test
    void emptyFileBecomesAStore() throws Exception {
        Path empty = Files.createFile(dir.resolve("empty.duckdb"));
        try (Store s = Stores.open(empty.toString())) {
            assertThat(s.countRuns()).isZero();
        }
    }

    @Test
    void unsupportedUrlAndPasswordsAreRedacted() {
        assertThatThrownBy(() -> Stores.open("jdbc:mysql://h/db?password=secret"))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageNotContaining("secret");
        assertThat(Stores.redact("jdbc:postgresql://h:5432/db?user=u&password=s3cret&ssl=true"))
                .isEqualTo("jdbc:postgresql://h:5432/db?user=u&password=***&ssl=true");
        assertThat(Stores.redact("jdbc:postgresql://u:s3cret@h/db")).isEqualTo("jdbc:postgresql://u:***@h/db");
    }

    @Test
    void unreachablePostgresIsBadInputWithoutPassword() {
        assertThatThrownBy(() -> Stores.open("jdbc:postgresql://127.0.0.1:1/nodb?user=u&password=s3cret&connectTimeout=2"))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("jdbc:postgresql://127.0.0.1:1/nodb")
                .hasMessageContaining("cannot connect to PostgreSQL")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void inMemoryAndJdbcDuckDbSpecsWork() {
        try (Store mem = Stores.open(Stores.MEMORY)) {
            mem.putRun(run("m1", "abcdef0123", "x", "baseline", 0, RunRecord.RunKind.MEASURED, "native", List.of()));
            assertThat(mem.countRuns()).isEqualTo(1);
            assertThat(mem.describe()).isEqualTo(":memory:");
        }
        try (Store mem = Stores.open(Stores.MEMORY)) {
            assertThat(mem.countRuns()).isZero();
        }
        Path file = dir.resolve("via-url.duckdb");
        try (Store s = Stores.open("jdbc:duckdb:" + file)) {
            assertThat(s.describe()).isEqualTo(file.toString());
        }
        assertThat(file).exists();
    }
}
