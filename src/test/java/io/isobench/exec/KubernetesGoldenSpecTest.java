package io.isobench.exec;

import io.isobench.Arm;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.isobench.SharedData;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.task.AgentSpec;
import io.isobench.task.Suite;
import io.isobench.task.TaskImport;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.yaml.snakeyaml.Yaml;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden Job specs for real ISO-Bench vLLM tasks: the perf_commands come from the task import of
 * {@code full_results.jsonl}, the profile is {@code examples/vllm-gpu/isobench-profile.yaml}'s shape. Intended
 * change: {@code mvn -o -q test -Dtest=KubernetesGoldenSpecTest -Disobench.golden.rewrite=true}, review the diff.
 */
class KubernetesGoldenSpecTest {

    static final String DATA =
            "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/exports/full_results.jsonl";
    static final Path GOLDEN = Path.of("src/test/resources/golden/k8s");
    static final Path PROFILE = Path.of("examples/vllm-gpu/isobench-profile.yaml");

    @ParameterizedTest(name = "{0} ({1})")
    @CsvSource({
            "6d0734c5, serving TP=1 Mistral-7B, 1",
            "8aa1485f, serving TP=4 Llama-4-Scout, 4",
            "310aca88, latency TP=4 Llama-3-70B dummy weights, 4",
            "886936837c, serving with --enable-prefix-caching, 1",
            "2deb029d, benchmark_prefix_caching.py, 1",
            "3b61cb45, latency TP=1 batch 32, 1"})
    void jobSpecsMatchTheGoldenFiles(String id, String what, int gpus) throws Exception {
        Suite imported = TaskImport.fromIsoBench(SharedData.require(DATA), TaskImport.DEFAULT_REPO).suite();
        TaskSpec task = RealTasks.runnable(imported.tasks().stream().filter(t -> t.humanCommit().startsWith(id))
                .findFirst().orElseThrow(() -> new AssertionError("no task " + id + " in " + DATA)));
        Path patch = GOLDEN.resolve("agent-6d0734c5.diff").toAbsolutePath();
        Suite suite = new Suite(null, imported.engine(), List.of(task),
                List.of(new AgentSpec("claude-code", null, Map.of(task.id(), patch))), imported.run());
        Plan plan = Planner.plan(suite, new Planner.Options(1, null, Path.of("/work/isobench-work")));
        assertThat(plan.skipped()).as("lint must accept %s", id).isEmpty();
        KubernetesProfile profile = KubernetesProfile.load(PROFILE);
        KubernetesExecutor.Arms arms = KubeSuiteArms.suiteArms(suite, profile, h -> null);
        KubernetesSerialization yaml = new KubernetesSerialization();
        StringBuilder out = new StringBuilder("# " + task.id() + ": " + what + "\n# perf_command: "
                + task.perfCommand() + "\n");
        List<Job> picked = new ArrayList<>();
        for (Job j : plan.jobs()) {
            boolean measure = j.kind() == Job.Kind.MEASURE;
            if (measure || j.arm().equals(Arm.HUMAN)) {
                picked.add(j);
            }
        }
        for (Job j : picked) {
            assertThat(j.gpus()).isEqualTo(gpus);
            KubernetesExecutor.Resolved r = arms.resolve(j.taskId(), j.arm().label());
            assertThat(r.failure()).isNull();
            KubeJobSpec.Spec spec = KubeJobSpec.build(profile, j, r.image(), "golden/" + j.jobId(), "0000");
            out.append("# --- job ").append(j.jobId()).append('\n');
            if (spec.patch() != null) {
                out.append(yaml.asYaml(spec.patch()));
            }
            out.append(yaml.asYaml(spec.job()));
            String text = yaml.asYaml(spec.job());
            assertThat(text).doesNotContain("hf_").doesNotContain("{port}").doesNotContain("sh -c");
            new Yaml().loadAll(text).forEach(d -> assertThat(d).isNotNull());
        }
        Path golden = GOLDEN.resolve(task.id() + ".yaml");
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.writeString(golden, out.toString(), StandardCharsets.UTF_8);
        }
        assertThat(golden).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
        assertThat(out.toString()).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }
}
