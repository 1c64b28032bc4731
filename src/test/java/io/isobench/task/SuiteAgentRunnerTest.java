package io.isobench.task;

import io.isobench.IsobenchException;
import io.isobench.agent.AttemptLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The suite's {@code agents[].runner} and {@code agent_prompt} (docs/agents.md): the documented example, errors. */
class SuiteAgentRunnerTest {

    @TempDir
    Path dir;

    static final String HEAD = """
            engine:
              repo: ./repo
            tasks:
              - id: t1
                human_commit: abc123
                perf_command: python3 benchmarks/benchmark_latency.py --model m
            """;

    private Path write(String yaml) throws IOException {
        Files.createDirectories(dir.resolve("repo"));
        Path f = dir.resolve("suite.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    /** The first YAML example of docs/agents.md ("The suite"). */
    static String docExample() throws IOException {
        String doc = Files.readString(Path.of("docs/agents.md"));
        int section = doc.indexOf("## The suite: `runner:` and `agent_prompt:`");
        int start = doc.indexOf("```yaml\n", section) + "```yaml\n".length();
        return doc.substring(start, doc.indexOf("```", start));
    }

    @Test
    void theDocumentedExampleLoads() throws IOException {
        Files.createDirectories(dir.resolve("prompts"));
        Files.writeString(dir.resolve("prompts/perf.md"), "Task {task_id}: {perf_command}\n");
        Suite s = SuiteLoader.load(write(HEAD + docExample()));
        assertThat(s.agentPrompt().template()).isEqualTo(dir.resolve("prompts/perf.md"));
        assertThat(s.agentPrompt().hints()).isEqualTo("none");
        AgentRunner claude = s.agents().get(0).runner();
        assertThat(claude.adapter()).isEqualTo("claude-code");
        assertThat(claude.cli()).isEqualTo(dir.resolve("tools/agent-clis/node_modules/.bin/claude").toString());
        assertThat(claude.baseUrl()).isEqualTo("https://api.anthropic.com");
        assertThat(claude.secrets()).containsExactly("ANTHROPIC_API_KEY");
        assertThat(claude.budget()).isEqualTo(Map.of("wall_s", 3600.0, "turns", 100.0, "tokens", 5000000.0,
                "usd", 20.0));
        assertThat(claude.pricing()).containsEntry("output_usd_per_mtok", 15.0);
        assertThat(claude.sandbox()).containsEntry("memory_mb", "8192");
        assertThat(claude.limits()).isEqualTo(Map.of("output_mb", 256.0, "patch_mb", 32.0,
                "trajectory_steps", 20000.0));
        assertThat(AttemptLimits.of(claude.limits())).isEqualTo(AttemptLimits
                .DEFAULT).as("the documented values are the defaults");
        assertThat(AttemptLimits.of(Map.of("patch_mb", 0.5)).patchBytes()).isEqualTo(512 * 1024);
        AgentRunner mine = s.agents().get(1).runner();
        assertThat(mine.adapter()).isEqualTo("command");
        assertThat(mine.argv()).containsExactly("my-agent", "--repo", "{repo}", "--task-file", "{prompt_file}",
                "--model", "{model}");
    }

    @Test
    void attemptAgentsNamedAtKLoadAndTheDefaultsHold() throws IOException {
        Suite s = SuiteLoader.load(write(HEAD + """
                agents:
                  - name: claude@2
                    patches: {}
                """));
        assertThat(s.agents().get(0).name()).isEqualTo("claude@2");
        assertThat(s.agents().get(0).runner()).isNull();
        assertThat(s.agentPrompt()).isEqualTo(AgentPrompt.DEFAULT);
    }

    @Test
    void badRunnersAreRefusedWithTheirFieldAndFix() throws IOException {
        Path f = write(HEAD + """
                agent_prompt: {template: missing.md, hints: always}
                agents:
                  - name: a
                    runner: {adapter: aider}
                  - name: b
                    runner: {adapter: command}
                  - name: c
                    runner:
                      adapter: claude-code
                      base_url: api.anthropic.com
                      env: {ANTHROPIC_API_KEY: sk-ant-abc}
                      secrets: [sk-ant-abc123]
                      sandbox: {cpus: many, memory_mb: 0}
                      budget: {wall_s: -1}
                      limits: {output_mb: 0, patch_gb: 1}
                  - name: d@x
                """);
        assertThatThrownBy(() -> SuiteLoader.load(f)).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("agent_prompt.template: no such file")
                .hasMessageContaining("agent_prompt.hints: 'always' (fix: none or subject)")
                .hasMessageContaining("agents[0].runner.adapter: unknown adapter 'aider'")
                .hasMessageContaining("agents[1].runner.argv: missing: the command adapter needs an argv template")
                .hasMessageContaining("agents[2].runner.base_url: 'api.anthropic.com' is not an http(s) URL")
                .hasMessageContaining("agents[2].runner.env.ANTHROPIC_API_KEY: looks like a secret")
                .hasMessageContaining("is not a variable name (fix: the NAME of an environment variable")
                .hasMessageContaining("agents[2].runner.sandbox.cpus: 'many' is not a positive number")
                .hasMessageContaining("agents[2].runner.sandbox.memory_mb: '0' is not a positive whole number")
                .hasMessageContaining("agents[2].runner.budget.wall_s")
                .hasMessageContaining("agents[2].runner.limits.output_mb: must be > 0")
                .hasMessageContaining("patch_gb")
                .hasMessageContaining("agents[3].name: 'd@x' is not a usable agent name")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("sk-ant-abc123"));
    }

    @Test
    void sandboxGpusIsAWholeNumberOfGpusAndDefaultsToNone() throws IOException {
        Suite s = SuiteLoader.load(write(HEAD + """
                agents:
                  - name: a
                    runner: {adapter: command, argv: [x], sandbox: {gpus: 2}}
                  - name: b
                    runner: {adapter: command, argv: [x], sandbox: {gpus: 0}}
                  - name: c
                    runner: {adapter: command, argv: [x]}
                """));
        assertThat(s.agents()).extracting(a -> a.runner().gpus()).containsExactly(2, 0, 0);
        assertThat(s.agents().get(2).runner().withSandbox("gpus", "1").gpus()).as("--gpus overrides").isEqualTo(1);
        for (String bad : new String[] {"-1", "1.5", "two", "1000", "01"}) {
            Path f = write(HEAD + """
                    agents:
                      - name: a
                        runner: {adapter: command, argv: [x], sandbox: {gpus: %s}}
                    """.formatted(bad));
            assertThatThrownBy(() -> SuiteLoader.load(f)).as(bad).isInstanceOf(IsobenchException.BadInput.class)
                    .hasMessageContaining("agents[0].runner.sandbox.gpus: '" + bad + "' is not a whole number of"
                            + " GPUs >= 0 (fix: e.g. gpus: 1; 0 or absent: no GPU)");
        }
    }
}
