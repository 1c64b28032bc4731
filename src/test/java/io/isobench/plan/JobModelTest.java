package io.isobench.plan;

import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The model a job's client or probes ask for is typed from the task when the plan is made ({@link Job#model}):
 * however the server command spells its model (positional, {@code --model=X}, a file path), the requests name the
 * task's model, and a round that sends no request names none.
 */
class JobModelTest {

    @TempDir
    Path dir;

    private static final String MODEL = "facebook/opt-125m";
    private static final String SERVE = "vllm bench serve --model " + MODEL + " --num-prompts 4 --dataset-name random";

    private Plan plan(String... lines) throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Path f = dir.resolve("s.yaml");
        Files.writeString(f, String.join("\n", lines) + "\n");
        return Planner.plan(SuiteLoader.load(f), new Planner.Options(1, null, dir.resolve("work"), false));
    }

    private static Job job(Plan p, String id) {
        return p.jobs().stream().filter(j -> j.jobId().equals(id)).findFirst().orElseThrow(() ->
                new AssertionError(id + " not in " + p.jobs().stream().map(Job::jobId).toList()));
    }

    @Test
    void aVllmTasksRequestsNameItsModelHoweverItsServerSpellsIt() throws Exception {
        Plan p = plan("engine: {repo: ./repo, name: vllm}",
                "tasks:",
                "  - id: positional",
                "    human_commit: h1",
                "    server_command: \"vllm serve {model} --host {host} --port {port} {server_flags}\"",
                "    perf_command: \"" + SERVE + "\"",
                "  - id: equals",
                "    human_commit: h2",
                "    server_command: \"python -m vllm.entrypoints.openai.api_server --model={model} --host {host}"
                        + " --port {port}\"",
                "    perf_command: \"" + SERVE + "\"",
                "  - id: from-task",
                "    human_commit: h3",
                "    model: " + MODEL,
                "    server_command: \"vllm serve {model} --port {port}\"",
                "    perf_command: \"vllm bench serve --num-prompts 4 --dataset-name random\"",
                "  - id: offline",
                "    human_commit: h4",
                "    perf_command: \"python benchmarks/benchmark_latency.py --model " + MODEL + " --batch-size 8\"",
                "run: {rounds: 1, seed: 1}");
        for (String task : List.of("positional", "equals", "from-task")) {
            for (String id : List.of(task + "/baseline/r0", task + "/human/r0", task + "/baseline/check",
                    task + "/human/check")) {
                assertThat(job(p, id).model()).as(id).isEqualTo(MODEL);
            }
        }
        // the server's words hold no "--model" word to scan: the model is the typed task's, not the argv's
        assertThat(job(p, "positional/human/r0").argv()).doesNotContain("--model").contains(MODEL);
        assertThat(job(p, "equals/human/r0").argv()).doesNotContain("--model").contains("--model=" + MODEL);
        assertThat(job(p, "from-task/human/r0").client().argv()).containsSubsequence("--model", MODEL);
        // an offline round sends no request; its correctness check's probes ask for the command's model
        assertThat(job(p, "offline/human/r0").model()).isNull();
        assertThat(job(p, "offline/human/check").model()).isEqualTo(MODEL);
    }

    @Test
    void aGenericServingTasksRequestsNameItsDeclaredModelNotTheServersFile() throws Exception {
        Plan p = plan("engine: {name: generic, repo: ./repo}",
                "tasks:",
                "  - id: named",
                "    human_commit: b",
                "    parent_commit: a",
                "    serving:",
                "      server: [node, server.mjs, --model, /models/tiny.gguf, --host, \"{host}\", --port, \"{port}\"]",
                "      client: [--num-prompts, \"4\"]",
                "      model: tiny",
                "      primary: ttft_ms_mean",
                "  - id: unnamed",
                "    human_commit: b",
                "    parent_commit: a",
                "    serving:",
                "      server: [node, server.mjs, --model, /models/tiny.gguf, --port, \"{port}\"]",
                "      client: [--num-prompts, \"4\"]",
                "      primary: ttft_ms_mean",
                "run: {rounds: 1, seed: 1}");
        assertThat(job(p, "named/human/r0").model()).isEqualTo("tiny");
        assertThat(job(p, "named/human/check").model()).isEqualTo("tiny");
        // no model declared: the name every request has always carried, never the server's file
        assertThat(job(p, "unnamed/human/r0").model()).isEqualTo("model");
    }
}
