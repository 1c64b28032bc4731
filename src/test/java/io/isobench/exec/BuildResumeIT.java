package io.isobench.exec;

import io.isobench.SharedData;
import io.isobench.proc.ProcessGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 7: the build step runs through the launcher of every child. The real CLI is SIGKILLed while an
 * arm builds; the build (its own process group, recorded in a placeholder) is reaped by {@code run --resume}, and
 * its log never lands in /tmp: it lived in the arm's scratch folder in the work folder, cleared on resume. Before,
 * the build ran on (PPID 1) and {@code /tmp/isobench-build*.log} stayed behind.
 */
class BuildResumeIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aKilledSessionsBuildIsReapedOnResumeAndLeavesNothingInTmp() throws Exception {
        SharedData.requireService(io.isobench.ToyRepo.toolsPresent(), "python3, git and setsid for the toy engine");
        Path repo = dir.resolve("repo");
        io.isobench.ToyRepo.build(repo);
        Path hold = Files.writeString(dir.resolve("hold"), "");
        Path mark = dir.resolve("build.pid");
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine:",
                "  repo: ./repo",
                "  name: toy",
                // the build waits while the hold file exists; it writes its pid first
                "  build: [python3, -c, \"import os, time; open(os.environ['MARK'], 'w').write(str(os.getpid()));"
                        + " [time.sleep(0.1) for _ in range(3000) if os.path.exists(os.environ['HOLD'])]\"]",
                "tasks:",
                "  - id: lat",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model}",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --num-iters 2 --num-iters-warmup 1",
                "    correctness: {prompts: 2, max_tokens: 4}",
                "recipes:",
                "  - name: paths",
                "    env: {MARK: '" + mark + "', HOLD: '" + hold + "'}",
                // unconfined: this test is about reaping an orphaned build by its process group; a confined build
                // cannot write the pid file outside its tree, and dies with isobench anyway (bwrap --die-with-parent)
                "run: {rounds: 1, seed: 1, warmup_requests: 0, confine: {arms: off},"
                        + " timeouts: {server_start_s: 30, run_s: 60, build_s: 300}}",
                ""));
        // the CLI's own temporary folder (other processes share the system's): nothing of isobench's may land there
        Path tmp = Files.createDirectories(dir.resolve("system-tmp"));
        String javaTmp = "-Djava.io.tmpdir=" + tmp;
        String db = dir.resolve("db.duckdb").toString();
        String work = dir.resolve("work").toString();

        ProcessBuilder firstPb = Cli.builder("run", suite.toString(), "--db", db, "--session", "build-kill",
                "--workdir", work).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(dir.resolve("first.err").toFile());
        firstPb.environment().put("JAVA_TOOL_OPTIONS", javaTmp);
        Process first = firstPb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!(Files.exists(mark) && !Files.readString(mark).isBlank()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(mark).as(Files.readString(dir.resolve("first.err"))).exists();
        long buildPid = Long.parseLong(Files.readString(mark).strip());
        Thread.sleep(300); // the placeholder is written right after the build's group starts
        first.destroyForcibly(); // SIGKILL
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(buildPid).map(ProcessHandle::isAlive).orElse(false))
                .as("the build outlives the killed orchestrator (an orphan until resume)").isTrue();
        List<String> beside = Files.list(Path.of(work, "envs", "lat")).map(p -> p.getFileName().toString()).toList();

        ProcessBuilder secondPb = Cli.builder("run", suite.toString(), "--db", db, "--session", "build-kill",
                "--resume", "--workdir", work).redirectErrorStream(true)
                .redirectOutput(dir.resolve("second.out").toFile());
        secondPb.environment().put("JAVA_TOOL_OPTIONS", javaTmp);
        Process second = secondPb.start();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (alive(buildPid) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(alive(buildPid)).as("the orphaned build is reaped by --resume: "
                + Files.readString(dir.resolve("second.out"))).isFalse();
        assertThat(beside).as("the killed build's log lived beside the worktree").anyMatch(n -> n.endsWith(".tmp"));
        Files.delete(hold); // the resumed session's own build may finish now
        assertThat(second.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String out = Files.readString(dir.resolve("second.out"), StandardCharsets.UTF_8);
        assertThat(second.exitValue()).as(out).isZero();
        assertThat(out).contains("reaped process group");
        assertThat(isobenchTemps(tmp)).as("nothing of isobench's in the temporary folder " + tmp).isEmpty();
        try (Stream<Path> s = Files.walk(Path.of(work))) {
            assertThat(s.filter(p -> p.getFileName().toString().matches("(build|job)-.*\\.log")).toList()).isEmpty();
        }
    }

    private static boolean alive(long pid) {
        return ProcessGroup.alive(pid);
    }

    private static Set<String> isobenchTemps(Path tmp) throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("isobench-build")
                    || n.startsWith("isobench-job-") || n.startsWith("isobench-accuracy-")).collect(Collectors.toSet());
        }
    }
}
