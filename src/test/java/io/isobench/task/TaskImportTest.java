package io.isobench.task;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Tasks are keyed by the full hash: an 8-character id and the 40-character hash of one commit are one task. */
class TaskImportTest {

    @Test
    void shortAndFullHashesOfOneCommitAreOneTask(@TempDir Path dir) throws Exception {
        String full = "299ebb62b269ce167eb1c71b5e39a1dc1f65ce1c";
        String other = "299ebb62ffffffffffffffffffffffffffffffff"; // same 8 characters, another commit
        Path rows = dir.resolve("rows.jsonl");
        Files.writeString(rows, String.join("\n",
                "{\"commit_hash\": \"299ebb62\", \"perf_command\": null, \"agent_name\": \"codex\"}",
                "{\"commit_hash\": \"" + full + "\", \"parent_commit\": \"abc\", \"perf_command\": \"python"
                        + " benchmarks/benchmark_latency.py --model facebook/opt-125m\", \"gpu_config\": \"H100:1\","
                        + " \"agent_name\": \"claude_code\"}",
                "{\"commit_hash\": \"" + full.toUpperCase() + "\", \"perf_command\": \"ignored: the first one wins\"}",
                "{\"commit_hash\": \"" + other + "\", \"perf_command\": \"python benchmarks/benchmark_latency.py"
                        + " --model facebook/opt-125m\"}") + "\n");
        TaskImport.Result r = TaskImport.fromIsoBench(rows, TaskImport.DEFAULT_REPO);
        assertThat(r.tasks()).extracting(TaskSpec::id).containsExactly("299ebb62", "299ebb62-2");
        TaskSpec t = r.tasks().get(0);
        assertThat(t.humanCommit()).isEqualTo(full);
        assertThat(t.parentCommit()).isEqualTo("abc");
        assertThat(t.perfCommand()).startsWith("python benchmarks/benchmark_latency.py");
        assertThat(t.gpus()).isEqualTo(1);
        assertThat(r.tasks().get(1).humanCommit()).isEqualTo(other);
    }
}
