package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.ToyRepo;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code isobench agents run} killed with SIGKILL in the middle of an attempt, then {@code --resume}: the finished
 * attempt is not repeated, the cut-off one is run again from a fresh tree, and the agent process the killed run left
 * behind (in its own process group) is killed. Real processes: the isobench jar, a python3 "agent", the toy repo.
 */
class AgentsResumeIT {

    @TempDir
    Path dir;

    private Process start(String... args) throws Exception {
        Path jar = Path.of(System.getProperty("isobench.jar", "target/isobench.jar")).toAbsolutePath();
        assertThat(jar).as("the jar is built by `mvn package` before integration tests").exists();
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString(), "--db", dir.resolve("s.duckdb").toString(),
                "agents", "run", dir.resolve("suite.yaml").toString(), "--agent", "scripted", "--executor", "local",
                "--tasks", "tpot,latency", "--workdir", dir.resolve("work").toString()));
        argv.addAll(List.of(args));
        return new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out-" + System.nanoTime() + ".txt").toFile()).start();
    }

    /** Alive and not a zombie (a killed orphan stays a zombie until init reaps it). */
    private static boolean running(long pid) throws Exception {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        for (int i = 0; i < 50; i++) {
            if (!Files.exists(stat)) {
                return false;
            }
            String s;
            try {
                s = Files.readString(stat);
            } catch (IOException e) {
                return false;
            }
            char state = s.charAt(s.lastIndexOf(')') + 2);
            if (state != 'Z' && state != 'X') {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    @Test
    void sigkillMidAttemptThenResumeLosesAndRepeatsNothing() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        ToyRepo.build(dir.resolve("toyllm-repo"));
        String demo = Files.readString(Path.of("examples/toy-engine/demo-suite.yaml"));
        Files.writeString(dir.resolve("agent.py"), """
                import os, re, sys, time
                here = os.path.dirname(os.path.abspath(__file__))
                repo, prompt = sys.argv[1], sys.argv[2]
                task = re.search(r"Task (\\S+):", open(prompt).read()).group(1)
                with open(os.path.join(here, "calls.txt"), "a") as f:
                    f.write(task + "\\n")
                open(os.path.join(repo, "README.md"), "a").write("attempt on " + task + "\\n")
                if task == "latency" and os.path.exists(os.path.join(here, "hang")):
                    with open(os.path.join(here, "hung.pid"), "w") as f:
                        f.write(str(os.getpid()))
                    time.sleep(600)
                print('isobench-usage: {"turns":1,"tokens_in":10,"tokens_out":5}')
                """);
        Files.writeString(dir.resolve("suite.yaml"), demo.substring(0, demo.indexOf("\nagents:")) + """

                agents:
                  - name: scripted
                    runner:
                      adapter: command
                      argv: [python3, "%s", "{repo}", "{prompt_file}"]
                """.formatted(dir.resolve("agent.py")));
        Files.writeString(dir.resolve("hang"), "");

        Process first = start();
        Path hung = dir.resolve("hung.pid");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!Files.exists(hung) && first.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(hung).as("the latency attempt started and hung").exists();
        Thread.sleep(300);
        first.destroyForcibly(); // SIGKILL: no shutdown hook runs
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        long agentPid = Long.parseLong(Files.readString(hung).strip());
        assertThat(running(agentPid)).as("the killed run left its agent running (own process group)").isTrue();

        Files.delete(dir.resolve("hang"));
        Process resumed = start("--resume");
        assertThat(resumed.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(resumed.exitValue()).isZero();

        assertThat(running(agentPid)).as("the left-over agent was killed by the resumed run").isFalse();
        assertThat(Files.readAllLines(dir.resolve("calls.txt")))
                .as("tpot ran once; latency was cut off once and ran again").containsExactly("tpot", "latency",
                        "latency");
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.AGENT_ATTEMPT), null, false), runs::add);
            assertThat(runs).extracting(r -> r.outcome().status()).containsOnly(RunRecord.RunStatus.SUCCESS);
            assertThat(runs).hasSize(2);
            assertThat(AtifStores.assertEveryTrajectoryValid(store)).isEqualTo(2);
            assertThat(runs).extracting(r -> r.key().sessionId()).containsOnly(runs.get(0).key().sessionId());
        }
        Suite suite;
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            String session = store.sessions().stream().filter(s -> s.isAgentsRun()).findFirst().orElseThrow()
                    .sessionId();
            suite = StoredAttempts.read(store, session, "--attempts-of").plan(SuiteLoader.load(
                    dir.resolve("suite.yaml")), dir.resolve("work/attempts"), s -> { });
        }
        assertThat(suite.agents().get(1).name()).isEqualTo("scripted@1");
        assertThat(suite.agents().get(1).patches()).containsOnlyKeys("tpot", "latency");
        assertThat(Files.readString(suite.agents().get(1).patches().get("latency"), StandardCharsets.UTF_8))
                .containsOnlyOnce("+attempt on latency");
    }
}
