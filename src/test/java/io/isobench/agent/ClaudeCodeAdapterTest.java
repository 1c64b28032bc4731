package io.isobench.agent;

import io.isobench.AtifStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ClaudeCodeAdapter} on stream-json transcripts captured from the real Claude Code CLI 2.1.332
 * (src/test/resources/agent/claude-code/, from ClaudeCodeAgentIT's runs against ScriptedAnthropicServer, and one run
 * against a server answering 401): status, usage and the trajectory JSON against goldens ({@code NAME.trajectory.json};
 * rewrite with {@code -Disobench.golden.update=true}).
 */
class ClaudeCodeAdapterTest {

    static final Path DIR = Path.of("src/test/resources/agent/claude-code");

    private final ClaudeCodeAdapter adapter = new ClaudeCodeAdapter();

    static String transcript(String name) throws IOException {
        return Files.readString(DIR.resolve(name + ".stdout.jsonl"));
    }

    static AgentLaunch launch(String model, Budget budget, String baseUrl) {
        return new AgentLaunch("/opt/claude", "/w/repo", "/w/home", "/w/home/prompt.md", "-rf the prompt\nline 2",
                model, baseUrl, budget, List.of("ANTHROPIC_API_KEY"), List.of());
    }

    @Test
    void argvIsHeadlessStreamJsonWithTheBudgetFlagsAndThePromptAsOneElementAfterDoubleDash() {
        Invocation inv = adapter.invocation(launch("claude-sonnet-4-5", new Budget(60.0, 7, 1000L, 2.5),
                "http://127.0.0.1:9"));
        assertEquals(List.of("/opt/claude", "--print", "--output-format", "stream-json", "--verbose",
                "--permission-mode", "bypassPermissions", "--no-session-persistence", "--model", "claude-sonnet-4-5",
                "--max-turns", "7", "--max-budget-usd", "2.500000", "--", "-rf the prompt\nline 2"), inv.argv());
        assertEquals("http://127.0.0.1:9", inv.env().get("ANTHROPIC_BASE_URL"));
        for (String quiet : List.of("DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "IS_SANDBOX")) {
            assertEquals("1", inv.env().get(quiet), quiet);
        }
        assertFalse(inv.env().containsKey("ANTHROPIC_API_KEY"), "secrets come from the sandbox's env file only");
        assertTrue(inv.homeFiles().isEmpty());
    }

    @Test
    void withoutModelBudgetOrEndpointTheCliDefaultsApply() {
        Invocation inv = adapter.invocation(launch(null, Budget.NONE, null));
        assertEquals(List.of("/opt/claude", "--print", "--output-format", "stream-json", "--verbose",
                "--permission-mode", "bypassPermissions", "--no-session-persistence", "--", "-rf the prompt\nline 2"),
                inv.argv());
        assertFalse(inv.env().containsKey("ANTHROPIC_BASE_URL"));
        assertEquals(List.of("ANTHROPIC_API_KEY"), adapter.defaultSecretEnv());
        assertEquals("claude-code", adapter.id());
    }

    @Test
    void theEditRunIsOkWithTheResultLinesTotalsAndTheStreamsTurns() throws IOException {
        AgentReport r = adapter.parse(new AgentOutput(transcript("edit"), "", 0));
        assertEquals(AttemptStatus.OK, r.status());
        assertEquals(ClaudeScripts.EDIT_DONE, r.detail());
        // The edit script: input 1200+300, 150+1500, 90+40+1800, 60+1900; output 41+87+35+29.
        ScriptedAnthropicServer.Script s = ClaudeScripts.edit("/x");
        assertEquals(new Usage(4, s.inputTokens(), s.outputTokens(), 0.010215), r.usage());
        assertEquals(7040, s.inputTokens());
        assertEquals(List.of("Read", "Edit", "Bash"), r.trajectory().steps().stream()
                .flatMap(st -> st.toolCalls().stream()).map(Trajectory.ToolCall::name).toList());
    }

    @Test
    void observeCountsEachMessageOnceAndTheResultLineWins() throws IOException {
        String out = transcript("edit");
        long assistantLines = out.lines().filter(l -> l.startsWith("{\"type\":\"assistant\"")).count();
        assertEquals(6, assistantLines, "the CLI printed two of the four messages as two lines each");
        Usage u = Usage.NONE;
        Usage beforeResult = null;
        for (String line : out.split("\n")) {
            if (line.contains("\"type\":\"result\"")) {
                beforeResult = u;
            }
            u = adapter.observe(line, u);
        }
        assertEquals(4, beforeResult.turns());
        assertEquals(7040, beforeResult.tokensIn(), "input tokens are exact while the attempt runs");
        assertEquals(4, beforeResult.tokensOut(), "output tokens are message_start's placeholders until the end");
        assertNull(beforeResult.costUsd());
        assertEquals(new Usage(4, 7040, 192, 0.010215), u);
        assertEquals(u, adapter.observe("not json", u));
        assertEquals(u, adapter.observe("{\"type\":\"assistant\",\"message\":{}}", u));
        assertEquals(u, adapter.observe("{broken", u));
    }

    @Test
    void theCliStoppingAtMaxTurnsIsBudgetExceededWithTheTurnsItMade() throws IOException {
        AgentReport r = adapter.parse(new AgentOutput(transcript("overrun-turns"), "", 1));
        assertEquals(AttemptStatus.BUDGET_EXCEEDED, r.status());
        assertEquals("claude-code stopped at its --max-turns limit (2 turns)", r.detail());
        assertEquals(2, r.usage().turns(), "the CLI's num_turns says 3: the refused turn");
        assertEquals(2000, r.usage().tokensIn());
    }

    @Test
    void theCliStoppingAtMaxBudgetUsdIsBudgetExceededWithItsCost() throws IOException {
        AgentReport r = adapter.parse(new AgentOutput(transcript("overrun-usd"), "", 1));
        assertEquals(AttemptStatus.BUDGET_EXCEEDED, r.status());
        assertEquals("claude-code stopped at its --max-budget-usd limit ($0.6006 spent)", r.detail());
        assertEquals(2, r.usage().turns());
        assertEquals(200_000, r.usage().tokensIn());
    }

    @Test
    void aKilledRunWithoutResultIsACrashWithTheStreamedUsage() throws IOException {
        AgentReport r = adapter.parse(new AgentOutput(transcript("overrun-tokens"), "Killed\n", -1));
        assertEquals(AttemptStatus.AGENT_CRASH, r.status());
        assertEquals("claude-code printed no result line (exit -1): Killed", r.detail());
        assertEquals(new Usage(2, 2000, 2, null), r.usage());
    }

    @Test
    void anApiErrorIsACrashWithTheCliMessageAndNoTurn() throws IOException {
        String out = transcript("auth-error");
        AgentReport r = adapter.parse(new AgentOutput(out, "", 1));
        assertEquals(AttemptStatus.AGENT_CRASH, r.status());
        assertEquals("claude-code error (API 401 authentication_error): Invalid API key · Fix external API key",
                r.detail());
        assertEquals(new Usage(0, 0, 0, 0.0), r.usage());
        Usage u = Usage.NONE;
        for (String line : out.split("\n")) {
            if (!line.contains("\"type\":\"result\"")) {
                u = adapter.observe(line, u);
            }
        }
        assertEquals(Usage.NONE, u, "the CLI's synthetic error message is no model turn");
    }

    @Test
    void emptyOutputIsACrash() {
        AgentReport r = adapter.parse(new AgentOutput("", "error: unknown option '--bogus'\n", 1));
        assertEquals(AttemptStatus.AGENT_CRASH, r.status());
        assertEquals("claude-code printed no result line (exit 1): error: unknown option '--bogus'", r.detail());
        assertEquals(Trajectory.EMPTY, r.trajectory());
    }

    @ParameterizedTest
    @ValueSource(strings = {"edit", "overrun-turns", "overrun-usd", "overrun-tokens", "escape-local", "auth-error"})
    void trajectoryJsonIsGolden(String name) throws IOException {
        AgentReport r = adapter.parse(new AgentOutput(transcript(name), "", 0));
        String json = r.trajectory().toJson(new Trajectory.Header("agents-golden", "claude-code",
                "2.1.332 (Claude Code)", "claude-sonnet-4-5", Map.of("task", name)), r.usage()) + "\n";
        AtifStores.assertValid(json);
        Path golden = DIR.resolve(name + ".trajectory.json");
        if (Boolean.getBoolean("isobench.golden.update") || Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.writeString(golden, json);
        }
        assertEquals(Files.readString(golden), json, name);
    }

    @Test
    void toolResultsAreSummarisedAndErrorsMarked() {
        String out = String.join("\n",
                "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\","
                        + "\"name\":\"Bash\",\"input\":{\"command\":\"false\"}}],\"stop_reason\":\"tool_use\","
                        + "\"usage\":{\"input_tokens\":5,\"output_tokens\":3}}}",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
                        + "\"tool_use_id\":\"t1\",\"is_error\":true,\"content\":[{\"type\":\"text\",\"text\":\""
                        + "x".repeat(500) + "\"}]}]}}",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"please continue\"}}");
        Trajectory t = adapter.parse(new AgentOutput(out, "", 0)).trajectory();
        assertEquals(2, t.steps().size());
        Trajectory.Step s = t.steps().get(0);
        assertEquals(3L, s.tokensOut(), "a line after the message's end carries its output tokens");
        assertTrue(s.toolCalls().get(0).resultSummary().startsWith("error: xxx"));
        assertTrue(s.toolCalls().get(0).resultSummary().endsWith("(507 chars; whole in the raw trajectory)"));
        assertEquals(new Trajectory.Step("user", "please continue", List.of(), null, null), t.steps().get(1));
    }
}
