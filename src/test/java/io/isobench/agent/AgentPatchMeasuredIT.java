package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.Arm;
import io.isobench.ToyRepo;
import io.isobench.analysis.AgentAttempts;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The done-when of issue 27, item 1, through the real CLI: {@code isobench agents run} with an honest agent whose
 * patch holds code the generic redactor would rewrite, a tab, a form feed and a Latin-1 byte, then
 * {@code isobench run --attempts-of SESSION} measures that patch, the suite file unchanged ({@code agent:honest@1}
 * succeeds, its worktree has
 * the agent's exact bytes). Real processes: the isobench jar, a python3 "agent", the toy engine.
 */
class AgentPatchMeasuredIT {

    @TempDir
    Path dir;

    private int cli(String... args) throws Exception {
        Path jar = Path.of(System.getProperty("isobench.jar", "target/isobench.jar")).toAbsolutePath();
        assertThat(jar).as("the jar is built by `mvn package` before integration tests").exists();
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString(), "--db",
                dir.resolve("s.duckdb").toString()));
        argv.addAll(List.of(args));
        Path out = dir.resolve("out-" + System.nanoTime() + ".txt");
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        System.out.println(Files.readString(out));
        return p.exitValue();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void anHonestPatchIsStoredByteForByteAndMeasured() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        ToyRepo.build(dir.resolve("repo"));
        byte[] code = new byte[AgentPatchBytesTest.CODE.length + 2];
        System.arraycopy(AgentPatchBytesTest.CODE, 0, code, 0, AgentPatchBytesTest.CODE.length);
        System.arraycopy(AgentPatchBytesTest.CODE_END, 0, code, AgentPatchBytesTest.CODE.length, 2);
        Files.writeString(dir.resolve("agent.py"), """
                import os, sys
                repo = sys.argv[1]
                pkg = [r for r, d, f in os.walk(repo) if "model.py" in f and ".git" not in r][0]
                open(os.path.join(pkg, "step_notes.py"), "wb").write(bytes.fromhex(sys.argv[3]))
                print('isobench-usage: {"turns":1,"tokens_in":10,"tokens_out":5}')
                """);
        Files.writeString(dir.resolve("suite.yaml"), String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: tpot",
                "    human_commit: task-tpot",
                "    parent_commit: baseline",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model"
                        + " {model} {server_flags}",
                "    perf_command: vllm bench serve --model toy-1m --dataset-name random --random-input-len 32 "
                        + "--random-output-len 64 --num-prompts 8 --max-concurrency 4 --ignore-eos",
                "agents:",
                "  - name: honest",
                "    runner:",
                "      adapter: command",
                "      argv: [python3, \"" + dir.resolve("agent.py") + "\", \"{repo}\", \"{prompt_file}\", \""
                        + HexFormat.of().formatHex(code) + "\"]",
                "run: {rounds: 1, seed: 42, warmup_requests: 1, timeouts: {server_start_s: 20, run_s: 60,"
                        + " build_s: 30}}",
                ""));
        assertThat(cli("agents", "run", dir.resolve("suite.yaml").toString(), "--agent", "honest", "--executor",
                "local", "--workdir", dir.resolve("work").toString())).isZero();
        byte[] suiteBytes = Files.readAllBytes(dir.resolve("suite.yaml"));
        String agentsSession;
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            agentsSession = store.sessions().stream().filter(s -> s.isAgentsRun()).findFirst().orElseThrow()
                    .sessionId();
            assertThat(AtifStores.assertEveryTrajectoryValid(store)).isPositive();
        }

        assertThat(cli("run", dir.resolve("suite.yaml").toString(), "--session", "measured", "--attempts-of",
                agentsSession, "--workdir", dir.resolve("work").toString())).isZero();
        assertThat(Files.readAllBytes(dir.resolve("suite.yaml"))).as("the suite file is not modified")
                .isEqualTo(suiteBytes);
        byte[] patch = Files.readAllBytes(dir.resolve("work/attempts").resolve(agentsSession)
                .resolve("honest@1/tpot.diff"));
        assertThat(new String(patch, StandardCharsets.ISO_8859_1))
                .contains("+\ttoken = tokenizer.decode(ids)\n", "+\tself.api_key = api_key\n", "+\f\n",
                        "caf\u00e9\n");
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, "measured", false), runs::add);
            List<RunRecord> agent = runs.stream().filter(r -> r.arm().equals(Arm.agent("honest@1"))
                    && r.kind() == RunRecord.RunKind.MEASURED).toList();
            assertThat(agent).as("the attempt's patch is measured").isNotEmpty();
            assertThat(agent).extracting(r -> r.outcome().status()).containsOnly(RunRecord.RunStatus.SUCCESS);
            assertThat(agent).extracting(r -> AgentAttempts.attemptRunOf(r.details()))
                    .as("every run of the arm names the stored attempt it measured")
                    .containsOnly(agentsSession + "/tpot/honest@1");
        }
        try (var files = Files.walk(dir.resolve("work"))) {
            List<Path> applied = files.filter(p -> p.getFileName().toString().equals("step_notes.py")
                    && !p.toString().contains("/agents/")).toList();
            assertThat(applied).as("the measured arm's worktree holds the file").isNotEmpty();
            for (Path p : applied) {
                assertThat(Files.readAllBytes(p)).isEqualTo(code);
            }
        }
    }
}
