package io.isobench.exec;

import io.isobench.SharedData;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.GpuSlots;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.probe.Clients;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The executor contract on the docker executor: a real dockerd (scripts/provision-docker starts one) and the local
 * image isobench/python:bookworm; every job in its own container, worktrees bind-mounted at the same path. Beyond the
 * contract: the preflight (missing image, no disk space) fails before anything starts, fake GPU devices reach the
 * container with CUDA_VISIBLE_DEVICES, and an agent patch is applied and verified inside an image that holds the
 * source (and refused when it does not apply).
 */
@ResourceLock(ItLocks.DOCKER_EXECUTOR)
class DockerExecutorContractIT extends ExecutorContract {

    @Override
    protected void requireEnvironment() {
        SharedData.requireService(dockerReady(), "a running docker daemon with the image "
                + DockerConfig.DEFAULT_IMAGE + " (scripts/provision-docker), plus python3, git and setsid");
    }

    @Override
    protected Executor executor() {
        return Executors.create("docker");
    }

    @Override
    protected String executorName() {
        return "docker";
    }

    /** Containers (running or not) whose job directory is under {@code workRoot}. */
    @Override
    protected List<String> leftovers(Path workRoot) {
        List<String> out = new ArrayList<>(DockerLeftovers.under(workRoot));
        out.addAll(DockerLeftovers.envFiles());
        return out;
    }

    static boolean dockerReady() {
        return Cli.has("python3") && Cli.has("git") && Cli.has("setsid") && Cli.has("docker")
                && DockerLeftovers.imagePresent(DockerConfig.DEFAULT_IMAGE);
    }

    private static DockerExecutor with(Map<String, Object> settings, GpuSlots gpus, String gpuMode) {
        return new DockerExecutor(DockerConfig.fromMap(settings), Readiness.http(Duration.ofMillis(10)),
                Clients.serving(), Duration.ofSeconds(5), gpus, gpuMode, Path.of("/var/lib/docker"));
    }

    private Job job(Path cwd, String arm, List<String> argv, int gpus) {
        return new Job(new Job.Place(0, "docker-" + cwd.getFileName() + "/" + arm + "/r0", "docker-" + cwd.getFileName(), 0),
                Arm.fromLabel(arm), Mode.LATENCY, new JobSpec.Measure(Command.template(argv), ClientConfig.NONE, 0, null),
                new Job.Where(cwd, Map.of(), gpus), Job.Limits.ofSeconds(30, 60));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void preflightRefusesAMissingImageOrAFullDiskBeforeAnythingRuns() throws Exception {
        Path cwd = Files.createDirectories(root().resolve("preflight"));
        Files.writeString(cwd.resolve("touch.py"), "open('ran', 'w').write('x')\n");
        JobResult noImage = with(Map.of("images", "isobench/no-such-image:{commit}"), null, "none")
                .execute(job(cwd, "human", List.of("python3", "touch.py"), 1), Executor.Hooks.NONE);
        assertThat(noImage.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(noImage.failure().detail()).contains("isobench/no-such-image:").contains("not present");
        JobResult full = with(Map.of("min_free_disk_mb", Long.MAX_VALUE / (1 << 21)), null, "none")
                .execute(job(cwd, "baseline", List.of("python3", "touch.py"), 1), Executor.Hooks.NONE);
        assertThat(full.failure().category()).isEqualTo(FailureCategory.DISK_FULL);
        assertThat(cwd.resolve("ran")).as("nothing ran").doesNotExist();
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void fakeGpuDevicesAreLeasedIntoTheContainer() throws Exception {
        Path cwd = Files.createDirectories(root().resolve("gpus"));
        Files.writeString(cwd.resolve("gpus.py"), String.join("\n",
                "import os",
                "print('visible=' + os.environ.get('CUDA_VISIBLE_DEVICES', ''))",
                "print('devices=' + ','.join(d for d in sorted(os.listdir('/dev')) if d.startswith('fakegpu')))",
                "print('Avg latency: 0.1 seconds')", ""));
        DockerExecutor ex = with(Map.of("gpus", "devices", "gpu_device", "/dev/null:/dev/fakegpu{i}"),
                new GpuSlots(List.of(0, 1, 2)), "devices");
        JobResult two = ex.execute(job(cwd, "baseline", List.of("python3", "gpus.py"), 2), Executor.Hooks.NONE);
        assertThat(two.failure()).as(two.log()).isNull();
        assertThat(two.log()).contains("visible=0,1").contains("devices=fakegpu0,fakegpu1\n")
                .contains("--device /dev/null:/dev/fakegpu0 --device /dev/null:/dev/fakegpu1 ");
        JobResult four = ex.execute(job(cwd, "human", List.of("python3", "gpus.py"), 4), Executor.Hooks.NONE);
        assertThat(four.failure().category()).isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT);
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void agentPatchIsAppliedAndVerifiedInsideAnImageThatHoldsTheSource() throws Exception {
        Path base = root();
        // an image with the engine's source at /src (FROM the local python image; no registry)
        Path ctx = Files.createDirectories(base.resolve("image/src"));
        Files.writeString(ctx.resolve("bench.py"), "print('Avg latency: 2.0 seconds')\n");
        Files.writeString(base.resolve("image/Dockerfile"), "FROM " + DockerConfig.DEFAULT_IMAGE + "\nCOPY src /src\n");
        String image = "isobench/contract-src:1";
        DockerExecutor.Cmd b = DockerExecutor.Cmd.run(List.of("docker", "build", "--network", "none", "-q", "-t", image,
                base.resolve("image").toString()), Duration.ofMinutes(2));
        assertThat(b.code()).as(b.out()).isZero();
        try {
            // the agent's worktree: the same source in git, with the agent's change applied (uncommitted)
            Path wt = Files.createDirectories(base.resolve("agent-wt"));
            Files.writeString(wt.resolve("bench.py"), "print('Avg latency: 2.0 seconds')\n");
            git(wt, "init", "-q");
            git(wt, "add", "-A");
            git(wt, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base");
            Files.writeString(wt.resolve("bench.py"), "print('Avg latency: 1.0 seconds')\n");
            Files.writeString(wt.resolve("new_module.py"), "X = 1\n");
            DockerExecutor ex = with(Map.of("images", Map.of("baseline", image, "human", image),
                    "mount_worktree", false, "source_dir", "/src"), null, "none");
            JobResult r = ex.execute(job(wt, "agent:alpha", List.of("python3", "bench.py"), 1), Executor.Hooks.NONE);
            assertThat(r.failure()).as(r.log()).isNull();
            assertThat(r.log()).contains("isobench: agent patch applied and verified in /src")
                    .contains("Avg latency: 1.0 seconds");
            assertThat(r.metrics()).anyMatch(m -> m.value() == 1000.0);
            // the baseline arm runs the image as it is
            JobResult baseline = ex.execute(job(wt, "baseline", List.of("python3", "bench.py"), 1), Executor.Hooks.NONE);
            assertThat(baseline.log()).contains("Avg latency: 2.0 seconds").doesNotContain("agent patch");
            // a patch made against other source does not apply: PATCH_FAILED, the command never runs
            Path other = Files.createDirectories(base.resolve("other-wt"));
            Files.writeString(other.resolve("bench.py"), "print('something else')\n");
            git(other, "init", "-q");
            git(other, "add", "-A");
            git(other, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base");
            Files.writeString(other.resolve("bench.py"), "print('Avg latency: 0.5 seconds')\n");
            JobResult bad = ex.execute(job(other, "agent:bravo", List.of("python3", "bench.py"), 1), Executor.Hooks.NONE);
            assertThat(bad.failure().category()).as(bad.log()).isEqualTo(FailureCategory.PATCH_FAILED);
            assertThat(bad.log()).doesNotContain("Avg latency: 0.5");
        } finally {
            DockerExecutor.Cmd.run(List.of("docker", "rmi", "-f", image), Duration.ofMinutes(1));
        }
    }

    private static void git(Path dir, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("git", "-C", dir.toString()));
        argv.addAll(List.of(args));
        DockerExecutor.Cmd c = DockerExecutor.Cmd.run(argv, Duration.ofSeconds(30));
        assertThat(c.code()).as(c.out()).isZero();
    }
}
