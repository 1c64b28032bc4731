package io.isobench.cli;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 10: reports are written beside their target and renamed over it, never truncated in place (a kill
 * mid-write left a 0-byte report). A hard link to the previous report keeps its content when a new one is written:
 * written in place, the link would see the new (or a half-written) file.
 */
class AtomicReportTest {

    @TempDir
    Path dir;

    private int cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertThat(code).as(err.toString()).isZero();
        return code;
    }

    @Test
    void aNewReportReplacesTheOldFileInsteadOfRewritingIt() throws Exception {
        String db = dir.resolve("db.duckdb").toString();
        cli("--db", db, "import", "legacy", SharedData.isobenchData().toString());
        Path site = dir.resolve("site");
        cli("--db", db, "report", "--format", "html", "--out", site.toString());
        Path md = dir.resolve("report.md");
        cli("--db", db, "report", "--out", md.toString());
        Path index = site.resolve("index.html");
        String oldIndex = Files.readString(index);
        String oldMd = Files.readString(md);
        Files.createLink(dir.resolve("index.keep"), index);
        Files.createLink(dir.resolve("md.keep"), md);

        cli("--db", db, "report", "--format", "html", "--agent", "codex", "--out", site.toString());
        cli("--db", db, "report", "--agent", "codex", "--out", md.toString());
        assertThat(Files.readString(index)).isNotEqualTo(oldIndex);
        assertThat(Files.readString(dir.resolve("index.keep"))).isEqualTo(oldIndex);
        assertThat(Files.readString(md)).isNotEqualTo(oldMd);
        assertThat(Files.readString(dir.resolve("md.keep"))).isEqualTo(oldMd);
        try (Stream<Path> s = Files.walk(dir)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList()).isEmpty();
        }
    }
}
