package io.isobench.agent;

import io.isobench.AtifStores;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.agent.ScriptedAnthropicServer.Request;
import io.isobench.agent.ScriptedAnthropicServer.Script;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Claude Code CLI ({@code tools/agent-clis}, pinned 2.1.332) driven offline by {@link ScriptedAnthropicServer}
 * (a named fake of the Anthropic API) through {@link AttemptRunner} in a {@link LocalSandbox} on the toy engine's
 * sealed repository (docs/agents.md). Raw outputs are copied to {@code target/agent-transcripts/claude-code/}.
 */
@ResourceLock(ItLocks.SANDBOX)
class ClaudeCodeAgentIT {

    /** A fake key: never valid anywhere, and it must appear in no stored output. */
    static final String KEY = "sk-ant-test-isobench-0123456789abcdefKEY";
    static final String MODEL = "claude-sonnet-4-5";
    static final Path CLI = Path.of("tools/agent-clis/node_modules/.bin/claude").toAbsolutePath();
    static final Path TRANSCRIPTS = Path.of("target/agent-transcripts/claude-code");
    static final String PERF = "python3 benchmarks/benchmark_latency.py --model toy-1m --batch-size 1 --input-len 32"
            + " --output-len 16 --num-iters 20 --num-iters-warmup 2 --seed 0";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    static Path toyRepo;

    @BeforeAll
    static void setUp() throws Exception {
        SharedData.requireService(Files.isExecutable(CLI), "the Claude Code CLI at " + CLI
                + " (npm install in tools/agent-clis)");
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git and setsid for the toy engine");
        toyRepo = tmp.resolve("toy-repo");
        ToyRepo.build(toyRepo);
        Files.createDirectories(TRANSCRIPTS);
    }

    /** One attempt's outcome with the server that answered it. */
    record Run(AttemptResult result, List<Request> requests, Script script, AttemptDirs dirs) {
    }

    static Run attempt(String name, Function<String, Script> scriptFor, Budget budget) throws Exception {
        AttemptDirs dirs = AttemptDirs.under(tmp.resolve(name));
        SealedRepo sealed = SealedRepo.create(toyRepo, "baseline", dirs);
        Script script = scriptFor.apply(dirs.repo().toString());
        try (ScriptedAnthropicServer server = ScriptedAnthropicServer.start(script, KEY);
             LocalSandbox sandbox = new LocalSandbox(CLI.toString(), server.baseUrl())) {
            AgentConfig config = new AgentConfig("claude-code", CLI.toString(), List.of(), MODEL, server.baseUrl(),
                    List.of(), Map.of(), budget, Map.of());
            AttemptRunner runner = new AttemptRunner(new ClaudeCodeAdapter(), config, sandbox,
                    Map.of("ANTHROPIC_API_KEY", KEY));
            String prompt = PromptTemplate.defaults().render("latency", PERF, "avg latency", true,
                    dirs.repo().toString(), null);
            AttemptResult r = AtifStores.valid(runner.run(dirs, sealed, prompt));
            Files.writeString(TRANSCRIPTS.resolve(name + ".stdout.jsonl"), r.rawStdout());
            Files.writeString(TRANSCRIPTS.resolve(name + ".stderr.txt"), r.rawStderr());
            Files.writeString(TRANSCRIPTS.resolve(name + ".trajectory.json"),
                    r.trajectory().toJson("claude-code", r.cliVersion(), MODEL, r.usage()));
            Run run = new Run(r, server.requests(), script, dirs);
            Files.writeString(TRANSCRIPTS.resolve(name + ".requests.txt"), describe(run));
            return run;
        }
    }

    static String describe(Run run) {
        StringBuilder sb = new StringBuilder("status " + run.result().status() + " (" + run.result().detail()
                + "), exit " + run.result().exitCode() + "\nrequests:");
        for (Request q : run.requests()) {
            sb.append("\n  ").append(q.method()).append(' ').append(q.path()).append(" → ").append(q.kind())
                    .append(' ').append(q.status());
        }
        sb.append("\nstderr:\n").append(run.result().rawStderr()).append("\nstdout:\n").append(run.result().rawStdout());
        return sb.toString();
    }

    @Test
    void theRealCliEditsTheToyEngineAndEverythingIsRecorded() throws Exception {
        Run run = attempt("edit", ClaudeScripts::edit, new Budget(600.0, 20, 1_000_000L, 5.0));
        AttemptResult r = run.result();
        String why = describe(run);
        assertEquals(AttemptStatus.OK, r.status(), why);
        assertEquals(ClaudeScripts.EDIT_DONE, r.detail(), why);

        // The patch is exactly the scripted edit: one file, one line out, one line in; no scratch (.claude/,
        // __pycache__ from compileall).
        String patch = r.patch();
        assertTrue(patch.startsWith("diff --git a/toyllm/config.py b/toyllm/config.py\n"), patch);
        assertEquals(1, count(patch, "(?m)^diff --git "), patch);
        List<String> changed = patch.lines().filter(l -> (l.startsWith("+") || l.startsWith("-"))
                && !l.startsWith("+++") && !l.startsWith("---")).toList();
        assertEquals(List.of("-" + ClaudeScripts.EDIT_OLD, "+" + ClaudeScripts.EDIT_NEW), changed, patch);
        assertTrue(Files.isDirectory(run.dirs().repo().resolve("toyllm/__pycache__")),
                "the Bash call ran compileall in the worktree");

        // Usage: the scripted sums, the CLI's own cost.
        JsonNode result = resultLine(r.rawStdout());
        assertEquals(4, r.usage().turns(), why);
        assertEquals(run.script().inputTokens(), r.usage().tokensIn(), why);
        assertEquals(run.script().outputTokens(), r.usage().tokensOut(), why);
        assertNotNull(r.usage().costUsd());
        assertTrue(r.usage().costUsd() > 0, "cost " + r.usage().costUsd());
        assertEquals(result.path("total_cost_usd").asDouble(), r.usage().costUsd(), 0.0);
        assertTrue(r.cliVersion().startsWith("2.1.332"), r.cliVersion());

        // The trajectory: Read, Edit, Bash with their results.
        List<Trajectory.ToolCall> calls = r.trajectory().steps().stream()
                .flatMap(s -> s.toolCalls().stream()).toList();
        assertEquals(List.of("Read", "Edit", "Bash"), calls.stream().map(Trajectory.ToolCall::name).toList(),
                r.trajectory().toString());
        calls.forEach(c -> assertNotNull(c.resultSummary(), c.toString()));
        assertTrue(calls.get(0).resultSummary().contains("Simulated hardware costs"), calls.get(0).resultSummary());
        assertTrue(r.rawStdout().contains(ClaudeScripts.EDIT_OLD), "the whole Read result is in the raw output");
        assertTrue(calls.get(1).arguments().contains(ClaudeScripts.EDIT_NEW), calls.get(1).arguments());
        assertTrue(calls.get(2).arguments().contains(ClaudeScripts.CHECK_COMMAND), calls.get(2).arguments());
        assertEquals("system", r.trajectory().steps().get(0).source());
        assertEquals(ClaudeScripts.EDIT_DONE, last(r.trajectory().steps()).message());

        // The key reached the server, and no stored output.
        String trajectoryJson = r.trajectory().toJson("claude-code", r.cliVersion(), MODEL, r.usage());
        for (String stored : List.of(r.rawStdout(), r.rawStderr(), trajectoryJson, r.detail(),
                Files.readString(run.dirs().stdoutFile()), Files.readString(run.dirs().stderrFile()))) {
            assertFalse(stored.contains(KEY), "the API key leaked into a stored output");
        }
        try (var files = Files.walk(run.dirs().home())) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertFalse(Files.readString(f, StandardCharsets.ISO_8859_1).contains(KEY),
                        "the API key in the agent's home: " + f);
            }
        }
        assertFalse(run.requests().isEmpty());
        for (Request q : run.requests()) {
            assertTrue(q.keyMatched(), "request without the key: " + q.path());
            assertTrue(q.answered(), "a request the scripted server does not know: " + q.method() + " " + q.path()
                    + " → " + q.kind());
            assertFalse(q.body().contains(KEY), "the key in a request body");
        }
        assertEquals(List.of("main:0", "main:1", "main:2", "main:3"), run.requests().stream()
                .map(Request::kind).filter(k -> k.startsWith("main:")).distinct().toList(), why);

        // The patch really speeds the engine up: the latency task's benchmark on the sealed tree and on the edit.
        Path before = tmp.resolve("before");
        ToyRepo.run(toyRepo, "git", "worktree", "add", "-q", "--detach", before.toString(), "baseline");
        double baseline = avgLatency(before);
        double edited = avgLatency(run.dirs().repo());
        assertTrue(edited < baseline * 0.8, "avg latency " + edited + " s after the edit vs " + baseline + " s before");
    }

    @Test
    void aTurnBudgetStopsTheCliThroughItsOwnFlag() throws Exception {
        Run run = attempt("overrun-turns", repo -> ClaudeScripts.overrun(5, 1000), new Budget(600.0, 2, null, null));
        AttemptResult r = run.result();
        String why = describe(run);
        assertEquals(AttemptStatus.BUDGET_EXCEEDED, r.status(), why);
        JsonNode result = resultLine(r.rawStdout());
        assertEquals("error_max_turns", result.path("subtype").asText(), why);
        assertEquals("claude-code stopped at its --max-turns limit (2 turns)", r.detail(), why);
        assertEquals(2, r.usage().turns(), why);
        assertEquals(1, r.exitCode(), "the CLI stopped itself (exit 1); isobench did not kill it: " + why);
        long main = run.requests().stream().filter(q -> q.kind().startsWith("main:")).count();
        assertTrue(main <= 3, "the CLI kept asking: " + why);
        assertEquals("", r.patch());
    }

    @Test
    void aUsdBudgetStopsTheCliThroughItsOwnFlag() throws Exception {
        // 100,000 input tokens a turn at claude-sonnet-4-5's list price ($3 per million) is $0.30 a turn; isobench
        // sees no cost until the result line, so only the CLI's --max-budget-usd can stop it mid-run.
        Run run = attempt("overrun-usd", repo -> ClaudeScripts.overrun(5, 100_000), new Budget(600.0, null, null, 0.5));
        AttemptResult r = run.result();
        String why = describe(run);
        assertEquals(AttemptStatus.BUDGET_EXCEEDED, r.status(), why);
        // The CLI stopped itself after the second turn ($0.60 > $0.50) and said so; the cost first reached isobench
        // on that final line, so isobench's kill (racing the CLI's own exit) could not have stopped it earlier.
        assertEquals("error_max_budget_usd", resultLine(r.rawStdout()).path("subtype").asText(), why);
        assertTrue(r.usage().costUsd() > 0.5, why);
        assertEquals(List.of("main:0", "main:1"), run.requests().stream().map(Request::kind).distinct().toList(), why);
    }

    @Test
    void aTokenBudgetIsEnforcedByIsobenchKillingTheCli() throws Exception {
        // The CLI has no token flag: only isobench's reading of the stream can stop it. Each turn reads 1000
        // input tokens; the budget is passed on the second turn.
        Run run = attempt("overrun-tokens", repo -> ClaudeScripts.overrun(5, 1000),
                new Budget(600.0, null, 1500L, null));
        AttemptResult r = run.result();
        String why = describe(run);
        assertEquals(AttemptStatus.BUDGET_EXCEEDED, r.status(), why);
        assertTrue(r.detail().contains("killed by isobench"), why);
        assertTrue(r.detail().startsWith("tokens "), why);
        assertTrue(r.usage().tokens() > 1500, why);
        long main = run.requests().stream().map(Request::kind).filter(k -> k.startsWith("main:")).distinct().count();
        assertTrue(main < 5, "the CLI ran to the end: " + why);
        assertTrue(resultLineOrNull(r.rawStdout()) == null, "killed before it printed a result: " + why);
    }

    @Test
    void aNetworkEscapeWorksInTheLocalSandboxWhichHasNoWalls() throws Exception {
        // The local sandbox isolates nothing (docs/agents.md): the agent's Bash reaches another local port. The
        // docker sandbox's IT runs the same script and expects it to fail.
        try (var other = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (var s = other.accept()) {
                    s.getInputStream().read(new byte[1024]);
                    s.getOutputStream().write("HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\nescaped"
                            .getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // the test fails on the result below
                }
            });
            Run run = attempt("escape-local", repo -> ClaudeScripts.escape("127.0.0.1", other.getLocalPort()),
                    new Budget(600.0, 10, null, null));
            AttemptResult r = run.result();
            String why = describe(run);
            assertEquals(AttemptStatus.EMPTY_PATCH, r.status(), why);
            Trajectory.ToolCall bash = r.trajectory().steps().stream().flatMap(s -> s.toolCalls().stream())
                    .filter(c -> c.name().equals("Bash")).findFirst().orElseThrow();
            assertTrue(bash.resultSummary().contains("escaped"), "the local sandbox let it through: " + bash);
        }
    }

    private static double avgLatency(Path repo) throws Exception {
        List<String> argv = new ArrayList<>(List.of(PERF.split(" ")));
        String out = ToyRepo.run(repo, argv.toArray(String[]::new));
        Matcher m = Pattern.compile("Avg latency: ([0-9.eE+-]+) seconds").matcher(out);
        assertTrue(m.find(), out);
        return Double.parseDouble(m.group(1));
    }

    static JsonNode resultLine(String stdout) throws IOException {
        JsonNode r = resultLineOrNull(stdout);
        assertNotNull(r, "no result line in:\n" + stdout);
        return r;
    }

    static JsonNode resultLineOrNull(String stdout) throws IOException {
        JsonNode found = null;
        for (String line : stdout.split("\n")) {
            if (line.startsWith("{")) {
                JsonNode n = JSON.readTree(line);
                if ("result".equals(n.path("type").asText())) {
                    found = n;
                }
            }
        }
        return found;
    }

    private static int count(String s, String regex) {
        return (int) Pattern.compile(regex).matcher(s).results().count();
    }

    private static <T> T last(List<T> l) {
        return l.get(l.size() - 1);
    }
}
