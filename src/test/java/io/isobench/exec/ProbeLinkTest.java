package io.isobench.exec;

import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 2: the offline probe writes its prompts file into the arm's worktree; a link planted under that name
 * (by an agent patch) to a file outside the worktree is refused, never written through.
 */
class ProbeLinkTest {

    @TempDir
    Path dir;

    @Test
    void thePromptsFileIsNeverWrittenThroughAPlantedLink() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Path outside = Files.writeString(dir.resolve("victim.txt"), "precious\n");
        Files.createSymbolicLink(tree.resolve(".isobench-probe-prompts.jsonl"), outside);
        Job job = new Job(new Job.Place(0, "t/agent:x/check", "t", -1), Arm.agent("x"), Mode.LATENCY,
                new JobSpec.Check(Command.template(List.of("python3", "-c", "import sys; print(open(sys.argv[1]).read())", "{prompts_file}")),
                new JobSpec.Probes("m", 2, 4, 0.0, false, JobSpec.Via.OFFLINE, false), null),
                new Job.Where(tree, Map.of(), 1), Job.Limits.ofSeconds(10, 30));
        JobResult r = Executors.create("local").execute(job, Executor.Hooks.NONE);
        assertThat(Files.readString(outside)).isEqualTo("precious\n");
        assertThat(r.success()).isFalse();
        assertThat(r.failure().detail()).contains(".isobench-probe-prompts.jsonl").contains("outside the worktree");
    }
}
