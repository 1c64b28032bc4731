package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.ToyRepo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One attempt with the {@code command} adapter in the local sandbox: real processes (python3 "agents" written by the
 * test) on the toy engine's sealed tree — outcomes, budget kills, redaction, the environment allowlist.
 */
@Isolated("it looks for leftover processes machine-wide and bounds a wall time: nothing runs beside it (ItLocks)")
class AttemptRunnerTest {

    @TempDir
    static Path shared;
    static Path engine;
    static final String SECRET = "sk-test-0123456789abcdefSECRET";

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        engine = shared.resolve("toyllm-repo");
        ToyRepo.build(engine);
    }

    private static AttemptResult attempt(Path root, String script, Budget budget) throws Exception {
        Path agent = root.resolve("agent.py");
        Files.createDirectories(root);
        Files.writeString(agent, script);
        AttemptDirs dirs = AttemptDirs.under(root.resolve("attempt"));
        SealedRepo sealed = SealedRepo.create(engine, "baseline", dirs);
        AgentConfig config = new AgentConfig("command", null, List.of("python3", agent.toString(), "{repo}",
                "{prompt_file}"), "m-1", null, List.of("MY_API_KEY"), Map.of("AGENT_MODE", "test"), budget, Map.of());
        AttemptRunner runner = new AttemptRunner(new CommandAdapter(), config, new LocalSandbox("python3", null),
                Map.of("MY_API_KEY", SECRET));
        return AtifStores.valid(runner.run(dirs, sealed, "Task t1: make it faster.\n"));
    }

    @Test
    void aFinishedAttemptHasItsPatchUsageAndTrajectoryAndNoSecret(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys
                repo, prompt = sys.argv[1], sys.argv[2]
                print("task:", open(prompt).read().strip())
                print("key is", os.environ["MY_API_KEY"], "mode", os.environ["AGENT_MODE"])
                print("home", os.environ["HOME"], "user-path-only", "JAVA_HOME" in os.environ)
                print('isobench-usage: {"turns":1,"tokens_in":100,"tokens_out":20,"cost_usd":0.01}')
                open(os.path.join(repo, "README.md"), "a").write("faster\\n")
                print('isobench-usage: {"turns":1,"tokens_in":150,"tokens_out":30,"cost_usd":0.02}')
                print("done")
                """, Budget.NONE);
        assertThat(r.status()).isEqualTo(AttemptStatus.OK);
        assertThat(r.patch()).contains("+faster");
        assertThat(r.usage()).isEqualTo(new Usage(2, 250, 50, 0.03));
        assertThat(r.rawStdout()).contains("task: Task t1: make it faster.").contains("mode test")
                .contains("user-path-only False").doesNotContain(SECRET).contains("***");
        assertThat(r.trajectory().steps()).extracting(Trajectory.Step::message).contains("done");
        assertThat(r.trajectory().toJson("command", r.cliVersion(), "m-1", r.usage())).doesNotContain(SECRET);
        assertThat(r.cliVersion()).startsWith("Python 3");
    }

    @Test
    void nothingChangedIsAnEmptyPatch(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, "print('I looked and did nothing')\n", Budget.NONE);
        assertThat(r.status()).isEqualTo(AttemptStatus.EMPTY_PATCH);
        assertThat(r.patch()).isEmpty();
    }

    @Test
    void anErrorExitIsACrashWithItsLastLine(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, "import sys\nsys.stderr.write('model said no\\n')\nsys.exit(3)\n",
                Budget.NONE);
        assertThat(r.status()).isEqualTo(AttemptStatus.AGENT_CRASH);
        assertThat(r.detail()).contains("exit status 3").contains("model said no");
    }

    @Test
    void passingTheWallTimeIsATimeoutAndTheAgentIsKilled(@TempDir Path root) throws Exception {
        long t0 = System.nanoTime();
        AttemptResult r = attempt(root, """
                import os, sys, time, subprocess
                open(os.path.join(sys.argv[1], "README.md"), "a").write("partial\\n")
                child = subprocess.Popen(["sleep", "300"])
                time.sleep(300)
                """, new Budget(2.0, null, null, null));
        assertThat(r.status()).isEqualTo(AttemptStatus.AGENT_TIMEOUT);
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(60);
        assertThat(r.patch()).as("what it changed before the kill is still collected").contains("+partial");
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").equals("sleep 300"))
                .filter(ProcessHandle::isAlive).count()).as("the agent's children were killed").isZero();
    }

    @Test
    void usagePastTheBudgetIsKilledByIsobench(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import time
                for i in range(100):
                    print('isobench-usage: {"turns":1,"tokens_in":1000,"tokens_out":100}', flush=True)
                    time.sleep(0.2)
                """, new Budget(120.0, null, 2500L, null));
        assertThat(r.status()).isEqualTo(AttemptStatus.BUDGET_EXCEEDED);
        assertThat(r.detail()).contains("tokens 3300 > 2500").contains("killed by isobench");
        assertThat(r.usage().turns()).isLessThan(10);
        assertThat(r.wallS()).isLessThan(30);
    }

    @Test
    void turnsPastTheBudgetAtTheEndStillCount(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys
                open(os.path.join(sys.argv[1], "README.md"), "a").write("x\\n")
                print('isobench-usage: {"turns":5,"tokens_in":10,"tokens_out":1}')
                """, new Budget(null, 3, null, null));
        assertThat(r.status()).isEqualTo(AttemptStatus.BUDGET_EXCEEDED);
        assertThat(r.detail()).startsWith("turns 5 > 3");
    }
}
