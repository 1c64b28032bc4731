package io.isobench.exec;

import io.isobench.parse.FailureCategory;
import io.isobench.plan.GpuSlots;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.probe.Clients;
import io.isobench.proc.ProcessGroup;
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
 * No orphan survives: a server that spawns a grandchild (which would outlive a plain Process.destroy) is torn down
 * with its whole process group on the normal path, when it crashes, and when it never gets ready (timeout, and it
 * ignores SIGTERM).
 */
class ProcessGroupTest {

    /** argv[1]: normal | crash | hang. Spawns a grandchild `sleep 300` first and writes its pid to argv[2]. */
    private static final String SERVER = String.join("\n",
            "import http.server, os, signal, subprocess, sys, time",
            "mode, pidfile, port = sys.argv[1], sys.argv[2], int(sys.argv[3])",
            "g = subprocess.Popen(['sleep', '300'])",
            "open(pidfile, 'w').write(str(g.pid))",
            "if mode == 'crash':",
            "    print('Traceback (most recent call last):\\nRuntimeError: boom', flush=True)",
            "    sys.exit(1)",
            "if mode == 'hang':",
            "    signal.signal(signal.SIGTERM, signal.SIG_IGN)",
            "    time.sleep(300)",
            "class H(http.server.BaseHTTPRequestHandler):",
            "    def do_GET(self):",
            "        self.send_response(200); self.send_header('Content-Length', '2'); self.end_headers()",
            "        self.wfile.write(b'{}')",
            "    def log_message(self, *a): pass",
            "http.server.HTTPServer(('127.0.0.1', port), H).serve_forever()",
            "");

    @TempDir
    Path dir;

    private Path script() throws Exception {
        Path s = dir.resolve("server.py");
        Files.writeString(s, SERVER);
        return s;
    }

    private ProcessGroup start(String mode, Path pidFile, int port) throws Exception {
        return ProcessGroup.start(List.of("python3", script().toString(), mode, pidFile.toString(),
                Integer.toString(port)), dir, Map.of(), dir.resolve(mode + ".log"));
    }

    private static long grandchild(Path pidFile) throws Exception {
        for (int i = 0; i < 500 && (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()); i++) {
            Thread.sleep(10);
        }
        return Long.parseLong(Files.readString(pidFile).strip());
    }

    private static void assertGone(ProcessGroup pg, long grandchild) {
        assertThat(ProcessGroup.members(pg.pgid())).as("members of group " + pg.pgid()).isEmpty();
        assertThat(ProcessGroup.alive(grandchild))
                .as("grandchild " + grandchild).isFalse();
    }

    @Test
    void normalPathTearsDownServerAndGrandchild() throws Exception {
        int port = LocalExecutor.freePort();
        Path pid = dir.resolve("normal.pid");
        ProcessGroup pg = start("normal", pid, port);
        assertThat(pg.pgid()).isEqualTo(ProcessHandle.of(pg.pgid()).orElseThrow().pid());
        Readiness.Outcome o = Readiness.http(Duration.ofMillis(10)).await(pg, "127.0.0.1", port, Duration.ofSeconds(20));
        assertThat(o.state()).isEqualTo(Readiness.State.READY);
        long g = grandchild(pid);
        assertThat(ProcessGroup.members(pg.pgid())).contains(pg.pgid(), g);
        assertThat(pg.terminate(Duration.ofSeconds(5))).isTrue();
        assertGone(pg, g);
        assertThat(LocalExecutor.awaitPortFree(port, Duration.ofSeconds(2))).isTrue();
    }

    @Test
    void crashIsDetectedWhileWaitingAndTheGrandchildIsKilled() throws Exception {
        Path pid = dir.resolve("crash.pid");
        ProcessGroup pg = start("crash", pid, LocalExecutor.freePort());
        long g = grandchild(pid);
        Readiness.Outcome o = Readiness.http(Duration.ofMillis(10)).await(pg, "127.0.0.1", 1, Duration.ofSeconds(20));
        assertThat(o.state()).isEqualTo(Readiness.State.CRASHED);
        assertThat(o.exitCode()).isEqualTo(1);
        // the leader is gone, the grandchild (re-parented) is not — until the group is torn down
        assertThat(ProcessGroup.alive(g)).isTrue();
        assertThat(pg.terminate(Duration.ofSeconds(5))).isTrue();
        assertGone(pg, g);
    }

    @Test
    void timeoutEscalatesToKillWhenTermIsIgnored() throws Exception {
        Path pid = dir.resolve("hang.pid");
        ProcessGroup pg = start("hang", pid, LocalExecutor.freePort());
        long g = grandchild(pid);
        Thread.sleep(200); // let it install the SIGTERM handler
        Readiness.Outcome o = Readiness.http(Duration.ofMillis(10)).await(pg, "127.0.0.1", 1, Duration.ofMillis(300));
        assertThat(o.state()).isEqualTo(Readiness.State.TIMEOUT);
        long t0 = System.nanoTime();
        assertThat(pg.terminate(Duration.ofMillis(300))).isTrue();
        assertThat((System.nanoTime() - t0) / 1e6).isGreaterThanOrEqualTo(250.0); // waited the grace, then KILL
        assertGone(pg, g);
    }

    @Test
    void executorClassifiesCrashMissingBinaryAndLeavesNothingBehind() throws Exception {
        io.isobench.SharedData.requireSandbox();
        Path pid = dir.resolve("exec.pid");
        Job crash = new Job(new Job.Place(0, "t/agent:x/r0", "t", 0), Arm.agent("x"), Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("python3", script().toString(), "crash", pid.toString(), "{port}")),
                ClientConfig.ofArgv(List.of("--model", "m")), 0, null), new Job.Where(dir, Map.of(), 1), Job.Limits.ofSeconds(10, 10));
        long[] seen = new long[1];
        // unconfined: the grandchild's pid the script writes is the host's (in the sandbox it would be its namespace's;
        // SandboxTest.nothingOutlivesTheSandbox covers a confined command's leftovers)
        LocalExecutor unconfined = new LocalExecutor(Readiness.http(Duration.ofMillis(10)),
                Clients.serving(), Duration.ofSeconds(5), null, Placement.LOCAL);
        JobResult r = unconfined.execute(crash, new Executor.Hooks(p -> seen[0] = p, () -> false));
        assertThat(r.failure().category()).isEqualTo(FailureCategory.SERVER_CRASHED);
        assertThat(r.log()).contains("RuntimeError: boom");
        assertThat(seen[0]).isPositive();
        assertThat(ProcessGroup.members(seen[0])).isEmpty();
        assertThat(ProcessGroup.alive(grandchild(pid))).isFalse();

        Job missing = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("/nonexistent/bin/bench", "--x")), ClientConfig.NONE, 0, null),
                new Job.Where(dir, Map.of(), 1), Job.Limits.ofSeconds(10, 10));
        JobResult m = Executors.create("local").execute(missing, Executor.Hooks.NONE);
        assertThat(m.success()).isFalse();
        assertThat(m.failure().category()).isEqualTo(FailureCategory.BAD_PERF_COMMAND);
        assertThat(m.failure().detail() + m.log()).contains("/nonexistent/bin/bench");

        Job noServer = new Job(new Job.Place(0, "t/baseline/r2", "t", 2), Arm.BASELINE, Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("/nonexistent/bin/server", "--port", "{port}")),
                ClientConfig.ofArgv(List.of("--model", "m")), 0, null), new Job.Where(dir, Map.of(), 1), Job.Limits.ofSeconds(10, 10));
        JobResult ns = Executors.create("local").execute(noServer, Executor.Hooks.NONE);
        assertThat(ns.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(ns.failure().detail()).contains("/nonexistent/bin/server").contains("does not exist");

        Job timeout = new Job(new Job.Place(0, "t/baseline/r1", "t", 1), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("python3", script().toString(), "hang", dir.resolve("t.pid").toString(), "1")), ClientConfig.NONE, 0, null),
                new Job.Where(dir, Map.of(), 1), Job.Limits.ofSeconds(10, 1));
        long[] tg = new long[1];
        JobResult t = Executors.create("local").execute(timeout, new Executor.Hooks(p -> tg[0] = p, () -> false));
        assertThat(t.failure().category()).isEqualTo(FailureCategory.TIMEOUT);
        assertThat(ProcessGroup.members(tg[0])).isEmpty();
    }

    @Test
    void busyPortInTheServerLogIsAPortConflictNotACrash() {
        var f = LocalExecutor.serverFailure("INFO: starting\nOSError: [Errno 98] Address already in use\n",
                List.of("vllm", "serve", "m"), FailureCategory.SERVER_CRASHED, "exited");
        assertThat(f.category()).isEqualTo(FailureCategory.PORT_CONFLICT);
        assertThat(f.category().retryable()).isTrue();
        var crash = LocalExecutor.serverFailure("Traceback (most recent call last):\nTypeError: LLMEngine.__init__() "
                + "got an unexpected keyword argument 'incremental_detokenization'\n", List.of("vllm", "serve", "m"),
                FailureCategory.SERVER_CRASHED, "x");
        assertThat(crash.category()).isEqualTo(FailureCategory.SERVER_CRASHED);
        assertThat(crash.evidence().get(0)).startsWith("TypeError: LLMEngine.__init__()");
    }

    @Test
    void jobsLeaseTheirGpusAndAJobWiderThanTheNodeIsRefused() {
        LocalExecutor ex = new LocalExecutor(Readiness.http(Duration.ofMillis(10)), Clients.serving(),
                Duration.ofSeconds(2), GpuSlots.of(1));
        Job wide = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("true")), ClientConfig.NONE, 0, null), new Job.Where(dir, Map.of(), 2),
                Job.Limits.ofSeconds(10, 10));
        assertThat(ex.execute(wide, Executor.Hooks.NONE).failure().category())
                .isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT);
        Job one = new Job(new Job.Place(0, "t/baseline/r1", "t", 1), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("sh", "-c", "echo visible=$CUDA_VISIBLE_DEVICES")), ClientConfig.NONE, 0, null),
                new Job.Where(dir, Map.of(), 1), Job.Limits.ofSeconds(10, 10));
        JobResult r = ex.execute(one, Executor.Hooks.NONE);
        assertThat(r.log()).contains("visible=0");
        assertThat(r.failure().category()).isEqualTo(FailureCategory.NO_METRICS);
    }
}
