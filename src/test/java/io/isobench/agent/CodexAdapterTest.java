package io.isobench.agent;

import io.isobench.AtifStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CodexAdapter} on real {@code codex exec --json} transcripts (captured from Codex 0.171.0 by
 * {@link CodexAgentIT}; src/test/resources/agent/codex/NAME.jsonl), parsed into golden trajectories
 * (NAME.trajectory.json). To rewrite the goldens after a deliberate change:
 * {@code mvn -o -q test -Dtest=CodexAdapterTest -Disobench.golden.rewrite=true} and review the diff.
 */
class CodexAdapterTest {

    static final Path DIR = Path.of("src/test/resources/agent/codex");
    final CodexAdapter adapter = new CodexAdapter();

    static AgentLaunch launch(String model, String baseUrl, List<String> secrets) {
        return new AgentLaunch("/opt/codex/bin/codex", "/work/repo", "/work/home", "/work/home/prompt.md",
                "--make it faster\n(and \"safe\")", model, baseUrl, Budget.NONE, secrets, List.of());
    }

    @Test
    void argvIsExecJsonInTheRepoWithThePromptAsOneElementAfterDashDash() {
        Invocation inv = adapter.invocation(launch("gpt-5.5", "http://127.0.0.1:9/v1", List.of("OPENAI_API_KEY")));
        assertEquals(List.of("/opt/codex/bin/codex", "exec", "--json", "--color", "never", "--strict-config",
                "--skip-git-repo-check", "--cd", "/work/repo", "--model", "gpt-5.5", "--",
                "--make it faster\n(and \"safe\")"), inv.argv());
        assertEquals(Map.of("CODEX_HOME", "/work/home/.codex"), inv.env());
        assertEquals(List.of(".codex/config.toml"), List.copyOf(inv.homeFiles().keySet()));
        Invocation noModel = adapter.invocation(launch(null, null, List.of()));
        assertFalse(noModel.argv().contains("--model"), noModel.argv().toString());
    }

    @Test
    void configPointsTheProviderAtTheBaseUrlAndNamesTheKeysVariableNeverItsValue() {
        String toml = adapter.invocation(launch("m", "http://127.0.0.1:9/v1", List.of("SITE_OPENAI_KEY")))
                .homeFiles().get(".codex/config.toml");
        assertEquals("""
                # written by isobench for one attempt (docs/agents.md, "Codex")
                model_provider = "isobench"
                approval_policy = "never"
                sandbox_mode = "danger-full-access"
                check_for_update_on_startup = false

                [analytics]
                enabled = false

                [history]
                persistence = "none"

                [features]
                plugins = false

                [model_providers.isobench]
                name = "isobench"
                base_url = "http://127.0.0.1:9/v1"
                env_key = "SITE_OPENAI_KEY"
                wire_api = "responses"
                """, toml);
        String dflt = adapter.invocation(launch(null, null, List.of())).homeFiles().get(".codex/config.toml");
        assertTrue(dflt.contains("base_url = \"https://api.openai.com/v1\"\nenv_key = \"OPENAI_API_KEY\"\n"), dflt);
    }

    @Test
    void tomlStringsAreEscaped() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", CodexAdapter.toml("a\"b\\c\nd\u0001"));
    }

    @Test
    void observeCountsOneTurnPerToolCallThenTheFinalResponseWithTheRunsTokens() throws IOException {
        List<Usage> seen = new ArrayList<>();
        Usage u = Usage.NONE;
        for (String line : Files.readAllLines(DIR.resolve("edit.jsonl"))) {
            Usage next = adapter.observe(line, u);
            if (!next.equals(u)) {
                seen.add(next);
            }
            u = next;
        }
        // the edit script: 1200/80, 1500/420, 2700/40, 2900/60
        assertEquals(List.of(new Usage(1, 0, 0, null), new Usage(2, 0, 0, null), new Usage(3, 0, 0, null),
                new Usage(4, 8300, 600, null)), seen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"not json", "", "{\"type\":\"item.completed\"}", "{\"type\":\"turn.completed\",\"usage\":7}",
            "{broken", "[1,2]"})
    void observeIgnoresLinesItCannotRead(String line) {
        Usage u = new Usage(2, 10, 5, null);
        Usage out = adapter.observe(line, u);
        assertTrue(out == u || out.turns() == 3 && out.tokens() == 15, out.toString());
    }

    @Test
    void aCleanRunIsOkWithItsFinalMessageAndUsage() throws IOException {
        AgentReport r = parse("edit", 0);
        assertSame(AttemptStatus.OK, r.status());
        assertEquals(CodexScripts.EDIT_DONE, r.detail());
        assertEquals(new Usage(4, 8300, 600, null), r.usage());
        golden("edit", r);
    }

    @Test
    void aKilledRunIsACrashToTheAdapterWithWhatItDidSoFar() throws IOException {
        AgentReport r = parse("overrun-turns", 137);
        assertSame(AttemptStatus.AGENT_CRASH, r.status());
        assertTrue(r.detail().startsWith("codex exited 137"), r.detail());
        assertEquals(3, r.usage().turns());
        golden("overrun-turns", r);
    }

    @Test
    void aRunKilledForTokensHasItsCallsButNoTokensOnStdout() throws IOException {
        AgentReport r = parse("overrun-tokens", 137);
        assertSame(AttemptStatus.AGENT_CRASH, r.status());
        // isobench killed it as the second response's tokens reached the rollout, before its command printed
        assertEquals(new Usage(1, 0, 0, null), r.usage());
        List<Trajectory.ToolCall> calls = r.trajectory().steps().stream().flatMap(s -> s.toolCalls().stream()).toList();
        assertEquals(1, calls.size());
        assertEquals("exit 0 (completed)\nstep 1\n", calls.get(0).resultSummary());
        golden("overrun-tokens", r);
    }

    @Test
    void theRolloutGivesEachResponsesTokensAsTheyHappen() throws IOException {
        // token_usage_record lines of a real Codex 0.171.0 rollout (4 responses: 1000+i in, 50+i out)
        List<Long> tokens = new ArrayList<>();
        Usage u = new Usage(2, 0, 0, null);
        for (String line : Files.readAllLines(DIR.resolve("rollout-usage.jsonl"))) {
            Usage next = adapter.observeLog(line, u);
            if (!next.equals(u)) {
                tokens.add(next.tokens());
            }
            u = next;
        }
        assertEquals(List.of(1050L, 2102L, 3156L, 4212L), tokens);
        assertEquals(2, u.turns(), "turns are counted from stdout");
        // stdout's turn.completed reports the same totals: nothing is counted twice
        Usage end = adapter.observe("{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":4006,"
                + "\"output_tokens\":206}}", u);
        assertEquals(new Usage(3, 4006, 206, null), end);
        assertEquals(".codex/sessions", adapter.usageLogDir());
        assertSame(u, adapter.observeLog("{\"type\":\"event_msg\"}", u));
        assertSame(u, adapter.observeLog("garbage", u));
    }

    @Test
    void aFailedTurnIsACrashWithTheApisError() throws IOException {
        AgentReport r = parse("rejected-key", 1);
        assertSame(AttemptStatus.AGENT_CRASH, r.status());
        assertTrue(r.detail().startsWith("unexpected status 401 Unauthorized: invalid api key"), r.detail());
        assertEquals(Usage.NONE, r.usage());
        golden("rejected-key", r);
    }

    @Test
    void noCompletionIsACrashEvenWithExitZero() {
        AgentReport r = adapter.parse(new AgentOutput("{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n", "", 0));
        assertSame(AttemptStatus.AGENT_CRASH, r.status());
        assertEquals("codex printed no turn.completed event", r.detail());
        AgentReport err = adapter.parse(new AgentOutput("", "Error: unknown field `foo`\n", 1));
        assertEquals("codex exited 1: Error: unknown field `foo`", err.detail());
    }

    private AgentReport parse(String name, int exit) throws IOException {
        return adapter.parse(new AgentOutput(Files.readString(DIR.resolve(name + ".jsonl")),
                "Reading additional input from stdin...\n", exit));
    }

    private static void golden(String name, AgentReport r) throws IOException {
        String json = r.trajectory().toJson(new Trajectory.Header("agents-golden", "codex", "codex-cli 0.171.0",
                CodexScripts.MODEL, Map.of("task", name)), r.usage()) + "\n";
        AtifStores.assertValid(json);
        Path g = DIR.resolve(name + ".trajectory.json");
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.writeString(g, json);
        }
        assertEquals(Files.readString(g), json, "golden " + g);
    }
}
