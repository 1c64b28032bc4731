package io.isobench.loadgen;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A task's workload file in the arm's worktree is read through a private copy, and only when it is the tree's own
 * regular file ({@link TreeFile}): an agent's build or server can put a link there, to a file of the machine that
 * the client would otherwise read and send as prompts to that same server. The "secret" here is a file of the
 * test's own outside the worktree.
 */
class TreeFileTest {

    private static final String TRACE = "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1}\n";

    @Test
    void theTreesOwnFileIsCopiedByteForByte(@TempDir Path dir) throws IOException {
        Path tree = Files.createDirectories(dir.resolve("tree/benchmarks"));
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        byte[] bytes = ("\uFEFF" + TRACE + "\u00e9\r\n").getBytes(StandardCharsets.UTF_8);
        Files.write(tree.resolve("t.jsonl"), bytes);
        Path copy = TreeFile.copyIn("--dataset-path", dir.resolve("tree"), "benchmarks/./t.jsonl", scratch);
        assertThat(copy).isEqualTo(scratch.resolve("t.jsonl"));
        assertThat(Files.readAllBytes(copy)).isEqualTo(bytes);
        assertThat(TreeFile.copyIn("--dataset-path", dir.resolve("tree"), "benchmarks/absent.jsonl", scratch)).isNull();
        assertThat(TreeFile.copyIn("--dataset-path", dir.resolve("tree"), "absent/t.jsonl", scratch)).isNull();
        // not the tree's: an absolute path, or one that leaves it, is the suite's, returned unread
        assertThat(TreeFile.copyIn("--dataset-path", dir.resolve("tree"), "../secret.txt", scratch)).isEqualTo(dir.resolve("secret.txt"));
        assertThat(TreeFile.copyIn("--dataset-path", dir.resolve("tree"), "/etc/hostname", scratch)).isEqualTo(Path.of("/etc/hostname"));
    }

    @Test
    void aLinkAFolderOrAFifoIsRefusedAndNothingIsRead(@TempDir Path dir) throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        Path secret = Files.writeString(dir.resolve("secret.txt"), "the machine's own file\n");
        Files.createDirectories(tree.resolve("benchmarks"));
        // the file itself a link out of the tree
        Files.createSymbolicLink(tree.resolve("benchmarks/linked.jsonl"), secret);
        // a folder on the way a link (to a folder outside holding a file of that name)
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("t.jsonl"), TRACE);
        Files.createSymbolicLink(tree.resolve("data"), outside);
        // a link inside the tree to the tree's own file: still a link, refused (the target can change under it)
        Files.writeString(tree.resolve("benchmarks/own.jsonl"), TRACE);
        Files.createSymbolicLink(tree.resolve("benchmarks/alias.jsonl"), tree.resolve("benchmarks/own.jsonl"));
        Files.createDirectories(tree.resolve("benchmarks/folder.jsonl"));
        Process mk = new ProcessBuilder("mkfifo", tree.resolve("benchmarks/fifo.jsonl").toString()).start();
        assertThat(mk.waitFor()).isZero();
        for (String[] c : new String[][] {{"benchmarks/linked.jsonl", "is a symbolic link"},
                {"data/t.jsonl", "is a symbolic link or not a folder on the way"},
                {"benchmarks/alias.jsonl", "is a symbolic link"},
                {"benchmarks/folder.jsonl", "is not a regular file"},
                {"benchmarks/fifo.jsonl", "is not a regular file"}}) {
            assertThatThrownBy(() -> TreeFile.copyIn("--dataset-path", tree, c[0], scratch)).as(c[0])
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--dataset-path " + c[0] + " in the arm's worktree " + tree + " " + c[1])
                    .hasMessageContaining("not read")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("machine's own"));
        }
        try (var left = Files.list(scratch)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aTaskWhoseTraceWasSwappedForALinkFailsItsClientInsteadOfReadingIt(@TempDir Path dir) throws IOException {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        Path secret = Files.writeString(dir.resolve("secret.jsonl"), TRACE);
        Files.createSymbolicLink(tree.resolve("t.jsonl"), secret);
        Map<String, String> flags = Map.of("dataset-name", "timed-trace", "dataset-path", "t.jsonl",
                "timed-trace-chunk-hash-size", "4", "timed-trace-sec-multiplier", "0.001");
        List<String> warnings = new ArrayList<>();
        assertThatThrownBy(() -> ServeFlags.workload(LoadgenConfig.builder().model("m"), flags, tree, scratch,
                warnings::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--dataset-path t.jsonl in the arm's worktree " + tree + " is a symbolic link");
        // a tokenizer folder whose tokenizer.json is a link: refused the same way
        Files.createDirectories(tree.resolve("tok"));
        Files.createSymbolicLink(tree.resolve("tok/tokenizer.json"), secret);
        assertThatThrownBy(() -> ServeFlags.workload(LoadgenConfig.builder().model("m"), Map.of("tokenizer", "tok"),
                tree, scratch, warnings::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--tokenizer tok/tokenizer.json in the arm's worktree " + tree
                        + " is a symbolic link");
        // and the same task where the file is the tree's own replays it (from the copy)
        Files.delete(tree.resolve("t.jsonl"));
        Files.writeString(tree.resolve("t.jsonl"), TRACE);
        LoadgenConfig c = ServeFlags.workload(LoadgenConfig.builder().model("m"), flags, tree, scratch,
                warnings::add).build();
        assertThat(c.dataset().kind()).isEqualTo(DatasetSpec.Kind.TIMED_TRACE);
        assertThat(c.dataset().path()).isEqualTo(scratch.resolve("t.jsonl"));
        assertThat(warnings).isEmpty();
    }
}
