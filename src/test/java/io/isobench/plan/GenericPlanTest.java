package io.isobench.plan;

import io.isobench.Arm;

import io.isobench.Golden;
import io.isobench.parse.MetricRule;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plan of the llama2.c example (generic engine adapter): the bundle's clone and the checkpoint generator as setup
 * steps, {@code {workdir}} filled in, the readouts (the baseline's first check lints every rule, the other checks read
 * the text only), and the whole plan as a golden file (a contract: {@code --dry-run --format json}). Rewrite after an
 * intended change with {@code mvn -o -q test -Dtest=GenericPlanTest -Disobench.golden.rewrite=true}.
 */
class GenericPlanTest {

    static final Path SUITE = Path.of("examples/llama2c/suite.yaml");
    static final Path GOLDEN = Path.of("src/test/resources/golden/plan-llama2c.json");
    static final Path WORK = Path.of("/isobench-work");

    static Plan plan() {
        Suite suite = SuiteLoader.load(SUITE, false);
        return Planner.plan(suite, new Planner.Options(null, null, WORK));
    }

    @Test
    void setupStepsCloneTheBundleAndGenerateTheCheckpoint() {
        Plan p = plan();
        assertThat(p.repo()).isEqualTo(WORK.resolve("repos/llama2.c"));
        assertThat(p.setup()).extracting(SetupStep::what).containsExactly("clone", "setup");
        SetupStep clone = p.setup().get(0);
        assertThat(clone.argv()).containsExactly("git", "clone", "--quiet", SUITE.toAbsolutePath().getParent()
                .resolve("../../../shared/engines/llama2.c.bundle").normalize().toString(), "/isobench-work/repos/llama2.c");
        assertThat(clone.creates()).isEqualTo(WORK.resolve("repos/llama2.c"));
        assertThat(p.setup().get(1).argv()).contains("/isobench-work/llama2c-model.bin").first().isEqualTo("python3");
        assertThat(p.setup().get(1).creates()).isNull();
    }

    @Test
    void jobsCarryTheirReadouts() {
        Plan p = plan();
        // adaptive rounds (the example's run.rounds): up to 8 rounds × 12 arms, planned whole; tasks stop earlier
        assertThat(p.header().roundsPlan().adaptive()).isTrue();
        assertThat(p.jobs()).hasSize(108);
        assertThat(p.measuredJobs()).isEqualTo(96);
        Job lint = job(p, "topp-filter/baseline/check");
        assertThat(lint.argv()).containsExactly("./run", "/isobench-work/llama2c-model.bin", "-t", "0.3", "-p", "0.9",
                "-s", "42", "-n", "512");
        assertThat(lint.readout().metrics()).extracting(MetricRule::name).containsExactly("tok_s");
        assertThat(lint.readout().output().describe()).isEqualTo("stdout (whole text)");
        assertThat(job(p, "topp-filter/baseline/check-repeat").readout().metrics()).isEmpty();
        assertThat(job(p, "topp-filter/human/check").readout().metrics()).isEmpty();
        Job r0 = job(p, "vocab-bsearch/human/r0");
        assertThat(r0.generic()).isTrue();
        assertThat(r0.readout().primary()).isEqualTo("command_cpu_s");
        assertThat(r0.readout().output()).isNull();
        assertThat(r0.argv()).contains("-i").last().asString().startsWith("Once upon a time, in a small village");
        assertThat(p.arms()).filteredOn(a -> a.arm().equals(Arm.agent("stale_base"))).singleElement()
                .satisfies(a -> assertThat(a.build()).containsExactly("make", "run"));
    }

    @Test
    void thePlanMatchesTheGoldenFile() throws IOException {
        String root = SUITE.toAbsolutePath().getParent().getParent().getParent().normalize().toString();
        String actual = plan().toJson().replace(root, "<PROJECT>").replace(SUITE.toAbsolutePath().getParent()
                .resolve("../../../shared").normalize().toString(), "<SHARED>");
        Golden.check(GOLDEN, actual);
    }

    private static Job job(Plan p, String id) {
        List<Job> js = p.jobs().stream().filter(j -> j.jobId().equals(id)).toList();
        assertThat(js).as(id).hasSize(1);
        return js.get(0);
    }
}
