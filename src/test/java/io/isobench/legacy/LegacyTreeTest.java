package io.isobench.legacy;

import io.isobench.SharedData;
import io.isobench.parse.FailureCategory;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole trees: the two samples together (issue 14 "Done when"), and the entries of a tree that are not files to read
 * (issue 15 point 9), and files too large to read (issue 15 point 6).
 */
class LegacyTreeTest {

    /** Copies a sample tree into {@code to} (files already there are kept: the first sample wins). */
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!Files.exists(target)) {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                    target.toFile().setWritable(true);
                }
            }
        }
    }

    @Test
    void bothSamplesTogether(@TempDir Path dir) throws Exception {
        Path tree = dir.resolve("tree");
        copyTree(SharedData.isobenchData(), tree);
        copyTree(SharedData.require("isobench-data-more"), tree);
        List<ThreeWayRow> alone;
        try (Store first = TestStores.open(dir.resolve("alone"))) {
            new LegacyImporter(first, null, null).importTree(SharedData.isobenchData());
            alone = LegacyImportTest.table(first, "claude_code");
        }
        Files.createDirectories(dir.resolve("both"));
        try (Store store = TestStores.open(dir.resolve("both"))) {
            ImportSummary sum = new LegacyImporter(store, null, null).importTree(tree);
            assertThat(sum.count(ImportSummary.Outcome.REFUSED)).isZero();
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(RunFilter.all(), runs::add);
            Map<FailureCategory, Integer> counts = new EnumMap<>(FailureCategory.class);
            for (RunRecord r : runs) {
                if (r.status() == RunRecord.RunStatus.FAILED) {
                    assertThat(r.failure()).as(r.runId() + " has a category").isNotNull();
                    counts.merge(FailureCategory.valueOf(r.failure().category()), 1, Integer::sum);
                }
            }
            int failed = counts.values().stream().mapToInt(Integer::intValue).sum();
            assertThat(failed).isGreaterThan(20);
            assertThat(counts.getOrDefault(FailureCategory.UNKNOWN, 0) * 100.0 / failed).as(counts.toString())
                    .isLessThanOrEqualTo(5.0);
            // the 42-file results and the 3-way table are unchanged by the second sample
            assertThat(LegacyImportTest.table(store, "claude_code")).isEqualTo(alone);
        }
    }

    @Test
    void aLinkedRootIsFollowedAndSpecialEntriesAreListedAsSkipped(@TempDir Path dir) throws Exception {
        Path tree = Files.createDirectories(dir.resolve("real/omniperf_results_3way_x/results"));
        Files.writeString(tree.resolve("abcdef12_human_result.json"), "{\"human_commit\": \"abcdef12\","
                + " \"status\": \"error\", \"error\": \"Server crashed\", \"raw_output\": \"\"}");
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("abcdef13_human_result.json"), "{}");
        Files.createSymbolicLink(tree.resolve("linked-folder"), outside);
        Files.createSymbolicLink(tree.resolve("dangling_result.json"), dir.resolve("missing.json"));
        Files.createSymbolicLink(tree.resolve("device_result.json"), Path.of("/dev/null"));
        Files.createSymbolicLink(tree.resolve("linked_file_human_result.json"),
                tree.resolve("abcdef12_human_result.json"));
        boolean fifo = mkfifo(tree.resolve("pipe_result.json"));
        Path root = Files.createSymbolicLink(dir.resolve("root-link"), dir.resolve("real"));
        try (Store store = TestStores.open(dir)) {
            ImportSummary sum = new LegacyImporter(store, null, null).importTree(root);
            assertThat(reason(sum, "linked-folder")).contains("symbolic link to a folder").contains("not followed");
            assertThat(reason(sum, "dangling_result.json")).contains("dangling symbolic link");
            assertThat(reason(sum, "device_result.json")).contains("character device");
            if (fifo) {
                assertThat(reason(sum, "pipe_result.json")).contains("FIFO");
            }
            assertThat(sum.files()).filteredOn(f -> f.path().endsWith("abcdef12_human_result.json"))
                    .singleElement().satisfies(f -> assertThat(f.outcome()).isEqualTo(ImportSummary.Outcome.IMPORTED));
            assertThat(sum.files()).noneMatch(f -> f.path().contains("abcdef13"));
            assertThat(store.countRuns()).isEqualTo(2); // the file and the link to it
        }
    }

    /**
     * A legacy tree is untrusted (an archive unpacked from elsewhere): a link in it to a file outside the tree, as a
     * result or as the stdout.txt beside one, must not bring that file (here a netrc, whose password no shape knows)
     * into the store, which may be shared. Listed as skipped; a link to a file inside the tree is still read.
     */
    @Test
    void aLinkToAFileOutsideTheTreeIsNeverRead(@TempDir Path dir) throws Exception {
        Path tree = Files.createDirectories(dir.resolve("t/omniperf_results_3way_x/results"));
        Files.writeString(tree.resolve("abcdef12_human_result.json"), "{\"human_commit\": \"abcdef12\","
                + " \"status\": \"error\", \"error\": \"Server crashed\", \"raw_output\": \"\"}");
        Path netrc = Files.writeString(Files.createDirectories(dir.resolve("home")).resolve(".netrc"),
                "machine api.example.com login me password NetrcOnlyPw9\n");
        Files.createSymbolicLink(tree.resolve("abcdef99_agent_result.json"), netrc);
        Files.createSymbolicLink(tree.resolve("stdout.txt"), netrc);
        Files.createSymbolicLink(tree.resolve("abcdef12_agent_result.json"), tree.resolve("abcdef12_human_result.json"));
        try (Store store = TestStores.open(dir)) {
            ImportSummary sum = new LegacyImporter(store, null, null).importTree(dir.resolve("t"));
            assertThat(reason(sum, "abcdef99_agent_result.json")).contains("outside the tree").contains("not read");
            assertThat(reason(sum, "stdout.txt")).contains("outside the tree");
            assertThat(sum.files()).filteredOn(f -> f.path().endsWith("abcdef12_agent_result.json")).singleElement()
                    .satisfies(f -> assertThat(f.outcome()).isEqualTo(ImportSummary.Outcome.IMPORTED));
            StringBuilder all = new StringBuilder();
            for (var src : store.sources()) {
                all.append(src).append(store.artifact(src.contentArtifact()).map(String::new).orElse(""));
            }
            store.forEachRun(RunFilter.all(), r -> all.append(r).append(r.logArtifact() == null ? ""
                    : store.artifact(r.logArtifact()).map(String::new).orElse("")));
            assertThat(all).isNotEmpty().doesNotContain("NetrcOnlyPw9");
        }
    }

    /**
     * Issue 15, point 6: under a heap too small for one file's tree (a forked import with 96 MiB and a 28 MB file of
     * 700 000 small objects), the OutOfMemoryError is that file's refusal with the reason; the rest of the tree is
     * imported and the command ends normally.
     */
    @Test
    void anOutOfMemoryOnOneFileIsItsRefusal(@TempDir Path dir) throws Exception {
        Path tree = Files.createDirectories(dir.resolve("t/omniperf_results_3way_x/results"));
        try (var out = Files.newBufferedWriter(tree.resolve("abcdef12_human_result.json"))) {
            out.write("{\"human_commit\": \"abcdef12\", \"status\": \"error\", \"error\": \"Server crashed\","
                    + " \"raw_output\": \"\", \"samples\": [");
            for (int i = 0; i < 700_000; i++) {
                out.write((i == 0 ? "" : ", ") + "{\"i\": " + i + ", \"v\": [1, 2, 3], \"k\": \"x\"}");
            }
            out.write("]}");
        }
        Files.writeString(tree.resolve("abcdef13_human_result.json"), "{\"human_commit\": \"abcdef13\","
                + " \"status\": \"error\", \"error\": \"Server crashed\", \"raw_output\": \"\"}");
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx96m",
                "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.isobench.cli.Main", "--db", dir.resolve("s.duckdb").toString(), "import", "legacy",
                dir.resolve("t").toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly().waitFor();
        }
        String text = Files.readString(out);
        assertThat(done).as(text).isTrue();
        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text).contains("abcdef12_human_result.json: not enough memory to read this file")
                .containsPattern("refused: 1 file\n +1 +other +not enough memory to read this file")
                .doesNotContain("Exception in thread");
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            assertThat(store.countRuns()).isEqualTo(1);
        }
    }

    private static String reason(ImportSummary sum, String suffix) {
        ImportSummary.FileOutcome f = sum.files().stream().filter(x -> x.path().endsWith(suffix)).findFirst()
                .orElseThrow(() -> new AssertionError(suffix + " is not listed"));
        assertThat(f.outcome()).as(suffix).isEqualTo(ImportSummary.Outcome.SKIPPED);
        return f.reason();
    }

    private static boolean mkfifo(Path p) {
        try {
            return new ProcessBuilder("mkfifo", p.toString()).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void aFileOverTheLimitIsRefusedUnreadAndTheRestImported(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(dir.toFile().getUsableSpace() > 4 * LegacyImporter.MAX_FILE_BYTES, "disk space");
        Path tree = Files.createDirectories(dir.resolve("t/omniperf_results_3way_x/results"));
        Path big = tree.resolve("abcdef12_agent_result.json");
        try (var out = Files.newBufferedWriter(big)) {
            out.write("{\"status\": \"error\", \"raw_output\": \"");
            char[] chunk = "x".repeat(1 << 16).toCharArray();
            for (long n = 0; n <= LegacyImporter.MAX_FILE_BYTES; n += chunk.length) {
                out.write(chunk);
            }
            out.write("\"}");
        }
        Files.writeString(tree.resolve("abcdef12_human_result.json"), "{\"human_commit\": \"abcdef12\", \"status\": "
                + "\"error\", \"error\": \"Server crashed\"}");
        // a large file that is no result by its name is skipped after reading its head, whatever its size
        try (var out = Files.newOutputStream(tree.resolve("engine.log"))) {
            byte[] chunk = new byte[1 << 20];
            for (long n = 0; n <= LegacyImporter.MAX_FILE_BYTES; n += chunk.length) {
                out.write(chunk);
            }
        }
        try (Store store = TestStores.open(dir)) {
            ImportSummary sum = new LegacyImporter(store, null, null).importTree(dir.resolve("t"));
            ImportSummary.FileOutcome f = sum.files().stream().filter(x -> x.path().endsWith("agent_result.json"))
                    .findFirst().orElseThrow();
            assertThat(f.outcome()).isEqualTo(ImportSummary.Outcome.REFUSED);
            assertThat(f.reason()).contains("MB is more than the 32 MiB a legacy file may have");
            assertThat(store.countRuns()).isEqualTo(1);
            ImportSummary.FileOutcome log = sum.files().stream().filter(x -> x.path().endsWith("engine.log"))
                    .findFirst().orElseThrow();
            assertThat(log.outcome()).isEqualTo(ImportSummary.Outcome.SKIPPED);
            assertThat(log.reason()).isEqualTo("not a result file");
            // known by its hash: a second import changes nothing
            ImportSummary again = new LegacyImporter(store, null, null).importTree(dir.resolve("t"));
            assertThat(again.count(ImportSummary.Outcome.UNCHANGED)).isEqualTo(3);
        }
    }
}
