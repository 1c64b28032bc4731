package io.isobench.harbor;

import io.isobench.ToyRepo;
import io.isobench.cli.Main;
import io.isobench.task.GenericTask;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench tasks import harbor} on the two handmade tasks: the performance task maps to a generic offline task
 * (parent = the bundle's HEAD, human = its solution's diff committed, primary metric runtime_sec, lower is better);
 * the pass/fail task is listed as not mappable with its reason.
 */
class HarborImportTest {

    static final Path TASKS = Path.of("src/test/resources/harbor");

    @TempDir
    Path tmp;

    @Test
    void thePerformanceTaskMapsAndThePassFailTaskIsListed() throws Exception {
        Path out = tmp.resolve("imported/suite.yaml");
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = Main.run(new PrintWriter(o), new PrintWriter(e), "tasks", "import", "harbor",
                TASKS.resolve("sum-speedup").toString(), TASKS.resolve("hello-passfail").toString(),
                "--out", out.toString());
        assertThat(code).as(e.toString()).isZero();
        assertThat(o.toString()).contains(TASKS.resolve("hello-passfail") + ": not mappable: tests/test.sh writes no"
                + " reward.json (reward.txt is one pass/fail number, no performance metric)");
        assertThat(o.toString()).contains("1 task(s) [sum-speedup], 1 not mappable");
        Suite s = SuiteLoader.load(out);
        assertThat(s.tasks()).extracting(TaskSpec::id).containsExactly("sum-speedup");
        TaskSpec t = s.tasks().getFirst();
        Path repo = tmp.resolve("imported/suite-repo.git");
        String head = ToyRepo.run(tmp, "git", "--git-dir=" + repo, "rev-parse", "harbor/sum-speedup^").strip();
        assertThat(t.parentCommit()).isEqualTo(head);
        String diff = ToyRepo.run(tmp, "git", "--git-dir=" + repo, "diff", t.parentCommit(), t.humanCommit());
        assertThat(diff).contains("+    return n * (n - 1) // 2");
        GenericTask.Offline off = t.generic().offline();
        assertThat(off.primary()).isEqualTo("runtime_sec");
        assertThat(off.metrics().getFirst().better().label()).isEqualTo("lower");
        assertThat(Files.isRegularFile(tmp.resolve("imported/harbor/sum-speedup/test.sh"))).isTrue();
    }

    @Test
    void eachRuleThatFailsIsTheReason() throws Exception {
        assertThat(HarborImport.reason(TASKS.resolve("sum-speedup"))).isNull();
        assertThat(HarborImport.perfKey("printf '{\"reward\": %d, \"runtime_sec\": %s}'")).isEqualTo("runtime_sec");
        assertThat(HarborImport.perfKey("echo '{\"reward\": 1, \"tok_per_s\": 3}'")).isEqualTo("tok_per_s");
        assertThat(HarborImport.perfKey("printf \"{\\\"reward\\\": 1, \\\"load_ms\\\": 3}\"")).isEqualTo("load_ms");
        assertThat(HarborImport.lowerIsBetter("tok_per_s")).isFalse();
        assertThat(HarborImport.unit("tok_per_s")).isEqualTo("tok/s");
        assertThat(HarborImport.unit("load_ms")).isEqualTo("ms");
        assertThat(HarborImport.perfKey("echo '{\"reward\": 1, \"passed\": 3}'")).isNull();
        Path noRepo = tmp.resolve("no-repo");
        copy(TASKS.resolve("sum-speedup"), noRepo);
        Files.delete(noRepo.resolve("environment/sum.bundle"));
        assertThat(HarborImport.reason(noRepo)).startsWith("environment/ holds no git repository");
        Path noPatch = tmp.resolve("no-patch");
        copy(TASKS.resolve("sum-speedup"), noPatch);
        Files.delete(noPatch.resolve("solution/closed-form.diff"));
        assertThat(HarborImport.reason(noPatch)).startsWith("solution/ holds no patch file");
        Path passFail = tmp.resolve("pass-fail-json");
        copy(TASKS.resolve("sum-speedup"), passFail);
        Files.writeString(passFail.resolve("tests/test.sh"), "echo '{\"reward\": 1}' > /logs/verifier/reward.json\n");
        assertThat(HarborImport.reason(passFail)).startsWith("reward.json has no performance key (keys [reward]");
        Path bad = tmp.resolve("bad");
        copy(TASKS.resolve("sum-speedup"), bad);
        Files.writeString(bad.resolve("task.toml"), "[task]\nname = \"nope\"\n");
        assertThat(HarborImport.reason(bad)).startsWith("fails Harbor's task format: task.toml: [task].name:");
    }

    private static void copy(Path src, Path dst) throws Exception {
        try (var walk = Files.walk(src)) {
            for (Path p : walk.sorted().toList()) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }
}
