package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19's proof, end to end, as a user runs it: the REAL Claude Code and Codex CLIs ({@code tools/agent-clis})
 * run by {@code isobench agents run --executor docker} in the sealed docker sandbox, against scripted model servers
 * (named fakes: {@link ScriptedAnthropicServer}, {@link ScriptedOpenAiServer}) reached only through the egress proxy;
 * each edits the toy engine, its patch is collected, reviewed and measured by {@code isobench run}, and
 * {@code isobench report} shows its verdict, tokens, cost and trajectory. Then, in the same sandbox: a scripted
 * budget overrun is {@code BUDGET_EXCEEDED}, and a scripted network escape fails from inside.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class AgentsSandboxE2EIT {

    static final Path CLAUDE = Path.of("tools/agent-clis/node_modules/.bin/claude").toAbsolutePath();
    static final Path CODEX = Path.of("tools/agent-clis/node_modules/.bin/codex").toAbsolutePath();
    static final String ANTHROPIC_KEY = "sk-ant-test-e2e-0123456789abcdefKEY";
    static final String OPENAI_KEY = "sk-test-e2e-openai-0123456789abcdefKEY";

    @TempDir
    Path dir;

    @BeforeAll
    static void services() throws Exception {
        SharedData.requireService(Files.isExecutable(CLAUDE) && Files.isExecutable(CODEX),
                "the agent CLIs in tools/agent-clis (npm install there)");
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git and setsid for the toy engine");
        boolean image = AgentImage.exec(List.of("docker", "image", "inspect", AgentsRun.DEFAULT_IMAGE),
                Duration.ofSeconds(60), Map.of()).code() == 0;
        SharedData.requireService(image, "a running docker daemon with the image " + AgentsRun.DEFAULT_IMAGE
                + " (scripts/provision-docker)");
    }

    /** A one-task suite (the demo's task {@code task}) with the given agents, beside a fresh toy repo. */
    private Path suite(String task, List<Map<String, Object>> agents) throws Exception {
        ToyRepo.build(dir.resolve("toyllm-repo"));
        copyTree(Path.of("examples/toy-engine/eval"), dir.resolve("eval"));
        @SuppressWarnings("unchecked")
        Map<String, Object> demo = new Yaml().load(Files.readString(Path.of("examples/toy-engine/demo-suite.yaml")));
        Map<String, Object> s = new LinkedHashMap<>(demo);
        s.put("tasks", ((List<?>) demo.get("tasks")).stream()
                .filter(t -> task.equals(((Map<?, ?>) t).get("id"))).toList());
        s.put("agents", agents);
        Path file = dir.resolve("suite.yaml");
        Files.writeString(file, new Yaml().dump(s));
        return file;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else {
                    Files.copy(p, q);
                }
            }
        }
    }

    private static Map<String, Object> agent(String name, String model, Map<String, Object> runner) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("name", name);
        a.put("model", model);
        a.put("runner", runner);
        return a;
    }

    private static Map<String, Object> runner(String adapter, Path cli, String baseUrl, Map<String, Object> budget) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("adapter", adapter);
        r.put("cli", cli.toString());
        r.put("base_url", baseUrl);
        r.put("budget", budget);
        r.put("sandbox", Map.of("cpus", 2, "memory_mb", 4096));
        return r;
    }

    record Cli(int code, String out) {
    }

    private Cli isobench(Map<String, String> env, String... args) throws Exception {
        Path jar = Path.of(System.getProperty("isobench.jar", "target/isobench.jar")).toAbsolutePath();
        assertThat(jar).as("the jar is built by `mvn package` before integration tests").exists();
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString(), "--db",
                dir.resolve("store.duckdb").toString()));
        argv.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(15, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("isobench " + String.join(" ", args) + " did not finish");
        }
        return new Cli(p.exitValue(), Files.readString(out));
    }

    private List<RunRecord> attempts() {
        List<RunRecord> runs = new ArrayList<>();
        try (Store store = Stores.open(dir.resolve("store.duckdb").toString())) {
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.AGENT_ATTEMPT), null, false), runs::add);
            assertThat(AtifStores.assertEveryTrajectoryValid(store)).isEqualTo(runs.size());
        }
        return runs;
    }

    /** agents run (docker) → run → report, then the checks every CLI shares. */
    private String measureAndReport(Path suiteFile, String agent, String task, Map<String, String> env,
                                    String key) throws Exception {
        Cli agents = isobench(env, "agents", "run", suiteFile.toString(), "--agent", agent, "--executor", "docker",
                "--workdir", dir.resolve("work").toString());
        assertThat(agents.code()).as(agents.out()).isZero();
        assertThat(agents.out()).as(agents.out()).contains(task + "\t" + agent + "@1\tOK");
        String session = agents.out().lines().filter(l -> l.startsWith("session ")).findFirst().orElseThrow()
                .substring("session ".length());
        Cli run = isobench(Map.of(), "run", suiteFile.toString(), "--rounds", "5", "--attempts-of", session,
                "--workdir", dir.resolve("runs").toString());
        assertThat(run.code()).as(run.out()).isZero();
        Cli md = isobench(Map.of(), "report");
        assertThat(md.code()).as(md.out()).isZero();
        Cli html = isobench(Map.of(), "report", "--format", "html", "--out", dir.resolve("site").toString());
        assertThat(html.code()).as(html.out()).isZero();

        String line = md.out().lines().filter(l -> l.startsWith("| agent:" + agent + "@1 |")).findFirst()
                .orElseThrow(() -> new AssertionError("no row for agent:" + agent + "@1 in\n" + md.out()));
        assertThat(line).as("the agent's patch is measured better than the baseline").contains("**better**");
        // the numbers, for the record (failsafe keeps this output)
        System.out.println("[" + agent + "] agents run:\n" + agents.out() + "\n[" + agent + "] report row: " + line);
        assertThat(md.out()).contains("Attempts per agent").contains("| " + agent + " |");

        RunRecord attempt = attempts().stream().filter(r -> r.subject().agent().equals(agent + "@1")).findFirst()
                .orElseThrow();
        var d = attempt.details().section(AttemptRecords.SECTION);
        assertThat(d.path("executor").asText()).isEqualTo("docker");
        assertThat(d.path("tokens_in").asLong()).isPositive();
        assertThat(d.path("tokens_out").asLong()).isPositive();
        assertThat(d.path("cost_usd").asDouble()).isPositive();
        // the real CLI's own usage report agrees with the egress proxy's count (which is what is recorded)
        assertThat(d.path("detail").asText()).doesNotContain("usage mismatch");
        System.out.println("[" + agent + "] attempt: " + d);
        assertThat(d.path("egress").toString()).as("the model was reached through the sandbox's proxy only")
                .contains("POST /v1/");
        String taskPage;
        try (var pages = Files.walk(dir.resolve("site"))) {
            taskPage = pages.filter(p -> p.toString().endsWith(".html")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }).filter(t -> t.contains("Agent attempts")).findFirst().orElseThrow();
        }
        assertThat(taskPage).contains(agent + "@1").contains("<details");
        // the key is in no stored or published byte
        for (Path root : List.of(dir.resolve("site"), dir.resolve("work"), dir.resolve("runs/attempts"))) {
            try (var files = Files.walk(root)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    assertThat(Files.readString(f, StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(key);
                }
            }
        }
        assertThat(md.out()).doesNotContain(key);
        return taskPage;
    }

    /** The patch file {@code run --attempts-of} wrote from the store ({@code NAME@k/TASK.diff}). */
    private Path patchOf(String tail) throws Exception {
        try (var files = Files.walk(dir.resolve("runs/attempts"))) {
            return files.filter(f -> f.toString().endsWith("/" + tail)).findFirst().orElseThrow();
        }
    }

    @Test
    void claudeCodeEditsInTheSandboxAndIsMeasuredAndReported() throws Exception {
        try (ScriptedAnthropicServer server = ScriptedAnthropicServer.start(ClaudeScripts.edit(DockerSandbox.REPO),
                ANTHROPIC_KEY)) {
            Path suite = suite("latency", List.of(agent("claude", "claude-sonnet-4-5", runner("claude-code", CLAUDE,
                    server.baseUrl(), Map.of("wall_s", 600, "turns", 20)))));
            String page = measureAndReport(suite, "claude", "latency", Map.of("ANTHROPIC_API_KEY", ANTHROPIC_KEY),
                    ANTHROPIC_KEY);
            assertThat(page).contains("Edit").contains("POLL_INTERVAL_S");
            assertThat(server.requests()).allMatch(ScriptedAnthropicServer.Request::answered)
                    .allMatch(ScriptedAnthropicServer.Request::keyMatched);
            assertThat(Files.readString(patchOf("claude@1/latency.diff")))
                    .contains("+" + ClaudeScripts.EDIT_NEW).doesNotContain(".claude");
        }
    }

    @Test
    void codexEditsInTheSandboxAndIsMeasuredAndReported() throws Exception {
        try (ScriptedOpenAiServer server = ScriptedOpenAiServer.start(CodexScripts.edit(), OPENAI_KEY)) {
            Map<String, Object> r = runner("codex", CODEX, server.baseUrl(), Map.of("wall_s", 600, "turns", 20));
            r.put("pricing", Map.of("input_usd_per_mtok", 1.25, "output_usd_per_mtok", 10));
            Path suite = suite("tpot", List.of(agent("codex", CodexScripts.MODEL, r)));
            String page = measureAndReport(suite, "codex", "tpot", Map.of("OPENAI_API_KEY", OPENAI_KEY), OPENAI_KEY);
            assertThat(page).contains("apply_patch").contains("detokenizer.py");
            assertThat(Files.readString(patchOf("codex@1/tpot.diff"))).contains(CodexScripts.EDITED_FILE)
                    .doesNotContain(".codex");
        }
    }

    @Test
    void aBudgetOverrunAndNetworkEscapesFailInsideTheSandbox() throws Exception {
        // a host service on another port: reachable from this machine, never from the sandbox
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket other = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             ScriptedAnthropicServer overrun = ScriptedAnthropicServer.start(ClaudeScripts.overrun(5, 1000),
                     ANTHROPIC_KEY);
             ScriptedAnthropicServer escape = ScriptedAnthropicServer.start(
                     ClaudeScripts.escape("127.0.0.1", other.getLocalPort()), ANTHROPIC_KEY);
             ScriptedOpenAiServer codexEscape = ScriptedOpenAiServer.start(CodexScripts.escape(
                     ClaudeScripts.fetchCommand("127.0.0.1", other.getLocalPort())), OPENAI_KEY)) {
            Thread.ofVirtual().start(() -> {
                while (!other.isClosed()) {
                    try (var s = other.accept()) {
                        connections.incrementAndGet();
                        s.getOutputStream().write("HTTP/1.0 200 OK\r\n\r\nescaped".getBytes(StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            Path suite = suite("latency", List.of(
                    agent("tight", "claude-sonnet-4-5", runner("claude-code", CLAUDE, overrun.baseUrl(),
                            Map.of("wall_s", 300, "turns", 2))),
                    agent("escaper", "claude-sonnet-4-5", runner("claude-code", CLAUDE, escape.baseUrl(),
                            Map.of("wall_s", 300))),
                    agent("codex-escaper", CodexScripts.MODEL, runner("codex", CODEX, codexEscape.baseUrl(),
                            Map.of("wall_s", 300)))));
            Map<String, String> env = Map.of("ANTHROPIC_API_KEY", ANTHROPIC_KEY, "OPENAI_API_KEY", OPENAI_KEY);
            for (String a : List.of("tight", "escaper", "codex-escaper")) {
                Cli c = isobench(env, "agents", "run", suite.toString(), "--agent", a, "--executor", "docker",
                        "--workdir", dir.resolve("work").toString());
                assertThat(c.code()).as(c.out()).isZero();
            }
            Map<String, RunRecord> byAgent = new LinkedHashMap<>();
            attempts().forEach(r -> byAgent.put(r.subject().agent(), r));
            assertThat(byAgent.get("tight@1").outcome().failure().category()).isEqualTo("BUDGET_EXCEEDED");

            // Claude Code's Bash tool ran the fetch inside the sandbox: the tool result it sent back is the failure
            String toolResult = escape.requests().stream().map(q -> blocks(q.body(), "messages", "tool_result",
                    "content")).filter(t -> !t.isEmpty()).findFirst().orElseThrow();
            assertThat(toolResult).as("the fetch's own output").contains("URLError").contains("Errno")
                    .doesNotContain("escaped");
            assertThat(byAgent.get("escaper@1").details().section(AttemptRecords.SECTION).path("status").asText())
                    .isEqualTo("EMPTY_PATCH");
            String codexResult = codexEscape.requests().stream().map(q -> blocks(q.body(), "input",
                    "function_call_output", "output")).filter(t -> !t.isEmpty()).findFirst().orElseThrow();
            assertThat(codexResult).as("the fetch's own output").contains("URLError").contains("Errno")
                    .doesNotContain("escaped");
            assertThat(connections.get()).as("nothing reached the host's other port").isZero();
        }
    }

    /**
     * The text of the {@code type} items in a request body's {@code list} (Anthropic: {@code messages[].content[]}
     * tool results; OpenAI Responses: {@code input[]} function-call outputs), field {@code field} — what the agent's
     * tool printed, never the rest of the request (its system prompt mentions networks too).
     */
    private static String blocks(String body, String list, String type, String field) {
        StringBuilder out = new StringBuilder();
        try {
            com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(body);
            List<com.fasterxml.jackson.databind.JsonNode> items = new ArrayList<>();
            for (com.fasterxml.jackson.databind.JsonNode n : root.path(list)) {
                items.add(n);
                n.path("content").forEach(items::add);
            }
            for (com.fasterxml.jackson.databind.JsonNode n : items) {
                if (type.equals(n.path("type").asText())) {
                    com.fasterxml.jackson.databind.JsonNode v = n.path(field);
                    out.append(v.isTextual() ? v.asText() : v.toString());
                }
            }
        } catch (IOException e) {
            return "";
        }
        return out.toString();
    }
}
