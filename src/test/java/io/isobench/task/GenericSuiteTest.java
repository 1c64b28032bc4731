package io.isobench.task;

import io.isobench.IsobenchException;
import io.isobench.Mode;
import io.isobench.parse.Better;
import io.isobench.parse.MetricRule;
import io.isobench.parse.ReadRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Suites of the generic engine adapter and of prebuilt-artifact arms: what loads, and every problem with its fix. */
class GenericSuiteTest {

    @TempDir
    Path dir;

    Path write(String yaml) throws IOException {
        Files.writeString(dir.resolve("engine.bundle"), "not really a bundle");
        Path f = dir.resolve("suite.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    static final String OFFLINE = """
            engine: {name: generic, repo: ./engine.bundle, build: [make, run]}
            setup:
              - [python3, "{suite_dir}/gen.py", --out, "{workdir}/m.bin"]
            tasks:
              - id: topp
                human_commit: d421a95
                parent_commit: c426412
                offline:
                  command: [./run, "{workdir}/m.bin", -n, "256"]
                  metrics:
                    - {name: tok_s, from: stderr, regex: 'achieved tok/s: ([0-9.]+)', unit: tok/s, better: higher,
                       primary: true}
                    - {name: load_ms, from: file, path: out/t.json, json_path: load.ms, unit: ms, better: lower}
                    - {name: command_cpu_s}
                correctness: {output: {from: stdout}, tolerance: 0.0}
              - id: wall
                human_commit: aaaa
                mode: latency
                offline: {command: [./run, m.bin]}
            """;

    @Test
    void anOfflineTaskLoadsWithItsRulesSetupAndBundle() throws IOException {
        Suite s = SuiteLoader.load(write(OFFLINE));
        assertThat(s.engine().name()).isEqualTo("generic");
        assertThat(s.engine().isBundle()).isTrue();
        assertThat(s.setup()).containsExactly(List.of("python3", dir.toAbsolutePath().normalize() + "/gen.py",
                "--out", "{workdir}/m.bin"));
        TaskSpec t = s.tasks().get(0);
        GenericTask.Offline o = t.generic().offline();
        assertThat(o.command()).containsExactly("./run", "{workdir}/m.bin", "-n", "256");
        assertThat(o.primary()).isEqualTo("tok_s");
        assertThat(o.metrics()).extracting(MetricRule::name).containsExactly("tok_s", "load_ms");
        assertThat(o.metrics().get(1).read()).isEqualTo(new ReadRule(ReadRule.Source.FILE, "out/t.json", null,
                "load.ms"));
        assertThat(o.metrics().get(0).better()).isEqualTo(Better.HIGHER);
        assertThat(o.output()).isEqualTo(new ReadRule(ReadRule.Source.STDOUT, null, null, null));
        assertThat(t.perfCommand()).isEqualTo("./run {workdir}/m.bin -n 256");
        assertThat(t.mode()).contains(Mode.THROUGHPUT);
        assertThat(t.parsedCommand().findings()).isEmpty();
        assertThat(s.runnableTasks()).hasSize(2);
        TaskSpec wall = s.tasks().get(1);
        assertThat(wall.generic().offline().primary()).as("no primary declared").isEqualTo(MetricRule.WALL);
        assertThat(wall.generic().offline().output()).as("no gate without an output rule").isNull();
        assertThat(wall.mode()).contains(Mode.LATENCY);
    }

    @Test
    void aServingTaskLoadsItsServerAndClient() throws IOException {
        Suite s = SuiteLoader.load(write("""
                engine: {name: generic, repo: ./engine.bundle}
                tasks:
                  - id: srv
                    human_commit: b
                    parent_commit: a
                    serving:
                      server: [node, "{suite_dir}/server.mjs", --model, "{model}", --host, "{host}", --port, "{port}"]
                      client: [--num-prompts, "20", --random-input-len, "32", --ignore-eos]
                      model: tiny
                      primary: ttft_ms_mean
                    correctness: {prompts: 4, max_tokens: 8}
                """));
        TaskSpec t = s.tasks().get(0);
        assertThat(t.mode()).contains(Mode.SERVING);
        assertThat(Word.shown(t.server())).containsExactly("node", dir.toAbsolutePath().normalize()
                + "/server.mjs", "--model", "tiny", "--host", "{host}", "--port", "{port}");
        assertThat(t.parsedCommand().client().argv()).containsExactly("--model", "tiny", "--num-prompts", "20",
                "--random-input-len", "32", "--ignore-eos");
        assertThat(t.generic().serving().primary()).isEqualTo("ttft_ms_mean");
        assertThat(t.correctness().prompts()).isEqualTo(4);
    }

    @Test
    void everyRuleProblemNamesTheFieldAndTheFix() throws IOException {
        Path f = write("""
                engine: {name: generic, repo: ./engine.bundle}
                setup: [[gen, "{workdri}"]]
                tasks:
                  - id: t1
                    human_commit: b
                    perf_command: python bench.py
                    offline:
                      command: [./run, "{model}"]
                      metrics:
                        - {name: tok_s, from: stderr, regex: 'tok/s: (', unit: tok/s, better: higher, primary: true}
                        - {name: lat, from: stdout, regex: 'x', better: faster, primary: true}
                        - {name: command_wall_s, unit: ms}
                        - {name: tpot_ms_mean, from: stdout, regex: 'x', unit: s, better: lower}
                        - {name: size, from: file, regex: 'x', unit: B, better: lower}
                        - {name: n, from: stdout, unit: x, better: lower}
                    correctness: {prompts: 3, command: [x]}
                  - id: t2
                    human_commit: b
                    serving: {server: [srv, --port, "8000"], client: [--num-promts, "3"], primary: tok_s}
                  - id: t3
                    human_commit: b
                """);
        String msg = message(() -> SuiteLoader.load(f));
        String p = f + ":";
        assertThat(msg)
                .contains(p + "2: setup[0]: unknown placeholder {workdri} (fix: use {workdir}, {suite_dir})")
                .contains(p + "6: tasks[0].perf_command: is read by the vllm and toy adapters only")
                .contains(p + "8: tasks[0].offline.command: unknown placeholder {model} (fix: use {workdir},"
                        + " {suite_dir})")
                .contains(p + "10: tasks[0].offline.metrics[0].regex: is not a valid regular expression")
                .contains(p + "11: tasks[0].offline.metrics[1].unit: missing (fix: the value's unit")
                .contains(p + "11: tasks[0].offline.metrics[1].better: 'faster' is not a direction (fix: higher or"
                        + " lower)")
                .contains(p + "12: tasks[0].offline.metrics[2].unit: command_wall_s is measured by isobench")
                .contains(p + "13: tasks[0].offline.metrics[3].name: 'tpot_ms_mean' is a built-in metric in ms,"
                        + " lower is better")
                .contains(p + "14: tasks[0].offline.metrics[4].path: missing (fix: the file the command writes")
                .contains(p + "15: tasks[0].offline.metrics[5]: has neither regex nor json_path")
                .contains(p + "16: tasks[0].correctness.prompts: is for server probes")
                .contains(p + "16: tasks[0].correctness.command: has no output rule to read")
                .contains(p + "19: tasks[1].serving.server: has no {port}")
                .contains(p + "19: tasks[1].serving.client: '--num-promts' is not a load generator flag (did you mean"
                        + " --num-prompts?)")
                .contains(p + "19: tasks[1].serving.primary: 'tok_s' is not a load generator metric")
                .contains(p + "20: tasks[2]: has neither offline nor serving");
    }

    @Test
    void adapterSectionsStayWithTheirAdapter() throws IOException {
        Files.createDirectories(dir.resolve("vllm"));
        Path f = write("""
                engine: {name: vllm, repo: ./vllm}
                tasks:
                  - id: t1
                    human_commit: b
                    perf_command: python benchmarks/benchmark_latency.py --model m
                    offline: {command: [x]}
                    correctness: {output: {from: stdout}}
                """);
        String msg = message(() -> SuiteLoader.load(f));
        assertThat(msg).contains(f + ":6: tasks[0].offline: belongs to the generic engine adapter (fix: engine.name:"
                + " generic, or describe the task with perf_command)");
        assertThat(msg).contains(f + ":7: tasks[0].correctness.output: reads a generic offline command's text");
    }

    @Test
    void artifactArmsLoadAndTheirProblemsAreNamed() throws IOException {
        Suite s = SuiteLoader.load(write("""
                engine:
                  name: generic
                  build: [node, --version]
                  artifact:
                    type: npm
                    package: node-llama-cpp
                    source: "npm:node-llama-cpp@{version}"
                    sha256: {3.22.1: 0000000000000000000000000000000000000000000000000000000000000000}
                tasks:
                  - id: nlc
                    human_commit: 3.22.1
                    parent_commit: 3.21.1
                    artifacts: {baseline: "files/nlc-{version}.tgz"}
                    serving: {server: [node, s.mjs, --port, "{port}"]}
                """));
        ArtifactSpec a = s.engine().artifact();
        assertThat(a.type()).isEqualTo(ArtifactSpec.Type.NPM);
        assertThat(s.engine().build()).as("the build step runs in each arm's prefix").containsExactly("node", "--version");
        assertThat(s.engine().isUrl()).isFalse();
        assertThat(s.engine().localPath()).isNull();
        ArtifactSpec.Resolved human = a.resolve("3.22.1", null, null, dir);
        assertThat(human.source()).isEqualTo("npm:node-llama-cpp@3.22.1");
        assertThat(human.sha256()).startsWith("0000");
        ArtifactSpec.Resolved base = a.resolve("3.21.1", null, s.tasks().get(0).artifacts().sources().get("baseline"),
                dir);
        assertThat(base.source()).isEqualTo(dir.resolve("files/nlc-3.21.1.tgz").toString());
        assertThat(base.sha256()).isNull();
        assertThat(base.expectedVersion()).isEqualTo("3.21.1");

        Path f = write("""
                engine:
                  name: generic
                  artifact: {type: wheel, source: "x-{sha}.whl", sha256: {a: nothex}}
                tasks:
                  - {id: t, human_commit: b, parent_commit: a, serving: {server: [s, "{port}"]}}
                """);
        assertThat(message(() -> SuiteLoader.load(f)))
                .contains(f + ":3: engine.artifact.type: 'wheel' is not an artifact type")
                .contains(f + ":3: engine.artifact.package: missing")
                .contains(f + ":3: engine.artifact.source: unknown placeholder {sha}")
                .contains(f + ":3: engine.artifact.sha256.a: 'nothex' is not a sha256");
        Path h = write("""
                engine:
                  name: generic
                  artifact: {type: pip, package: vllm, source: "w/{commit}.whl", verify: commit}
                tasks:
                  - id: t
                    human_commit: b
                    serving: {server: [s, "{port}"]}
                agents:
                  - {name: a1, patches: {t: p.diff}}
                """);
        Files.writeString(dir.resolve("p.diff"), "diff\n");
        assertThat(message(() -> SuiteLoader.load(h)))
                .contains(h + ":5: tasks[0].parent_commit: missing: arms from prebuilt artifacts have no git history")
                .contains(h + ":9: agents[0].patches.t: arms of this engine are prebuilt artifacts");
        Path g = write("""
                engine:
                  name: generic
                  artifact: {type: binary, package: srv, source: "bin/srv-{version}"}
                tasks:
                  - {id: t, human_commit: b, parent_commit: a, serving: {server: [srv, "{port}"]}}
                """);
        assertThat(message(() -> SuiteLoader.load(g))).contains(g + ":3: engine.artifact.check: missing: a binary has"
                + " no package metadata to verify");
    }

    /** The complete examples of docs/suite-format.md load, so the documentation cannot drift from the loader. */
    @Test
    void theDocumentedExamplesLoad() throws IOException {
        String doc = Files.readString(Path.of("docs/suite-format.md"));
        Suite offline = SuiteLoader.load(write(example(doc, "### Complete example: offline")), false);
        GenericTask.Offline o = offline.tasks().get(0).generic().offline();
        assertThat(o.primary()).isEqualTo(MetricRule.CPU);
        assertThat(o.metrics()).extracting(MetricRule::name).containsExactly("tok_s", "load_ms");
        assertThat(offline.setup()).hasSize(1);
        assertThat(offline.agents()).hasSize(1);
        Suite serving = SuiteLoader.load(write(example(doc, "### Complete example: serving")), false);
        assertThat(serving.tasks().get(0).generic().serving().model()).isEqualTo("tiny-llama");
        Suite artifacts = SuiteLoader.load(write(example(doc, "### Complete example: prebuilt artifacts")), false);
        assertThat(artifacts.engine().artifact().sha256()).containsOnlyKeys("3.21.1", "3.22.1");
        assertThat(SuiteLoader.load(Path.of("examples/node-llama-cpp/suite.yaml"), false).engine().artifact())
                .isEqualTo(artifacts.engine().artifact());
    }

    private static String example(String doc, String heading) {
        int h = doc.indexOf(heading);
        assertThat(h).as(heading).isPositive();
        int start = doc.indexOf("```yaml\n", h) + "```yaml\n".length();
        return doc.substring(start, doc.indexOf("```", start));
    }

    private static String message(Runnable r) {
        try {
            r.run();
        } catch (IsobenchException.BadInput e) {
            return e.getMessage();
        }
        throw new AssertionError("expected a suite error");
    }

    @Test
    void goodSuitesDoNotThrow() {
        assertThatThrownBy(() -> message(() -> { })).isInstanceOf(AssertionError.class);
    }
}
