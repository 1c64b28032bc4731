package io.isobench.exec;

import io.isobench.Arm;

import io.isobench.Golden;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.task.ArtifactSpec;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The vLLM form of prebuilt-artifact arms (examples/vllm-wheels), which cannot run here (no GPU): the local plan
 * (each arm's wheel URL, install into a prefix of its own, commit verification, the variables its commands get), the
 * {@code docker run} argv under examples/vllm-wheels/docker.yaml and the sbatch scripts, as golden files. After an
 * intended change: {@code mvn -o -q test -Dtest=VllmWheelsGoldenTest -Disobench.golden.rewrite=true}.
 */
class VllmWheelsGoldenTest {

    static final Path DIR = Path.of("src/test/resources/golden/vllm-wheels");
    static final Path WORK = Path.of("/srv/isobench/work");
    static final String PATH = "/usr/local/bin:/usr/bin:/bin";
    static final List<String> JOBS = List.of("3476ed08/baseline/check", "3476ed08/baseline/r0",
            "3476ed08/baseline-aa/r0", "3476ed08/human/r0");

    static Plan plan() {
        Suite suite = SuiteLoader.load(Path.of("examples/vllm-wheels/suite.yaml"));
        return Planner.plan(suite, new Planner.Options(1, 42L, WORK));
    }

    /** The job as the executor gets it: the arm's variables from its artifact added (what prepare records). */
    static Job armed(Plan plan, String id) {
        Job j = plan.jobs().stream().filter(x -> x.jobId().equals(id)).findFirst().orElseThrow();
        ArmSpec arm = plan.arm(j.taskId(), j.arm()).orElseThrow();
        Map<String, String> env = new LinkedHashMap<>(arm.artifact().variables(arm.worktree(), PATH, null));
        env.putAll(j.env()); // the perf_command's own VAR=value prefix wins, as in a session
        return j.withEnv(env);
    }

    @Test
    void theLocalPlanInstallsEachArmsWheelIntoItsOwnPrefix() throws Exception {
        Plan plan = plan();
        assertThat(plan.skipped()).isEmpty();
        ArmSpec base = plan.arm("3476ed08", Arm.BASELINE).orElseThrow();
        ArmSpec aa = plan.arm("3476ed08", Arm.BASELINE_AA).orElseThrow();
        ArtifactSpec.Resolved w = base.artifact();
        assertThat(w.source()).isEqualTo("https://wheels.vllm.ai/54600709b6d419fb243ce718a48ab7d40f5c3eb7/"
                + "vllm-1.0.0.dev-cp38-abi3-manylinux1_x86_64.whl");
        assertThat(w.verify()).isEqualTo(ArtifactSpec.Verify.COMMIT);
        assertThat(aa.worktree()).isNotEqualTo(base.worktree());
        assertThat(w.installArgv("{file}", base.worktree(), "python3")).contains("--target",
                WORK + "/envs/3476ed08/baseline/site");
        Golden.check(DIR.resolve("plan.txt"), plan.toText());
    }

    @Test
    void dockerRunsTheArmsPrefixInACudaImage() throws Exception {
        DockerConfig profile = DockerConfig.load(Path.of("examples/vllm-wheels/docker.yaml"));
        Plan plan = plan();
        StringBuilder out = new StringBuilder("# docker run argv of examples/vllm-wheels under"
                + " examples/vllm-wheels/docker.yaml, with the env file each run gets (golden; VllmWheelsGoldenTest)\n");
        for (String id : JOBS) {
            Job j = armed(plan, id);
            List<String> argv = DockerExecutor.runArgv(profile, "nvidia", j, j.argvFor(18000), new DockerExecutor.Container(profile.image(j.taskId(), j.arm().label(),
                    null), DockerExecutor.containerName(j), Path.of("/tmp/isobench-docker-0/env"), "1000:1000",
                    List.of(0), null), "/home/bench");
            out.append("\n# ").append(id).append('\n').append(DockerRunGoldenTest.quote(argv)).append('\n');
            new TreeMap<>(j.env()).forEach((k, v) -> out.append("#   env file: ").append(k).append('=').append(v)
                    .append('\n'));
        }
        String actual = out.toString();
        assertThat(actual).contains("-v " + WORK + "/envs/3476ed08/baseline:" + WORK + "/envs/3476ed08/baseline")
                .contains("PYTHONPATH=" + WORK + "/envs/3476ed08/baseline-aa/site")
                .contains("python3 -m vllm.entrypoints.openai.api_server");
        Golden.check(DIR.resolve("docker-run.txt"), actual);
    }

    @Test
    void slurmScriptsExportTheArmsPrefix() throws Exception {
        Plan plan = plan();
        for (String id : List.of("3476ed08/baseline/check", "3476ed08/human/r0")) {
            Job j = armed(plan, id);
            String script = SlurmExecutor.script(j, "golden", SlurmExecutor.jobDir(SlurmConfig.DEFAULT, "golden", j),
                    SlurmConfig.DEFAULT, null);
            assertThat(script).contains(WORK + "/envs/3476ed08/" + j.arm() + "/site");
            Golden.check(DIR.resolve(id.replace("/", "_").replace(":", "_") + ".sbatch"), script);
        }
    }

    @Test
    void theWheelsVersionMustCarryTheCommit() {
        ArtifactSpec.Resolved w = plan().arm("3476ed08", Arm.HUMAN).orElseThrow().artifact();
        assertThat(Map.of("commit", w.commit(), "expected", w.expectedVersion())).containsEntry("expected",
                "3476ed0809ec91a3457da0cb90543133a4f4b519");
    }
}
