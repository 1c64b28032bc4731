package io.isobench.probe;

import io.isobench.loadgen.StreamingTestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The serving client of every arm reads a task's relative sonnet file from the arm's worktree (docs/loadgen.md). */
class LoadgenServingClientTest {

    @Test
    void aTasksSonnetFileComesFromTheArmsWorktree(@TempDir Path worktree) throws Exception {
        Files.createDirectories(worktree.resolve("benchmarks"));
        Files.copy(Path.of("src/test/resources/sonnet/sonnet.txt"), worktree.resolve("benchmarks/sonnet.txt"));
        Map<String, String> flags = Map.of("dataset-name", "sonnet", "dataset-path", "benchmarks/sonnet.txt",
                "sonnet-input-len", "256", "sonnet-output-len", "4", "num-prompts", "4");
        try (StreamingTestServer server = new StreamingTestServer(0, 1, 1, 0)) {
            URI base = URI.create(server.baseUrl());
            ServingClient client = Clients.serving();
            ServingClient.Result inTree = client.run(base, new ServingClient.Workload("m", flags, 0, 3L, worktree));
            assertThat(inTree.workloadJson()).contains("\"dataset\":\"sonnet:sonnet.txt,in=256,out=4,prefix=200\"")
                    .contains("\"prompts_sha256\":\"");
            assertThat(inTree.console()).doesNotContain("warning");
            // the same flags and seed from another worktree holding the same file: the same prompts, byte for byte
            Path other = Files.createDirectories(worktree.resolve("arm-b/benchmarks")).getParent();
            Files.copy(worktree.resolve("benchmarks/sonnet.txt"), other.resolve("benchmarks/sonnet.txt"));
            String digest = inTree.workloadJson().replaceAll(".*\"prompts_sha256\":\"([0-9a-f]{64})\".*", "$1");
            assertThat(client.run(base, new ServingClient.Workload("m", flags, 0, 3L, other)).workloadJson())
                    .contains(digest);
            // the engine repo's file at an absolute path on the machine that wrote the command: the worktree's copy
            Map<String, String> absolute = new HashMap<>(flags);
            absolute.put("dataset-path", "/home/ray/vllm/benchmarks/sonnet.txt");
            ServingClient.Result fromRepo = client.run(base, new ServingClient.Workload("m", absolute, 0, 3L, other));
            assertThat(fromRepo.workloadJson()).contains(digest);
            assertThat(fromRepo.console()).contains("is the engine repo's benchmarks/sonnet.txt")
                    .contains("read from the arm's worktree instead");
            // no worktree holds it: random prompts, said on the console
            ServingClient.Result none = client.run(base, new ServingClient.Workload("m", flags, 0, 3L,
                    worktree.resolve("arm-b/benchmarks")));
            assertThat(none.workloadJson()).contains("\"dataset\":\"random:");
            assertThat(none.console()).contains("warning: --dataset-name sonnet file ")
                    .contains("does not exist; random prompts instead");
        }
    }

    /** A trace in the worktree: replayed from the private copy, whose bytes the fingerprint's trace_sha256 names. */
    @Test
    void aTasksTraceInTheWorktreeIsReplayedAndFingerprintedFromItsCopy(@TempDir Path worktree) throws Exception {
        Path trace = Files.copy(Path.of("src/test/resources/timed-trace/small.jsonl"), worktree.resolve("t.jsonl"));
        Map<String, String> flags = Map.of("dataset-name", "timed-trace", "dataset-path", "t.jsonl",
                "timed-trace-chunk-hash-size", "4", "timed-trace-sec-multiplier", "0.001", "trace-speedup", "10",
                "ignore-eos", "true");
        try (StreamingTestServer server = new StreamingTestServer(0, 1, 1, 0)) {
            ServingClient.Result r = Clients.serving().run(URI.create(server.baseUrl()),
                    new ServingClient.Workload("m", flags, 0, 3L, worktree));
            String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(trace)));
            assertThat(r.workloadJson()).contains("\"trace_sha256\":\"" + sha + "\"")
                    .contains("\"dataset\":\"timed_trace:t.jsonl,");
            assertThat(server.requests.get()).isPositive();
        }
    }

    /**
     * The arm's build or server swapped the task's sonnet file for a link to a file of the machine: the client fails
     * the run without reading it, and the server never sees a request (docs/security.md, "Files").
     */
    @Test
    void aSonnetFileSwappedForALinkFailsTheClientAndNothingIsSent(@TempDir Path dir) throws Exception {
        Path worktree = Files.createDirectories(dir.resolve("tree/benchmarks")).getParent();
        Path secret = Files.copy(Path.of("src/test/resources/sonnet/sonnet.txt"), dir.resolve("machine-file.txt"));
        Files.createSymbolicLink(worktree.resolve("benchmarks/sonnet.txt"), secret);
        Map<String, String> flags = Map.of("dataset-name", "sonnet", "dataset-path", "benchmarks/sonnet.txt",
                "sonnet-input-len", "256", "sonnet-output-len", "4", "num-prompts", "4");
        try (StreamingTestServer server = new StreamingTestServer(0, 1, 1, 0)) {
            URI base = URI.create(server.baseUrl());
            assertThatThrownBy(() -> Clients.serving().run(base, new ServingClient.Workload("m", flags, 0, 3L,
                    worktree))).isInstanceOf(ServingClient.ClientFailure.class)
                    .hasMessageStartingWith("loadgen: --dataset-path benchmarks/sonnet.txt in the arm's worktree "
                            + worktree + " is a symbolic link: not read");
            assertThat(server.requests.get()).isZero();
            assertThat(server.connections.get()).isZero();
        }
    }
}
