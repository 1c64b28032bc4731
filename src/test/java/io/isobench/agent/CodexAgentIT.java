package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.SharedData;
import io.isobench.agent.ScriptedOpenAiServer.Script;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Codex CLI ({@code tools/agent-clis}, pinned 0.171.0) edits the toy engine's sealed repository through
 * {@link AttemptRunner} with a {@link LocalSandbox}, its model replaced by {@link ScriptedOpenAiServer} (a named
 * fake: no model API is reachable here). Also writes the raw JSONL of each run to {@code target/codex-it/} (the
 * unit tests' golden transcripts under src/test/resources/agent/codex/ were captured this way).
 */
@ResourceLock(ItLocks.SANDBOX)
class CodexAgentIT {

    static final String KEY = "sk-isobench-fake-codex-key-0123456789";
    static final Path CLI = Path.of("tools/agent-clis/node_modules/.bin/codex").toAbsolutePath();

    @TempDir
    static Path shared;
    static Path engine;
    static String tpotParent;

    @BeforeAll
    static void engineRepo() throws Exception {
        SharedData.requireService(Files.isExecutable(CLI), "the Codex CLI at " + CLI
                + " (npm install in tools/agent-clis)");
        engine = shared.resolve("engine");
        Process p = new ProcessBuilder("bash", "examples/toy-engine/build-repo.sh", engine.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        tpotParent = out.lines().filter(l -> l.startsWith("task=tpot ")).findFirst().orElseThrow()
                .replaceAll(".*parent=(\\S+).*", "$1");
    }

    record Run(AttemptResult result, ScriptedOpenAiServer server, AttemptDirs dirs) {
    }

    static Run run(Script script, Budget budget, Path root, String name) throws IOException {
        return run(script, KEY, budget, root, name);
    }

    static Run run(Script script, String serverKey, Budget budget, Path root, String name) throws IOException {
        AttemptDirs dirs = AttemptDirs.under(root);
        SealedRepo sealed = SealedRepo.create(engine, tpotParent, dirs);
        ScriptedOpenAiServer server = ScriptedOpenAiServer.start(script, serverKey);
        AgentConfig config = new AgentConfig("codex", CLI.toString(), List.of(), CodexScripts.MODEL, server.baseUrl(),
                List.of(), Map.of(), budget, Map.of());
        CodexAdapter adapter = new CodexAdapter();
        try (LocalSandbox sandbox = new LocalSandbox(CLI.toString(), server.baseUrl())) {
            AttemptRunner runner = new AttemptRunner(adapter, config, sandbox,
                    AttemptRunner.secretsFrom(adapter, config, Map.of("OPENAI_API_KEY", KEY)));
            String prompt = PromptTemplate.defaults().render("tpot",
                    "python3 benchmarks/benchmark_latency.py --input-len 32 --output-len 256 --batch-size 1",
                    "tpot", true, sealed.worktree().toString(), null);
            AttemptResult r = AtifStores.valid(runner.run(dirs, sealed, prompt));
            Path keep = Path.of("target", "codex-it");
            Files.createDirectories(keep);
            Files.writeString(keep.resolve(name + ".jsonl"), r.rawStdout());
            Files.writeString(keep.resolve(name + ".stderr"), r.rawStderr());
            return new Run(r, server, dirs);
        } finally {
            server.close();
        }
    }

    @Test
    void theRealCliMakesTheHumansTpotChange(@TempDir Path tmp) throws Exception {
        Script script = CodexScripts.edit();
        Run run = run(script, new Budget(300.0, 20, 1_000_000L, null), tmp.resolve("attempt"), "edit");
        AttemptResult r = run.result();
        String diag = "detail: " + r.detail() + "\nstdout:\n" + r.rawStdout() + "\nstderr:\n" + r.rawStderr();

        assertEquals(AttemptStatus.OK, r.status(), diag);
        assertEquals(CodexScripts.EDIT_DONE, r.detail());
        // the patch is the human's tpot change, and nothing else (no .codex/, no __pycache__ from compileall)
        String human = Files.readString(Path.of("examples/toy-engine/patches/human/tpot.patch"));
        assertEquals(withoutIndexLines(human), withoutIndexLines(r.patch()), diag);
        assertTrue(Files.isDirectory(run.dirs().repo().resolve("toyllm/__pycache__")), "compileall ran in the repo");
        // usage: the scripted sums, and one turn per model response
        assertEquals(script.inputTokens(4), r.usage().tokensIn(), diag);
        assertEquals(script.outputTokens(4), r.usage().tokensOut(), diag);
        assertEquals(4, r.usage().turns(), diag);
        assertEquals(null, r.usage().costUsd());
        // the trajectory: read, patch, compile, final message, each call with its result
        List<Trajectory.ToolCall> calls = r.trajectory().steps().stream().flatMap(s -> s.toolCalls().stream()).toList();
        assertEquals(List.of("exec_command", "apply_patch", "exec_command"),
                calls.stream().map(Trajectory.ToolCall::name).toList(), diag);
        calls.forEach(c -> assertNotNull(c.resultSummary(), c.toString()));
        assertTrue(calls.get(0).resultSummary().contains("class Detokenizer"), calls.get(0).resultSummary());
        assertTrue(calls.get(1).resultSummary().contains("detokenizer.py"), calls.get(1).resultSummary());
        assertTrue(calls.get(2).resultSummary().startsWith("exit 0"), calls.get(2).resultSummary());
        List<Trajectory.Step> steps = r.trajectory().steps();
        assertEquals(CodexScripts.EDIT_DONE, steps.get(steps.size() - 1).message());
        // the CLI's version line
        assertEquals("codex-cli 0.171.0", r.cliVersion());
        // every request was a known one, authorised and answered from the script
        List<ScriptedOpenAiServer.Request> reqs = run.server().requests();
        assertFalse(reqs.isEmpty());
        for (ScriptedOpenAiServer.Request q : reqs) {
            assertTrue(q.keyOk() && q.answered() && !q.unscripted(), q.method() + " " + q.path());
            assertTrue(q.path().equals("/v1/responses") || q.path().equals("/v1/models"), q.path());
        }
        assertEquals(4, run.server().modelCalls().size());
        // the fake key is in no stored output: results, trajectory, and every file of the attempt
        assertKeyAbsent(r);
        assertKeyAbsentFromFiles(run.dirs().root());
    }

    @Test
    void aTurnBudgetIsEnforcedByIsobenchsKill(@TempDir Path tmp) throws Exception {
        Run run = run(CodexScripts.overrun(5), new Budget(300.0, 2, null, null), tmp.resolve("attempt"), "overrun-turns");
        AttemptResult r = run.result();
        String diag = "detail: " + r.detail() + "\nstdout:\n" + r.rawStdout() + "\nstderr:\n" + r.rawStderr();
        assertEquals(AttemptStatus.BUDGET_EXCEEDED, r.status(), diag);
        assertEquals("turns 3 > 2; killed by isobench", r.detail(), diag);
        assertFalse(r.rawStdout().contains("turn.completed"), "killed before the run ended\n" + diag);
        assertTrue(run.server().modelCalls().size() <= 4, "stopped within one turn of the budget: "
                + run.server().modelCalls().size() + " model calls");
        assertKeyAbsent(r);
    }

    @Test
    void aTokenBudgetIsEnforcedMidRunFromCodexsSessionLog(@TempDir Path tmp) throws Exception {
        // each turn is 1050 tokens and its command takes a second: the second response passes 1500, and isobench
        // reads it from the rollout Codex appends (its stdout has tokens only at the end) and kills the attempt
        Run run = run(CodexScripts.overrun(5, "sleep 1; echo step"), new Budget(300.0, null, 1500L, null),
                tmp.resolve("attempt"), "overrun-tokens");
        AttemptResult r = run.result();
        String diag = "detail: " + r.detail() + "\nstdout:\n" + r.rawStdout() + "\nstderr:\n" + r.rawStderr();
        assertEquals(AttemptStatus.BUDGET_EXCEEDED, r.status(), diag);
        assertEquals("tokens 2100 > 1500; killed by isobench", r.detail(), diag);
        assertFalse(r.rawStdout().contains("turn.completed"), "killed before the run ended\n" + diag);
        assertEquals(2, run.server().modelCalls().size(), diag);
        assertEquals(2000, r.usage().tokensIn(), diag);
        assertEquals(100, r.usage().tokensOut(), diag);
    }

    @Test
    void aRejectedKeyIsAnAgentCrashWithTheApisError(@TempDir Path tmp) throws Exception {
        Run run = run(CodexScripts.edit(), "sk-another-key-the-server-wants", new Budget(120.0, null, null, null),
                tmp.resolve("attempt"), "rejected-key");
        AttemptResult r = run.result();
        String diag = "detail: " + r.detail() + "\nstdout:\n" + r.rawStdout() + "\nstderr:\n" + r.rawStderr();
        assertEquals(AttemptStatus.AGENT_CRASH, r.status(), diag);
        assertTrue(r.detail().contains("401") || r.detail().contains("invalid api key"), diag);
        assertEquals("", r.patch());
        assertFalse(run.server().requests().isEmpty());
        run.server().requests().forEach(q -> assertFalse(q.keyOk()));
        assertKeyAbsent(r);
    }

    @Test
    void theEscapeScriptRunsItsCommandAndReportsWhatCameBack(@TempDir Path tmp) throws Exception {
        // the local sandbox is no wall: the command succeeds here (a docker sandbox's IT expects it to fail)
        Path outside = tmp.resolve("host-secret.txt");
        Files.writeString(outside, "host-only-content\n");
        Run run = run(CodexScripts.escape("cat " + outside + "; exit 7"), new Budget(120.0, null, null, null),
                tmp.resolve("attempt"), "escape-local");
        AttemptResult r = run.result();
        String diag = "detail: " + r.detail() + "\nstdout:\n" + r.rawStdout() + "\nstderr:\n" + r.rawStderr();
        assertEquals("exit 7 (failed)\nhost-only-content\n", CodexScripts.firstCommandResult(r), diag);
        assertEquals(AttemptStatus.EMPTY_PATCH, r.status(), diag);
        assertEquals(2, run.server().modelCalls().size());
        // the command's output went back to the model as the call's output
        assertTrue(run.server().modelCalls().get(1).body().contains("host-only-content"), diag);
    }

    static String withoutIndexLines(String patch) {
        return patch.lines().filter(l -> !l.startsWith("index ")).reduce("", (a, b) -> a + b + "\n");
    }

    static void assertKeyAbsent(AttemptResult r) throws IOException {
        for (String s : List.of(r.rawStdout(), r.rawStderr(), r.detail(), r.patch(),
                r.trajectory().toJson("codex", r.cliVersion(), CodexScripts.MODEL, r.usage()))) {
            assertFalse(s.contains(KEY), "the API key leaked into an output");
        }
    }

    static void assertKeyAbsentFromFiles(Path root) throws IOException {
        byte[] key = KEY.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                assertFalse(text.contains(new String(key, StandardCharsets.ISO_8859_1)), "the API key is in " + f);
            }
        }
    }
}
