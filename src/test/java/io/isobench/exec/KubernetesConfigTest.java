package io.isobench.exec;

import io.isobench.Arm;

import io.isobench.IsobenchException;
import io.isobench.plan.Planner;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.yaml.snakeyaml.Yaml;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Profile loading and the one-line errors of a machine that cannot reach a cluster. */
@Isolated("it sets the JVM's user.home, which other tests read: nothing runs beside it (ItLocks)")
class KubernetesConfigTest {

    @Test
    void theExampleProfileLoads() {
        KubernetesProfile p = KubernetesProfile.load(Path.of("examples/vllm-gpu/isobench-profile.yaml"));
        assertThat(p.namespace()).isEqualTo("isobench");
        assertThat(p.imageTemplate("agent:claude-code")).isEqualTo("registry.example.com/isobench/vllm:{task}-base");
        assertThat(p.hfTokenSecret()).isEqualTo(new KubernetesProfile.SecretRef("hf-token", "token"));
        assertThat(p.tolerations()).hasSize(1);
    }

    @Test
    void theExampleSuitePlansEveryTaskAndEveryArmHasAnImage() {
        var suite = SuiteLoader.load(Path.of("examples/vllm-gpu/suite.yaml"), false);
        var plan = Planner.plan(suite, new Planner.Options(1, null,
                Path.of("/tmp/isobench-work")));
        assertThat(plan.skipped()).isEmpty();
        assertThat(suite.run().executor()).isEqualTo("kubernetes");
        KubernetesProfile p = KubernetesProfile.load(Path.of("examples/vllm-gpu/isobench-profile.yaml"));
        var arms = KubeSuiteArms.suiteArms(suite, p, h -> null);
        for (var a : plan.arms()) {
            assertThat(arms.resolve(a.taskId(), a.label()).failure()).as(a.taskId() + " " + a.arm()).isNull();
        }
        assertThat(plan.jobs()).filteredOn(j -> j.taskId().equals("310aca88")).allMatch(j -> j.gpus() == 4);
    }

    @Test
    void unknownKeysAndMissingTemplatesAreOneBadInput() {
        Map<?, ?> m = new Yaml().load("{namespace: x, imagez: {}, images: {human: a}}");
        assertThatThrownBy(() -> KubernetesProfile.fromMap("p.yaml", m))
                .isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("kubernetes.imagez: unknown key")
                .hasMessageContaining("needs human and baseline templates");
    }

    @Test
    void imageTemplatesAreFilledAndAnUnknownParentIsNamed() {
        assertThat(KubeSuiteArms.fill("r/vllm:{human_commit_short}-{task}", "t1", "0123456789abcdef", null, "",
                null)).isEqualTo("r/vllm:0123456789ab-t1");
        assertThat(KubeSuiteArms.fill("r/vllm:{parent_commit}", "t1", "aa", null, "", null))
                .isEqualTo("r/vllm:{parent_commit}");
    }

    @Test
    void withoutAProfileTheExecutorSaysWhereItLooked(@TempDir Path dir) throws Exception {
        assumeTrue(System.getenv(Executors.PROFILE_ENV) == null, "ISOBENCH_PROFILE is set here");
        Path suite = writeSuite(dir);
        assertThatThrownBy(() -> Executors.create("kubernetes", SuiteLoader.load(suite, false)))
                .isInstanceOf(IsobenchException.EnvironmentMissing.class)
                .hasMessageContaining("needs a profile").hasMessageContaining(dir.resolve("isobench-profile.yaml")
                        .toString()).hasMessageNotContaining("\n");
    }

    @Test
    void withoutAKubeconfigTheExecutorSaysHowToGetOne(@TempDir Path dir) throws Exception {
        assumeTrue(System.getenv(Executors.PROFILE_ENV) == null && System.getenv("KUBECONFIG") == null
                && System.getenv("KUBERNETES_SERVICE_HOST") == null, "a kubeconfig is configured here");
        Path suite = writeSuite(dir);
        Files.copy(Path.of("examples/vllm-gpu/isobench-profile.yaml"), dir.resolve("isobench-profile.yaml"));
        String home = System.getProperty("user.home");
        System.setProperty("user.home", dir.toString());
        try {
            assertThatThrownBy(() -> Executors.create("kubernetes", SuiteLoader.load(suite, false)))
                    .isInstanceOf(IsobenchException.EnvironmentMissing.class)
                    .hasMessageContaining("no kubeconfig").hasMessageContaining("get-credentials")
                    .hasMessageNotContaining("\n");
        } finally {
            System.setProperty("user.home", home);
        }
    }

    private static Path writeSuite(Path dir) throws Exception {
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                engine: {repo: https://github.com/vllm-project/vllm, name: vllm}
                tasks:
                  - id: 6d0734c5
                    human_commit: 6d0734c562e759fdb7076d762222b3881e62ab1f
                    perf_command: python benchmarks/benchmark_latency.py --model facebook/opt-125m
                """);
        return suite;
    }
}
