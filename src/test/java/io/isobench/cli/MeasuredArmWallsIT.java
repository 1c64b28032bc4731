package io.isobench.cli;

import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.exec.DockerLeftovers;
import io.isobench.proc.Sandbox;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 2, "done when": an agent's patch that dumps its whole environment at import time, measured by
 * {@code isobench run} (a forked isobench whose own environment holds an HF token, a model key, a runner secret, a
 * password and an unrelated variable) on the local and the Docker executor. No dump holds any of them; the dumps aimed
 * outside the arm's tree (a folder of this test's, the user's home, the host's {@code /tmp}) are never written; the
 * arm is measured all the same, and the server in its sandbox is reached through its door only.
 */
@ResourceLock(ItLocks.DOCKER_EXECUTOR)
class MeasuredArmWallsIT {

    private static final Map<String, String> SECRETS = Map.of(
            "HF_TOKEN", "hf_WallsTestTokenAAbbCCddEEffGGhh",
            "ANTHROPIC_API_KEY", "sk-ant-WallsTestKey1234567890abcd",
            "MY_RUNNER_SECRET", "runner-secret-value-5150",
            "DB_PASSWORD", "walls-password-8086",
            "CORP_UNRELATED_SETTING", "unrelated-value-6502");

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aPatchDumpingItsEnvironmentAtImportGetsNoSecretAndWritesNothingOutsideLocal() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent() && Sandbox.problem().isEmpty(),
                "python3, git, setsid and a working bwrap: " + Sandbox.problem().orElse(""));
        check(run("local", ""));
        try (Store store = Stores.open(dir.resolve("local.duckdb").toString())) {
            assertThat(store.sessions().get(0).machineJson()).as("the rule is recorded with the session")
                    .contains("\"confine\":{\"arms\":\"all\",\"sandbox\":\"bwrap\"");
        }
    }

    /**
     * A run that rewrites its own arm's tracked files (here the benchmark script, at import time, inside the tree it
     * may write) fails as TREE_CHANGED: nothing measured after the rewrite counts.
     */
    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aRunThatRewritesItsOwnBenchmarkIsTreeChangedNotMeasured() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent() && Sandbox.problem().isEmpty(),
                "python3, git, setsid and a working bwrap: " + Sandbox.problem().orElse(""));
        Result r = run("local", "try:\n    with open('benchmarks/benchmark_latency.py', 'a') as _b:\n"
                + "        _b.write('\\n# rewritten at import\\n')\nexcept OSError:\n    pass\n");
        assertThat(r.output()).contains("lat agent:dumper round 1/1: TREE_CHANGED")
                .containsPattern("lat baseline round 1/1: [a-z_]+=[0-9.]+");
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aPatchDumpingItsEnvironmentAtImportGetsNoSecretAndWritesNothingOutsideDocker() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent() && DockerLeftovers.imagePresent(
                "isobench/python:bookworm"), "a running docker daemon with isobench/python:bookworm"
                + " (scripts/provision-docker), python3, git, setsid, bwrap");
        check(run("docker", ""));
    }

    private record Result(Path work, Path outside, String tag, String output) {
    }

    /** Runs the suite on {@code executor}; {@code more}: Python the patch also runs at import time. */
    private Result run(String executor, String more) throws Exception {
        Path repo = dir.resolve("repo");
        ToyRepo.build(repo);
        Path outside = Files.createDirectories(dir.resolve("outside"));
        String tag = "walls-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Path home = Path.of(System.getProperty("user.home"));
        // the patch: at import, write os.environ to the arm's tree, to a folder outside it, to the home and to /tmp
        String init = Files.readString(repo.resolve("toyllm/__init__.py"));
        String dump = "import os as _os, json as _json\n"
                + "for _p in ('env-dump-' + str(_os.getpid()) + '.json', " + py(outside + "/dump.json") + ", "
                + py(home + "/" + tag + ".json") + ", " + py("/tmp/" + tag + ".json") + "):\n"
                + "    try:\n"
                + "        with open(_p, 'w') as _f:\n"
                + "            _json.dump(dict(_os.environ), _f)\n"
                + "    except OSError:\n"
                + "        pass\n" + more;
        Files.writeString(repo.resolve("toyllm/__init__.py"), dump + init);
        Path patch = dir.resolve("dump.patch");
        Files.writeString(patch, ToyRepo.run(repo, "git", "diff"));
        ToyRepo.run(repo, "git", "checkout", "--", "toyllm/__init__.py");
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: srv",
                "    human_commit: task-tpot",
                "    parent_commit: baseline",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model"
                        + " {model} --disable-log-requests",
                "    perf_command: vllm bench serve --model toy-1m --dataset-name random --random-input-len 8"
                        + " --random-output-len 8 --num-prompts 4",
                "    correctness: {prompts: 2, max_tokens: 4}",
                "  - id: lat",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --batch-size 1"
                        + " --input-len 8 --output-len 4 --num-iters 3 --num-iters-warmup 1 --seed 0",
                // the review flags this patch (IMPORT_TIME_SIDE_EFFECT, WRITE_OUTSIDE_TREE) and would reject it; only
                // warned here, so that the patch is measured and the sandbox itself is what holds
                "review: {fail_on: []}",
                "agents:",
                "  - name: dumper",
                "    patches: {srv: dump.patch, lat: dump.patch}",
                "run: {rounds: 1, seed: 1, warmup_requests: 0, aa: false, executor: " + executor + ","
                        + " timeouts: {server_start_s: 60, run_s: 120, build_s: 60}}",
                ""));
        Path work = dir.resolve("work-" + executor);
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.isobench.cli.Main", "--db",
                dir.resolve(executor + ".duckdb").toString(), "run", suite.toString(), "--workdir", work.toString()));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(SECRETS);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(out).isIn(0, 1);
        if (more.isEmpty()) {
            assertThat(out).as("the agent's arm is measured in both tasks").containsPattern("srv agent:dumper round"
                    + " 1/1: [a-z_]+=[0-9.]+").containsPattern("lat agent:dumper round 1/1: [a-z_]+=[0-9.]+");
        }
        Files.deleteIfExists(home.resolve(tag + ".json")); // (should it exist, the assertion below says so)
        return new Result(work, outside, tag, out);
    }

    private void check(Result r) throws Exception {
        List<Path> dumps;
        try (Stream<Path> s = Files.walk(r.work())) {
            dumps = s.filter(f -> f.getFileName().toString().startsWith("env-dump-")).toList();
        }
        assertThat(dumps).as("the patch ran at import inside the arm's tree").isNotEmpty();
        for (Path d : dumps) {
            String text = Files.readString(d);
            assertThat(text).contains("PATH");
            for (Map.Entry<String, String> e : SECRETS.entrySet()) {
                assertThat(text).as(d + " holds " + e.getKey()).doesNotContain(e.getValue()).doesNotContain(e.getKey());
            }
        }
        assertThat(r.outside().resolve("dump.json")).as("a folder outside the tree").doesNotExist();
        assertThat(Path.of(System.getProperty("user.home"), r.tag() + ".json")).as("the home").doesNotExist();
        assertThat(Path.of("/tmp", r.tag() + ".json")).as("the host's /tmp").doesNotExist();
        for (String v : SECRETS.values()) {
            assertThat(r.output()).doesNotContain(v);
        }
    }

    private static String py(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
