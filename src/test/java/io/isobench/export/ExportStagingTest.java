package io.isobench.export;

import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 9: {@code kill -9} during {@code export hf} left {@code data/.export-*} folders forever. The next
 * export removes the staging folders owned by no live process: an owner killed with SIGKILL, a pid reused by a
 * process that started at another time, an unowned folder of an older isobench a day old; it keeps a live owner's
 * folder (a running process, this JVM) and a fresh unowned one.
 */
class ExportStagingTest {

    @TempDir
    Path dir;

    private static String owned(ProcessHandle p) {
        return ExportStaging.PREFIX + p.pid() + "-" + p.info().startInstant().orElseThrow().toEpochMilli() + "-x";
    }

    @Test
    void theNextExportRemovesTheFoldersOfKilledExportsOnly() throws Exception {
        Path out = dir.resolve("out");
        Path data = Files.createDirectories(out.resolve("data"));
        Process killed = new ProcessBuilder("sleep", "60").start();
        Process live = new ProcessBuilder("sleep", "60").start();
        try {
            Path ofKilled = Files.createDirectories(data.resolve(owned(killed.toHandle())));
            Files.writeString(ofKilled.resolve("train.parquet"), "partial");
            Path ofLive = Files.createDirectories(data.resolve(owned(live.toHandle())));
            Path ofSelf = Files.createDirectories(data.resolve(owned(ProcessHandle.current())));
            // this JVM's pid with another start time: the pid was reused, the owner is gone
            Path reused = Files.createDirectories(data.resolve(ExportStaging.PREFIX + ProcessHandle.current().pid()
                    + "-12345-x"));
            Path oldUnowned = Files.createDirectories(data.resolve(ExportStaging.PREFIX + "abc123"));
            Files.setLastModifiedTime(oldUnowned, FileTime.from(Instant.now().minus(Duration.ofHours(25))));
            Path freshUnowned = Files.createDirectories(data.resolve(ExportStaging.PREFIX + "def456"));
            killed.destroyForcibly(); // SIGKILL: what kill -9 does to an export
            assertThat(killed.waitFor(10, TimeUnit.SECONDS)).isTrue();

            HfExporter.Summary s;
            try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
                s = HfExporter.export(store, out);
            }
            assertThat(s.staleRemoved()).isEqualTo(3);
            assertThat(s.describe()).endsWith("; removed 3 staging folder(s) of killed exports");
            assertThat(ofKilled).doesNotExist();
            assertThat(reused).doesNotExist();
            assertThat(oldUnowned).doesNotExist();
            assertThat(ofLive).isDirectory();
            assertThat(ofSelf).isDirectory();
            assertThat(freshUnowned).isDirectory();
            assertThat(out.resolve(HfExporter.PARQUET)).isRegularFile();
            try (var left = Files.list(data)) {
                assertThat(left.filter(p -> p.getFileName().toString().startsWith(ExportStaging.PREFIX)).count())
                        .as("this export removed its own folder").isEqualTo(3);
            }
        } finally {
            killed.destroyForcibly();
            live.destroyForcibly();
        }
    }
}
