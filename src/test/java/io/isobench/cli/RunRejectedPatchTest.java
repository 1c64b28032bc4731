package io.isobench.cli;

import io.isobench.ToyRepo;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 7: an agent patch the review fails ({@code BINARY_FILE}, a {@code GIT binary patch} of a file
 * full of zeros, as a sparse file becomes) is never applied: {@code isobench run} on the real toy engine reports the
 * arm {@code PATCH_REJECTED} with the failing finding, no worktree holds the patch's file, and not one of the arm's
 * runs measured anything, while the other arms run as usual. Before, the arm was prepared (the patch applied) and
 * measured every round, its verdict merely marked incorrect.
 */
class RunRejectedPatchTest {

    @TempDir
    Path dir;

    @Test
    void aPatchTheReviewFailsIsNeverAppliedNorMeasured() throws Exception {
        io.isobench.SharedData.requireSandbox();
        Path repo = dir.resolve("repo");
        ToyRepo.build(repo);
        // the agent's patch: a 1 MiB file of zeros, as git diff --binary writes it (a few KB of patch)
        Path scratch = dir.resolve("scratch");
        ToyRepo.run(dir, "git", "clone", "-q", repo.toString(), scratch.toString());
        ToyRepo.run(scratch, "git", "checkout", "-q", "baseline");
        Files.write(scratch.resolve("zeros.bin"), new byte[1 << 20]);
        ToyRepo.run(scratch, "git", "add", "zeros.bin");
        Path patch = dir.resolve("sparse.patch");
        Files.writeString(patch, ToyRepo.run(scratch, "git", "diff", "--cached", "--binary"));
        assertThat(Files.readString(patch)).contains("GIT binary patch");

        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine:",
                "  repo: ./repo",
                "  name: toy",
                "tasks:",
                "  - id: lat",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model}",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --num-iters 2 --num-iters-warmup 1",
                "    correctness: {prompts: 1, max_tokens: 4}",
                "agents:",
                "  - name: sparse",
                "    patches: {lat: " + patch + "}",
                "run: {rounds: 1, seed: 1, warmup_requests: 0, timeouts: {server_start_s: 20, run_s: 60}}",
                ""));
        String db = dir.resolve("db.duckdb").toString();
        Path work = dir.resolve("w");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db, "run", suite.toString(),
                "--workdir", work.toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(err.toString()).contains("env lat agent:sparse: PATCH_REJECTED — the patch review fails the arm; "
                + "its patch was not applied: BINARY_FILE zeros.bin");
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(f -> f.getFileName().toString().equals("zeros.bin"))
                    .filter(f -> !f.startsWith(scratch)).toList()).as("no worktree got the patch's file").isEmpty();
        }
        try (Store store = Stores.open(db)) {
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, null, false), runs::add);
            List<RunRecord> agent = runs.stream().filter(r -> r.arm().label().equals("agent:sparse")).toList();
            assertThat(agent).as("its check and its round are recorded").hasSize(2).allSatisfy(r -> {
                assertThat(r.failure().category()).isEqualTo("PATCH_REJECTED");
                assertThat(r.metrics()).as("nothing measured").isEmpty();
            });
            assertThat(runs.stream().filter(r -> !r.arm().label().equals("agent:sparse")))
                    .isNotEmpty().allSatisfy(r -> assertThat(r.status()).as(r.runId() + " " + r.failure())
                            .isEqualTo(RunRecord.RunStatus.SUCCESS));
        }
    }
}
