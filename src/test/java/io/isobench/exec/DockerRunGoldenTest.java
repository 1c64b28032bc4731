package io.isobench.exec;

import io.isobench.SharedData;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.task.AgentSpec;
import io.isobench.task.ClientConfig;
import io.isobench.task.Suite;
import io.isobench.task.TaskImport;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden {@code docker run} argv of real ISO-Bench vLLM tasks (imported from the claude-code 3-way export) under the
 * shipped GPU profile examples/docker/vllm-h100.yaml: TP=1 serving with prefix caching, TP=4 serving, TP=4 latency,
 * TP=1 latency, the prefix-caching benchmark; baseline, human and agent arms, plus the correctness check's server.
 * A second golden shows the fake-device mode (no NVIDIA runtime: {@code --device} + {@code CUDA_VISIBLE_DEVICES}) and
 * the local-source default. After an intended change: {@code mvn -o -q test -Dtest=DockerRunGoldenTest
 * -Disobench.golden.rewrite=true}, review the diff.
 */
class DockerRunGoldenTest {

    static final Path GOLDEN_GPU = Path.of("src/test/resources/golden/docker-run-vllm-h100.txt");
    static final Path GOLDEN_LOCAL = Path.of("src/test/resources/golden/docker-run-fake-gpus.txt");
    static final List<String> TASKS = List.of("660470e5", "8aa1485f", "310aca88", "3b61cb45", "2deb029d");
    static final Path WORKDIR = Path.of("/srv/isobench/work");
    static final Path ENV_FILE = Path.of("/tmp/isobench-docker-0/env");
    static final Path PATCH = Path.of("/tmp/isobench-docker-0/agent.patch");

    @Test
    void vllmProfileArgvMatchesTheGoldenFile() throws Exception {
        DockerConfig profile = DockerConfig.load(Path.of("examples/docker/vllm-h100.yaml"));
        assertThat(profile.gpuMode()).isEqualTo("nvidia");
        Plan plan = plan();
        StringBuilder out = new StringBuilder("# docker run argv of real ISO-Bench vLLM tasks under "
                + "examples/docker/vllm-h100.yaml (golden; DockerRunGoldenTest)\n");
        for (String task : TASKS) {
            for (String jobId : List.of(task + "/baseline/r0", task + "/human/r0", task + "/agent:claude_code/r0",
                    task + "/human/check")) {
                Job j = plan.jobs().stream().filter(x -> x.jobId().equals(jobId)).findFirst().orElseThrow();
                ArmSpec arm = plan.arm(j.taskId(), j.arm()).orElseThrow();
                List<String> argv = DockerExecutor.runArgv(profile, "nvidia", j, resolved(j),
                        new DockerExecutor.Container(profile.image(j.taskId(), j.arm().label(), arm.commitRef()),
                                DockerExecutor.containerName(j), ENV_FILE, "1000:1000", gpus(j),
                                j.arm().kind() == Arm.Kind.AGENT ? PATCH : null), "/home/bench");
                out.append("\n# ").append(jobId).append(" — ").append(j.mode()).append(", ").append(j.gpus())
                        .append(" GPU(s), commit ").append(arm.commitRef())
                        .append(arm.commitRef().endsWith("^") ? " (at run time {commit} is the worktree's HEAD sha)" : "").append('\n').append(quote(argv)).append('\n');
            }
        }
        String actual = out.toString();
        // properties the golden file must keep
        assertThat(actual).contains("--gpus '\"device=0,1,2,3\"'").contains("--gpus '\"device=0\"'")
                .contains("--enable-prefix-caching").contains("-tp 4").contains("--tensor-parallel-size 4")
                .contains("--shm-size 16g").contains("--ipc=host").contains("--env-file " + ENV_FILE)
                .contains("-v /home/bench/.cache/huggingface:/root/.cache/huggingface").doesNotContain("hf_").doesNotContain("--user")
                .contains("-v " + PATCH + ":/isobench/agent.patch:ro").contains("benchmarks/benchmark_prefix_caching.py")
                .contains("vllm-ci-postmerge-repo:660470e5");
        golden(GOLDEN_GPU, actual);
    }

    @Test
    void fakeDevicesAndTheLocalSourceDefault() throws Exception {
        DockerConfig fake = DockerConfig.fromMap(Map.of("gpus", "devices", "gpu_device", "/dev/fakegpu{i}"));
        Plan plan = plan();
        StringBuilder out = new StringBuilder("# docker run argv with the default settings (worktree bind-mounted, "
                + "image " + DockerConfig.DEFAULT_IMAGE + ") and fake GPU devices (golden; DockerRunGoldenTest)\n");
        for (String jobId : List.of("310aca88/agent:claude_code/r0", "660470e5/baseline/r0")) {
            Job j = plan.jobs().stream().filter(x -> x.jobId().equals(jobId)).findFirst().orElseThrow();
            // a server (the baseline's) gets its door: the network is none, the bridge runs in front of its argv
            DockerExecutor.DoorMount door = j.serving() ? new DockerExecutor.DoorMount(Path.of("/tmp/isobench-net-0"), 18000,
                    Path.of("/opt/jdk-21")) : null;
            List<String> argv = DockerExecutor.runArgv(fake, "devices", j, resolved(j),
                    new DockerExecutor.Container(fake.image(j.taskId(), j.arm().label(), null), DockerExecutor.containerName(j),
                            ENV_FILE, "1000:1000", gpus(j), null, door), "/home/bench");
            out.append("\n# ").append(jobId).append('\n').append(quote(argv)).append('\n');
        }
        String actual = out.toString();
        assertThat(actual).contains("--device /dev/fakegpu0 --device /dev/fakegpu1 --device /dev/fakegpu2 "
                + "--device /dev/fakegpu3").doesNotContain("--gpus").contains("--user 1000:1000")
                .contains("-v " + WORKDIR + "/envs/310aca88/claude-code:" + WORKDIR + "/envs/310aca88/claude-code")
                .contains("sh -c 'exec 2>&1; exec \"$@\"' isobench").contains("--network none")
                .doesNotContain("--network host")
                .contains("-v /tmp/isobench-net-0:/tmp/isobench-net -v /opt/jdk-21:/opt/isobench-jdk:ro")
                .contains("isobench /opt/isobench-jdk/bin/java ").contains(" io.isobench.proc.NetBridge"
                        + " /tmp/isobench-net/s 18000 -- python -m vllm.entrypoints.openai.api_server");
        golden(GOLDEN_LOCAL, actual);
    }

    @Test
    void imageTemplatesPickTheArm() {
        DockerConfig c = DockerConfig.fromMap(Map.of("images", Map.of("baseline", "reg/vllm:{commit}",
                "human", "reg/vllm:{commit_short}", "agent:bravo", "reg/bravo-{task}:{agent}")));
        assertThat(c.image("t1", "baseline", "ABCDEF0123456789")).isEqualTo("reg/vllm:abcdef0123456789");
        assertThat(c.image("t1", "human", "ABCDEF0123456789")).isEqualTo("reg/vllm:abcdef012345");
        assertThat(c.image("t1", "agent:alpha", "abc")).as("agent arms default to the baseline image")
                .isEqualTo("reg/vllm:abc");
        assertThat(c.image("t1", "agent:bravo", "abc")).isEqualTo("reg/bravo-t1:bravo");
        assertThat(DockerConfig.DEFAULT.image("t", "human", null)).isEqualTo(DockerConfig.DEFAULT_IMAGE);
    }

    @Test
    void containerNamesAreStableAndDockerSafe() {
        Job a = job("tpot/agent:alpha/r0", Path.of("/w/envs/tpot/alpha"));
        assertThat(DockerExecutor.containerName(a)).matches("isobench-tpot_agent_alpha_r0-[0-9a-f]{10}")
                .isEqualTo(DockerExecutor.containerName(job("tpot/agent:alpha/r0", Path.of("/w/envs/tpot/alpha"))))
                .isNotEqualTo(DockerExecutor.containerName(job("tpot/agent:alpha/r0", Path.of("/x/envs/tpot/alpha"))));
    }

    @Test
    void profileErrorsNameTheKey() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DockerConfig.fromMap(Map.of("shm", "1g")))
                .hasMessageContaining("shm: unknown key");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DockerConfig.fromMap(Map.of("gpus", "all")))
                .hasMessageContaining("gpus (all) must be one of");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DockerConfig.fromMap(Map.of("mount_worktree", false)))
                .hasMessageContaining("source_dir");
    }

    private static Job job(String id, Path cwd) {
        return new Job(new Job.Place(0, id, "t", 0), Arm.agent("alpha"), Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("python3", "x.py")), ClientConfig.NONE, 0, null),
                new Job.Where(cwd, Map.of(), 1), Job.Limits.ofSeconds(10, 10));
    }

    /** The imported tasks with one agent (patch files are only named, never read, by the planner). */
    private static Plan plan() {
        Path data = SharedData.isobenchData().resolve(
                "archive/results/2026-01/omniperf_results_3way_claude_code/exports/full_results.jsonl");
        TaskImport.Result r = TaskImport.fromIsoBench(data, TaskImport.DEFAULT_REPO);
        List<TaskSpec> tasks = new ArrayList<>();
        for (String id : TASKS) {
            tasks.add(RealTasks.runnable(r.tasks().stream().filter(t -> t.id().equals(id)).findFirst().orElseThrow(() ->
                    new AssertionError("task " + id + " not in " + data))));
        }
        Map<String, Path> patches = new LinkedHashMap<>();
        TASKS.forEach(t -> patches.put(t, Path.of("/srv/isobench/patches/claude-code/" + t + ".diff")));
        Suite s = new Suite(null, r.suite().engine(), tasks, List.of(new AgentSpec("claude-code", null, patches)),
                r.suite().run());
        Plan plan = Planner.plan(s, new Planner.Options(1, 42L, WORKDIR));
        assertThat(plan.skipped()).as("all five tasks are runnable").isEmpty();
        return plan;
    }

    /** The job's command as the executor runs it: port resolved, the GPU lease in CUDA_VISIBLE_DEVICES. */
    private static List<String> resolved(Job j) {
        return j.argvFor(18000);
    }

    private static List<Integer> gpus(Job j) {
        return IntStream.range(0, j.gpus()).boxed().toList();
    }

    static String quote(List<String> argv) {
        List<String> out = new ArrayList<>();
        for (String a : argv) {
            out.add(a.matches("[A-Za-z0-9_./:=,@%+-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return String.join(" ", out);
    }

    private static void golden(Path file, String actual) throws Exception {
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.writeString(file, actual, StandardCharsets.UTF_8);
        }
        assertThat(file).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
        assertThat(actual).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }
}
