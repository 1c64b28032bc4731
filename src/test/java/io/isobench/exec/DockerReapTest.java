package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.probe.Clients;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A SIGKILLed orchestrator can die between writing a docker job's env file and the container's start (the window in
 * which the executor deletes it); the resumed session's {@link DockerExecutor#reap} removes that job's scratch folder,
 * env file included, found by the job's name — and nothing of another job. {@code docker} here is {@code true}: no
 * daemon is needed to show the file rule.
 */
class DockerReapTest {

    @TempDir
    Path cwd;

    private Job job(String id) {
        return new Job(new Job.Place(0, id + "/baseline/r0", id, 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.of(List.of("python3", "bench.py")), ClientConfig.NONE, 0, null),
                new Job.Where(cwd, Map.of(), 0), Job.Limits.ofSeconds(30, 60));
    }

    @Test
    void reapRemovesTheKilledJobsScratchWithItsEnvFileAndNothingElse() throws Exception {
        DockerExecutor docker = new DockerExecutor(DockerConfig.fromMap(Map.of("docker", "true")),
                Readiness.http(Duration.ofMillis(10)), Clients.serving(), Duration.ofSeconds(5), null, "none",
                Path.of("/var/lib/docker"));
        Job killed = job("reap-killed");
        Job other = job("reap-other");
        assertThat(DockerExecutor.scratchPrefix(killed)).isNotEqualTo(DockerExecutor.scratchPrefix(other))
                .startsWith("isobench-docker-");
        Path left = Files.createTempDirectory(DockerExecutor.scratchPrefix(killed));
        Files.writeString(left.resolve("env"), "HF_TOKEN=secret\n");
        Path alive = Files.createTempDirectory(DockerExecutor.scratchPrefix(other));
        Files.writeString(alive.resolve("env"), "HF_TOKEN=secret\n");
        try {
            docker.reap(killed);
            assertThat(left).doesNotExist();
            assertThat(alive.resolve("env")).exists();
        } finally {
            Files.deleteIfExists(alive.resolve("env"));
            Files.deleteIfExists(alive);
        }
    }

    @Test
    void aResumedSessionSweepsTheScratchOfAGoneOrchestratorAndKeepsALiveOnes() throws Exception {
        Path tmp = Files.createDirectories(cwd.resolve("tmp"));
        // a creator that has exited: a real process, waited for
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path orphan = Files.createDirectory(tmp.resolve("isobench-docker-85fed32588-p" + gone.pid() + "-7071"));
        Files.writeString(orphan.resolve("env"), "HF_TOKEN=secret\n");
        Path live = Files.createDirectory(tmp.resolve("isobench-docker-85fed32588-p" + ProcessHandle.current().pid()
                + "-7072"));
        Files.writeString(live.resolve("env"), "HF_TOKEN=secret\n");
        Path older = Files.createDirectory(tmp.resolve("isobench-docker-85fed32588-7073"));
        Files.writeString(older.resolve("env"), "HF_TOKEN=secret\n");
        DockerExecutor.sweepOrphans(tmp);
        assertThat(orphan).doesNotExist();
        assertThat(live.resolve("env")).exists();
        assertThat(older.resolve("env")).exists();
    }
}
