package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.Command;
import io.isobench.plan.GpuSlots;
import io.isobench.plan.HostGpuLocks;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.probe.Clients;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A measured job takes the host-wide lock of the GPUs it leased (docs/gpu-scheduling.md, "The host-wide lease"): while
 * it runs another process cannot lock them (a python child tries the same POSIX lock), and a GPU another holder
 * (an agents run's attempt) keeps past the wait fails the job with one line naming the holder; it then runs nothing.
 */
class HostGpuLockJobTest {

    @TempDir
    Path dir;

    private Job job(String id, List<String> argv) {
        return new Job(new Job.Place(0, id, "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(argv), ClientConfig.NONE, 0, null),
                new Job.Where(dir, Map.of(), 1), Job.Limits.ofSeconds(20, 20));
    }

    @Test
    void theJobHoldsItsGpusHostWideAndAGpuHeldElsewhereFailsItWithTheHolder() throws Exception {
        Path locks = dir.resolve("locks");
        HostGpuLocks host = new HostGpuLocks(locks, Duration.ZERO);
        LocalExecutor ex = new LocalExecutor(Readiness.http(Duration.ofMillis(10)), Clients.serving(),
                Duration.ofSeconds(2), GpuSlots.of(1).withHostLocks(host));
        String probe = "import fcntl, sys\nf = open(sys.argv[1], 'a')\ntry:\n    fcntl.lockf(f, fcntl.LOCK_EX"
                + " | fcntl.LOCK_NB)\n    print('lock=free')\nexcept OSError:\n    print('lock=held')\n";
        JobResult r = ex.execute(job("t/baseline/r0", List.of("python3", "-c", probe,
                locks.resolve("gpu-0.lock").toString())), Executor.Hooks.NONE);
        assertThat(r.log()).contains("lock=held");
        assertThat(host.heldElsewhere(0)).as("given back when the job ended").isFalse();

        try (HostGpuLocks.Held attempt = new HostGpuLocks(locks).tryLock(List.of(0), "agents run s/t/a@1")
                .orElseThrow()) {
            JobResult busy = ex.execute(job("t/baseline/r1", List.of("sh", "-c", "echo ran")), Executor.Hooks.NONE);
            assertThat(busy.failure().category()).isEqualTo(FailureCategory.INFRA_TRANSIENT);
            assertThat(busy.failure().detail()).startsWith("GPU(s) 0 held by another isobench process for more than"
                    + " 0 s: GPU 0 by pid " + ProcessHandle.current().pid() + " (agents run s/t/a@1, since ");
            assertThat(busy.log()).doesNotContain("ran");
        }
        JobResult after = ex.execute(job("t/baseline/r2", List.of("sh", "-c", "echo ran")), Executor.Hooks.NONE);
        assertThat(after.log()).contains("ran");
    }
}
