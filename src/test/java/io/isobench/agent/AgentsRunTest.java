package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.ToyRepo;
import io.isobench.analysis.Leaderboard;
import io.isobench.analysis.StatsConfig;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code isobench agents run} end to end on the toy engine with a python3 "agent" (the command adapter, local
 * sandbox): attempts stored, the suite never written, the stored attempts planned as agents NAME@k (and exported into the suite only when asked), resume.
 */
class AgentsRunTest {

    @TempDir
    Path dir;
    Path suiteFile;

    @BeforeEach
    void suite() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        ToyRepo.build(dir.resolve("toyllm-repo"));
        String demo = Files.readString(Path.of("examples/toy-engine/demo-suite.yaml"));
        String head = demo.substring(0, demo.indexOf("\nagents:"));
        Files.writeString(dir.resolve("agent.py"), """
                import os, re, sys
                repo, prompt = sys.argv[1], sys.argv[2]
                task = re.search(r"Task (\\S+):", open(prompt).read()).group(1)
                with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.txt"), "a") as f:
                    f.write(task + "\\n")
                if task == "latency" and os.environ.get("FAIL_LATENCY") == "1":
                    sys.exit(1)
                print('isobench-usage: {"turns":1,"tokens_in":1000,"tokens_out":100}')
                open(os.path.join(repo, "README.md"), "a").write("attempt on " + task + "\\n")
                """);
        suiteFile = dir.resolve("suite.yaml");
        Files.writeString(suiteFile, head + """

                # agents: the scripted one is run by isobench agents run
                agents:
                  - name: scripted
                    model: scripted-1
                    runner:
                      adapter: command
                      argv: [python3, "%s", "{repo}", "{prompt_file}"]
                      env: {FAIL_LATENCY: "1"}
                      pricing: {input_usd_per_mtok: 3, output_usd_per_mtok: 15}
                """.formatted(dir.resolve("agent.py")));
    }

    private AgentsRun.Summary run(Store store, int k, String resume) throws Exception {
        Suite suite = SuiteLoader.load(suiteFile);
        List<String> lines = new ArrayList<>();
        return new AgentsRun(store, Map.of(), lines::add, AgentsRun.defaultSandboxes("local"))
                .run(new AgentsRun.Request(suite, "scripted", List.of("tpot", "latency"), k, "local",
                        dir.resolve("work"), resume));
    }

    private List<String> calls() throws Exception {
        return Files.readAllLines(dir.resolve("calls.txt"));
    }

    @Test
    void attemptsAreStoredPlannedFromTheStoreExportedOnlyWhenAskedAndResumedWithoutRepeats() throws Exception {
        byte[] suiteBytes = Files.readAllBytes(suiteFile);
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            AgentsRun.Summary first = run(store, 1, null);
            assertThat(first.attempts()).extracting(AgentsRun.AttemptRow::status)
                    .containsExactly(AttemptStatus.OK, AttemptStatus.AGENT_CRASH);
            assertThat(calls()).containsExactly("tpot", "latency");

            // an attempt cut off mid-way leaves its folder: the resumed run clears it and runs that attempt again
            Path cut = dir.resolve("work/agents").resolve(first.sessionId()).resolve("tpot/scripted@2/repo");
            Files.createDirectories(cut);
            Files.writeString(cut.resolve("junk"), "half an attempt");
            AgentsRun.Summary resumed = run(store, 2, first.sessionId());
            assertThat(resumed.sessionId()).isEqualTo(first.sessionId());
            assertThat(resumed.attempts()).extracting(AgentsRun.AttemptRow::resumed)
                    .containsExactly(true, true, false, false);
            assertThat(calls()).as("no attempt repeated").containsExactly("tpot", "latency", "tpot", "latency");

            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.AGENT_ATTEMPT), first.sessionId(), false),
                    runs::add);
            assertThat(runs).hasSize(4);
            assertThat(AtifStores.assertEveryTrajectoryValid(store)).isEqualTo(4);
            RunRecord ok = runs.stream().filter(r -> r.key().runId().endsWith("/tpot/scripted@1")).findFirst()
                    .orElseThrow();
            var d = ok.details().section(AttemptRecords.SECTION);
            assertThat(d.path("tokens_in").asLong()).isEqualTo(1000);
            assertThat(d.path("cost_usd").asDouble()).isCloseTo(0.0045, org.assertj.core.data.Offset.offset(1e-12));
            assertThat(d.path("prompt_template_sha256").asText()).isEqualTo(PromptTemplate.sha256(
                    PromptTemplate.DEFAULT));
            assertThat(d.path("hints").asText()).isEqualTo("none");
            assertThat(new String(store.artifact(d.path("patch_sha256").asText()).orElseThrow()))
                    .contains("+attempt on tpot").doesNotContain("Task ");
            assertThat(new String(store.artifact(d.path("trajectory_sha256").asText()).orElseThrow()))
                    .contains("\"schema_version\"").contains("\"total_prompt_tokens\" : 1000");
            RunRecord crash = runs.stream().filter(r -> r.key().runId().endsWith("/latency/scripted@1"))
                    .findFirst().orElseThrow();
            assertThat(crash.outcome().failure().category()).isEqualTo("AGENT_CRASH");
            assertThat(store.session(first.sessionId()).orElseThrow().status()).isEqualTo("agents-complete");

            assertThat(Files.readAllBytes(suiteFile)).as("agents run never writes the suite").isEqualTo(suiteBytes);
            assertThat(dir.resolve("patches")).as("nor patch files beside it").doesNotExist();

            // run --attempts-of: the stored attempts are the agent arms NAME@k, patches from the store
            StoredAttempts stored = StoredAttempts.read(store, first.sessionId(), "--attempts-of");
            Suite planned = stored.plan(SuiteLoader.load(suiteFile), dir.resolve("work/attempts"), s -> { });
            assertThat(planned.agents()).extracting(a -> a.name())
                    .containsExactly("scripted", "scripted@1", "scripted@2");
            assertThat(planned.agents().get(1).patches()).containsOnlyKeys("tpot");
            assertThat(planned.agents().get(1).model()).isEqualTo("scripted-1");
            assertThat(planned.agents().get(2).patches().get("tpot")).isEqualTo(dir.resolve("work/attempts")
                    .resolve(first.sessionId()).resolve("scripted@2/tpot.diff"));
            assertThat(Files.readString(planned.agents().get(1).patches().get("tpot"))).contains("+attempt on tpot");
            assertThat(planned.agents().get(2).attemptRuns()).as("each arm knows the stored attempt it measures")
                    .isEqualTo(Map.of("tpot", first.sessionId() + "/tpot/scripted@2"));
            assertThat(planned.agents().get(0).attemptRuns()).as("an agent the suite names").isEmpty();
            assertThat(Files.readAllBytes(suiteFile)).as("planning writes no suite").isEqualTo(suiteBytes);

            // the explicit export writes the same arms into the suite file
            stored.exportTo(SuiteLoader.load(suiteFile), s -> { });
            Suite after = SuiteLoader.load(suiteFile);
            assertThat(after.agents()).extracting(a -> a.name())
                    .containsExactly("scripted", "scripted@1", "scripted@2");
            assertThat(after.agents().get(1).patches()).containsOnlyKeys("tpot");
            assertThat(after.agents().get(2).patches()).containsOnlyKeys("tpot");
            assertThat(after.agents().get(1).model()).isEqualTo("scripted-1");
            assertThat(after.agents().get(1).attemptRuns()).as("a suite file names patches, not attempts").isEmpty();
            assertThat(Files.readString(after.agents().get(1).patches().get("tpot"))).contains("+attempt on tpot");
            assertThat(Files.readString(suiteFile)).contains("# agents: the scripted one is run by isobench agents"
                    + " run").as("comments kept");
            assertThat(Leaderboard.of(store, StatsConfig.defaults())
                    .entries()).as("an agents run is not a measurement session").isEmpty();
        }
    }

    /** A local sandbox whose attempt (not its --version call) fails to start for the latency task. */
    private static AgentsRun.SandboxFactory failingLatency(int[] starts) {
        return (config, runner, suite) -> new AgentSandbox() {
            final LocalSandbox local = new LocalSandbox(config.cliOrDefault(), config.baseUrl());

            public String name() {
                return local.name();
            }

            public SandboxView view(AttemptDirs dirs) {
                return local.view(dirs);
            }

            public Process start(AttemptDirs dirs, Invocation inv, Map<String, String> secrets)
                    throws IOException {
                if (!inv.argv().contains("--version") && dirs.root().toString().contains("/latency/")) {
                    starts[0]++;
                    throw new IllegalStateException("boom: the sandbox broke");
                }
                return local.start(dirs, inv, secrets);
            }

            public void kill(Process process) {
                local.kill(process);
            }

            public void reap(AttemptDirs dirs) {
                local.reap(dirs);
            }

            public void close() {
                local.close();
            }
        };
    }

    @Test
    void anAttemptIsobenchFailsIsRecordedNeverRepeatedAndDropsNoOtherEntry() throws Exception {
        Files.writeString(suiteFile, Files.readString(suiteFile).replace("env: {FAIL_LATENCY: \"1\"}", "env: {}"));
        int[] starts = {0};
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            Suite suite = SuiteLoader.load(suiteFile);
            AgentsRun.Summary first = new AgentsRun(store, Map.of(), s -> { }, failingLatency(starts))
                    .run(new AgentsRun.Request(suite, "scripted", List.of("tpot", "latency"), 1, "local",
                            dir.resolve("work"), null));
            assertThat(first.attempts()).extracting(AgentsRun.AttemptRow::status)
                    .containsExactly(AttemptStatus.OK, AttemptStatus.ATTEMPT_CRASHED);
            assertThat(first.attempts().get(1).detail()).contains("IllegalStateException: boom: the sandbox broke");
            RunRecord crash = store.run(first.sessionId() + "/latency/scripted@1").orElseThrow();
            assertThat(crash.outcome().failure().category()).isEqualTo("ATTEMPT_CRASHED");
            assertThat(StoredAttempts.read(store, first.sessionId(), "--attempts-of").plan(SuiteLoader.load(
                    suiteFile), dir.resolve("work/attempts"), s -> { }).agents().get(1).patches())
                    .as("tpot keeps its arm").containsOnlyKeys("tpot");

            AgentsRun.Summary resumed = new AgentsRun(store, Map.of(), s -> { }, failingLatency(starts))
                    .run(new AgentsRun.Request(SuiteLoader.load(suiteFile), "scripted", List.of("tpot", "latency"),
                            1, "local", dir.resolve("work"), first.sessionId()));
            assertThat(resumed.attempts()).extracting(AgentsRun.AttemptRow::resumed).containsExactly(true, true);
            assertThat(starts[0]).as("the crash is not repeated").isEqualTo(1);
        }
    }

    @Test
    void anAttemptCutOffTwiceIsRecordedInsteadOfRunAgain() throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            AgentsRun.Summary first = run(store, 1, null);
            Path agents = dir.resolve("work/agents").resolve(first.sessionId());
            Files.createDirectories(agents.resolve("tpot/scripted@2"));
            Files.writeString(agents.resolve("tpot/scripted@2.starts"), "2"); // isobench died in it twice
            AgentsRun.Summary resumed = run(store, 2, first.sessionId());
            assertThat(resumed.attempts()).extracting(AgentsRun.AttemptRow::status).containsExactly(
                    AttemptStatus.OK, AttemptStatus.AGENT_CRASH, AttemptStatus.ATTEMPT_CRASHED,
                    AttemptStatus.AGENT_CRASH);
            assertThat(resumed.attempts().get(2).detail()).contains("isobench ended while this attempt ran, 2 times");
            assertThat(calls()).as("tpot attempt 2 not run again").containsExactly("tpot", "latency", "latency");
            assertThat(agents.resolve("latency/scripted@2.starts")).as("a recorded attempt leaves no count")
                    .doesNotExist();
        }
    }

    @Test
    void aChangedPatchFileIsWrittenAgainFromTheStoreOnExport() throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            AgentsRun.Summary first = run(store, 1, null);
            StoredAttempts stored = StoredAttempts.read(store, first.sessionId(), "--session");
            stored.exportTo(SuiteLoader.load(suiteFile), s -> { });
            Path patch = dir.resolve("patches/scripted@1/tpot.diff");
            byte[] was = Files.readAllBytes(patch);
            Files.writeString(patch, "edited by hand\n");
            List<String> lines = new ArrayList<>();
            stored.exportTo(SuiteLoader.load(suiteFile), lines::add);
            assertThat(Files.readAllBytes(patch)).isEqualTo(was);
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("tpot.diff: missing or changed since attempt 1"
                    + " wrote it; written again from the store"));
            assertThat(SuiteLoader.load(suiteFile).agents().get(1).patches()).containsOnlyKeys("tpot");
        }
    }

    @Test
    void anUnknownOrMeasurementSessionIsNoAgentsRunAndSaysTheFix() throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            store.putSession(SessionRecord.builder("measured-1").build());
            assertThatThrownBy(() -> StoredAttempts.read(store, "agents-nope", "--attempts-of"))
                    .isInstanceOf(io.isobench.IsobenchException.BadInput.class)
                    .hasMessageStartingWith("--attempts-of agents-nope: no session 'agents-nope' in")
                    .hasMessageContaining("(fix: the session id `isobench agents run` printed")
                    .hasMessageNotContaining("\n");
            assertThatThrownBy(() -> StoredAttempts.read(store, "measured-1", "--attempts-of"))
                    .hasMessageContaining("--attempts-of measured-1: a measurement session, not an agents run (fix:");
        }
    }

    @Test
    void anAgentWithoutRunnerOrUnknownIsRefusedWithTheFix() throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            Suite suite = SuiteLoader.load(suiteFile);
            AgentsRun r = new AgentsRun(store, Map.of(), s -> { }, AgentsRun.defaultSandboxes("local"));
            assertThatThrownBy(() -> r.run(new AgentsRun.Request(suite, "nobody", List.of(), 1, "local",
                    dir.resolve("w"), null))).hasMessageContaining("agent 'nobody' is not in")
                    .hasMessageContaining("fix:");
            assertThatThrownBy(() -> r.run(new AgentsRun.Request(suite, "scripted", List.of("nope"), 1, "local",
                    dir.resolve("w"), null))).hasMessageContaining("--tasks: no task 'nope'");
            assertThatThrownBy(() -> new AgentsRun.Request(suite, "scripted", List.of(), 0, "local",
                    dir.resolve("w"), null)).hasMessageContaining("--attempts (0) must be >= 1");
        }
    }
}
