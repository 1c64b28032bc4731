package io.isobench.task;

import io.isobench.IsobenchException;
import io.isobench.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SuiteLoaderTest {

    @TempDir
    Path dir;

    /** The complete example of docs/suite-format.md, so the documentation cannot drift from the loader. */
    static String docExample() throws IOException {
        String doc = Files.readString(Path.of("docs/suite-format.md"));
        int start = doc.indexOf("```yaml\n") + "```yaml\n".length();
        return doc.substring(start, doc.indexOf("```", start));
    }

    Path write(String yaml) throws IOException {
        Path f = dir.resolve("suite.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    void layout() throws IOException {
        Files.createDirectories(dir.resolve("vllm"));
        Files.createDirectories(dir.resolve("patches/claude-code"));
        Files.writeString(dir.resolve("patches/claude-code/6d0734c5.diff"), "diff --git a/x b/x\n");
        Files.writeString(dir.resolve("patches/claude-code/310aca88.diff"), "diff --git a/y b/y\n");
    }

    @Test
    void theDocumentedExampleLoads() throws IOException {
        layout();
        Suite s = SuiteLoader.load(write(docExample()));
        assertThat(s.engine().name()).isEqualTo("vllm");
        assertThat(s.engine().localPath()).isEqualTo(dir.resolve("vllm").toAbsolutePath().normalize());
        assertThat(s.tasks()).extracting(TaskSpec::id).containsExactly("6d0734c5", "310aca88", "a3223766");
        TaskSpec t0 = s.tasks().get(0);
        assertThat(t0.parentCommit()).isNull();
        assertThat(t0.mode()).contains(Mode.SERVING);
        assertThat(t0.perfCommand()).startsWith("python benchmarks/benchmark_serving.py --model");
        assertThat(t0.correctness()).isEqualTo(new TaskSpec.Correctness(8, 32, 0.0));
        assertThat(t0.line()).isEqualTo(9);
        assertThat(t0.parsedCommand().findings()).isEmpty();
        assertThat(Word.shown(t0.server())).contains("--dtype", "float16").endsWith("--port", "{port}");
        TaskSpec t1 = s.tasks().get(1);
        assertThat(t1.gpus()).isEqualTo(4);
        assertThat(t1.timeoutS()).isEqualTo(3600);
        assertThat(GpuEstimate.forTask(t1).gpus()).isEqualTo(4);
        TaskSpec t2 = s.tasks().get(2);
        assertThat(Word.shown(t2.server())).containsExactly("vllm", "serve", "facebook/opt-125m",
                "--host", "{host}", "--port", "{port}");
        assertThat(s.agents()).hasSize(1);
        assertThat(s.agents().get(0).patchFor("6d0734c5")).contains(dir.resolve("patches/claude-code/6d0734c5.diff"));
        assertThat(s.agents().get(0).patchFor("a3223766")).isEmpty();
        assertThat(s.run()).isEqualTo(new RunConfig(RoundsPlan.DEFAULT, 10, new RunConfig.Timeouts(900, 1800, 3600),
                "local", 42, 18000));
    }

    @Test
    void minimalSuiteGetsDefaults() throws IOException {
        Suite s = SuiteLoader.load(write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: t1
                    human_commit: "1234e567"
                """));
        assertThat(s.engine().isUrl()).isTrue();
        assertThat(s.tasks().get(0).humanCommit()).isEqualTo("1234e567");
        assertThat(s.tasks().get(0).parsedCommand().errors()).extracting(Finding::code).containsExactly("NO_PERF_COMMAND");
        assertThat(s.run()).isEqualTo(RunConfig.DEFAULT);
        assertThat(s.agents()).isEmpty();
    }

    @Test
    void confinementIsEveryArmByDefault_itsKeysAreChecked_andItSurvivesARewrite() throws IOException {
        String head = """
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: t1
                    human_commit: "1234e567"
                """;
        assertThat(SuiteLoader.load(write(head)).run().confine()).isEqualTo(Confine.DEFAULT);
        assertThat(Confine.DEFAULT.confines(false)).isTrue();
        Suite s = SuiteLoader.load(write(head + """
                run: {confine: {arms: agents, pass_env: [HF_TOKEN], writable: [/data/cache], build_network: true}}
                """));
        Confine c = s.run().confine();
        assertThat(c).isEqualTo(new Confine(Confine.Arms.AGENTS, List.of("HF_TOKEN"), List.of("/data/cache"), true));
        assertThat(c.confines(true)).isTrue();
        assertThat(c.confines(false)).isFalse();
        assertThat(SuiteLoader.load(write(SuiteWriter.toYaml(s))).run().confine()).isEqualTo(c);
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {confine: {arms: some}}\n")))
                .hasMessageContaining("run.confine.arms").hasMessageContaining("all, agents or off");
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {confine: {writable: [relative/dir]}}\n")))
                .hasMessageContaining("run.confine.writable").hasMessageContaining("absolute");
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {confine: {pass_env: ['A B']}}\n")))
                .hasMessageContaining("run.confine.pass_env");
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {confine: {network: true}}\n")))
                .hasMessageContaining("network");
    }

    @Test
    void roundsAreAdaptiveByDefault_fixedOnRequest_andTheirKeysAreChecked() throws IOException {
        String head = """
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: t1
                    human_commit: "1234e567"
                """;
        assertThat(SuiteLoader.load(write(head)).run().rounds()).isEqualTo(RoundsPlan.DEFAULT);
        assertThat(RoundsPlan.DEFAULT.adaptive()).isTrue();
        assertThat(RoundsPlan.DEFAULT.describe()).startsWith("up to 8 rounds (adaptive: a look after every round from"
                + " round 3, O'Brien-Fleming-type");
        assertThat(SuiteLoader.load(write(head + "run: {rounds: 6}\n")).run().rounds()).isEqualTo(RoundsPlan.fixed(6));
        RoundsPlan custom = SuiteLoader.load(write(head + """
                run: {rounds: adaptive, min_rounds: 4, max_rounds: 10, spending: pocock, futility_power: 0.2,
                      gating: [human]}
                """)).run().rounds();
        assertThat(custom).isEqualTo(new RoundsPlan(true, 4, 10, "pocock", 0.2, List.of("human")));
        // the adaptive keys with a fixed number, a bad spending function, a bad gate, max below min: one line each
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {rounds: 5, max_rounds: 8}\n")))
                .hasMessageContaining("run.max_rounds: applies to adaptive rounds only, and run.rounds is 5 (fix:");
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {spending: pocok}\n")))
                .hasMessageContaining("run.spending: 'pocok' is not a spending function (did you mean pocock?)");
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {gating: [humans]}\n")))
                .hasMessageContaining("run.gating: 'humans' is not a comparison that can stop a task (fix: human,"
                        + " agents, agents_vs_human)");
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {min_rounds: 6, max_rounds: 4}\n")))
                .hasMessageContaining("run.max_rounds: 4 is below run.min_rounds 6");
        assertThatThrownBy(() -> SuiteLoader.load(write(head + "run: {rounds: sometimes}\n")))
                .hasMessageContaining("run.rounds: 'sometimes' is not an integer");
        // and a written suite says the same
        String written = SuiteWriter.toYaml(SuiteLoader.load(write(head + "run: {rounds: adaptive, max_rounds: 10}\n")));
        assertThat(written).contains("  rounds: adaptive\n").contains("  max_rounds: 10\n");
    }

    @Test
    void theClockRuleComesFromTheRunSectionAndWritesBack() throws IOException {
        Suite s = SuiteLoader.load(write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: t1
                    human_commit: "1234e567"
                run:
                  exclude_on_clock_mismatch: true
                  clock_mismatch_sm_pct: 5
                  clock_mismatch_throttle_share: 0.5
                """));
        assertThat(s.run().clockMismatch()).isEqualTo(new RunConfig.ClockMismatch(true, 5.0, 0.5));
        Path again = dir.resolve("again-clock.yaml");
        Files.writeString(again, SuiteWriter.toYaml(s));
        assertThat(SuiteLoader.load(again).run().clockMismatch()).isEqualTo(s.run().clockMismatch());
        assertThat(SuiteWriter.toYaml(s.withRun(RunConfig.DEFAULT))).doesNotContain("clock_mismatch");
        // one setting alone: the others keep their defaults
        assertThat(SuiteLoader.load(write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks: [{id: t1, human_commit: "1234e567"}]
                run: {exclude_on_clock_mismatch: true}
                """)).run().clockMismatch()).isEqualTo(RunConfig.ClockMismatch.DEFAULT.excluding(true));
    }

    @Test
    void badClockRuleSettingsNameTheKeyAndTheFix() throws IOException {
        Path f = write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks: [{id: t1, human_commit: "1234e567"}]
                run:
                  exclude_on_clock_mismatch: maybe
                  clock_mismatch_sm_pct: 0
                  clock_mismatch_throttle_share: 1.5
                """);
        String msg = message(() -> SuiteLoader.load(f));
        assertThat(msg).contains(f + ":4: run.exclude_on_clock_mismatch: 'maybe' is not true or false (fix: true or"
                + " false)");
        assertThat(msg).contains(f + ":5: run.clock_mismatch_sm_pct: 0 would flag every run (fix: a number > 0 and"
                + " <= 100, e.g. 3)");
        assertThat(msg).contains(f + ":6: run.clock_mismatch_throttle_share: 1.5 is out of range (fix: a number > 0"
                + " and <= 1, e.g. 0.25)");
        assertThat(msg.lines().filter(l -> l.contains("clock_mismatch"))).hasSize(3);
        Path g = write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks: [{id: t1, human_commit: "1234e567"}]
                run: {clock_mismatch_sm_pct: lots, clock_mismatch_throttle_share: 0}
                """);
        String m2 = message(() -> SuiteLoader.load(g));
        assertThat(m2).contains(g + ":3: run.clock_mismatch_sm_pct: 'lots' is not a number (fix: a number > 0 and"
                + " <= 100, e.g. 3)");
        assertThat(m2).contains(g + ":3: run.clock_mismatch_throttle_share: 0 would flag every run (fix: a number > 0"
                + " and <= 1, e.g. 0.25)");
    }

    static String message(Runnable r) {
        try {
            r.run();
        } catch (IsobenchException.BadInput e) {
            assertThat(e.exitCode()).isEqualTo(2);
            return e.getMessage();
        }
        throw new AssertionError("expected BadInput");
    }

    @Test
    void unknownKeysNameTheNearestKnownKeyWithFileAndLine() throws IOException {
        Path f = write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: t1
                    human_commit: abc123
                    mdoe: serving
                runn: {rounds: 3}
                """);
        String msg = message(() -> SuiteLoader.load(f));
        assertThat(msg).contains(f + ":5: tasks[0].mdoe: unknown key (did you mean mode?)");
        assertThat(msg).contains(f + ":6: runn: unknown key (did you mean run?)");
    }

    @Test
    void everyProblemIsReportedWithLineFieldAndFix() throws IOException {
        Path f = write("""
                engine:
                  repo: ./no-such-clone
                  name: sglang
                tasks:
                  - id: t1
                    perf_command: python benchmarks/benchmark_latency.py
                    mode: fast
                    gpus: two
                  - id: t1
                    human_commit: abc
                    server_command: vllm serve {model} {prot}
                agents:
                  - name: baseline
                  - name: codex
                    patches:
                      t9: p.diff
                      t1: missing.diff
                run:
                  rounds: 0
                  executor: slurmm
                """);
        String msg = message(() -> SuiteLoader.load(f));
        assertThat(msg).contains(f + ":3: engine.name: 'sglang' is not an engine isobench"
                + " runs (its adapter lints and parses its commands) (fix: vllm, toy, or generic for any other engine)");
        assertThat(msg).doesNotContain("human_commit: missing"); // a task without commits is a track task
        assertThat(msg).contains(f + ":7: tasks[0].mode: 'fast' is not a mode");
        assertThat(msg).contains(f + ":8: tasks[0].gpus: 'two' is not an integer");
        assertThat(msg).contains(f + ":9: tasks[1].id: duplicate id 't1' (first at line 5)");
        assertThat(msg).contains(f + ":11: tasks[1].server_command: unknown placeholder {prot} (did you mean {port}?)");
        assertThat(msg).contains(f + ":13: agents[0].name: 'baseline' is not a usable agent name");
        assertThat(msg).contains(f + ":16: agents[1].patches.t9: no task with id 't9' (did you mean t1?)");
        assertThat(msg).contains(f + ":17: agents[1].patches.t1: no such file");
        assertThat(msg).contains(f + ":19: run.rounds: 0 is out of range");
        assertThat(msg).contains(f + ":20: run.executor: 'slurmm' is not an executor (did you mean slurm?)");
    }

    @Test
    void engineRepoMustExistWhenLocal() throws IOException {
        Path f = write("""
                engine: {repo: ./nowhere}
                tasks: [{id: t1, human_commit: abc}]
                """);
        assertThat(message(() -> SuiteLoader.load(f))).startsWith(f + ":1: engine.repo: no such directory");
    }

    @Test
    void yamlSyntaxErrorsNameTheLine() throws IOException {
        Path f = write("""
                engine: {repo: x}
                tasks:
                  - id: [unclosed
                """);
        assertThat(message(() -> SuiteLoader.load(f))).startsWith(f + ":").contains(": yaml: ");
        Path empty = write("");
        assertThat(message(() -> SuiteLoader.load(empty))).contains("the file is empty");
        assertThatThrownBy(() -> SuiteLoader.load(dir.resolve("absent.yaml")))
                .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("cannot read the suite");
    }

    @Test
    void wrongShapesAreReported() throws IOException {
        Path f = write("""
                engine: vllm
                tasks: {id: t1}
                """);
        String msg = message(() -> SuiteLoader.load(f));
        assertThat(msg).contains(f + ":1: engine: must be a mapping of key: value, not 'vllm'");
        assertThat(msg).contains(f + ":2: tasks: must be a list");
    }

    @Test
    void writerOutputLoadsBack() throws IOException {
        layout();
        Suite s = SuiteLoader.load(write(docExample()));
        Path again = dir.resolve("again.yaml");
        Files.writeString(again, SuiteWriter.toYaml(s));
        Suite t = SuiteLoader.load(again);
        assertThat(t.tasks()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            TaskSpec a = s.tasks().get(i);
            TaskSpec b = t.tasks().get(i);
            assertThat(b.perfCommand()).isEqualTo(a.perfCommand());
            assertThat(b.humanCommit()).isEqualTo(a.humanCommit());
            assertThat(b.serverCommand()).isEqualTo(a.serverCommand());
            assertThat(b.gpus()).isEqualTo(a.gpus());
        }
        assertThat(t.agents().get(0).patches()).isEqualTo(s.agents().get(0).patches());
        assertThat(t.run()).isEqualTo(s.run());
    }

    @Test
    void tasksWithLintErrorsAreNotRunnableAndCarryTheReason() throws IOException {
        Suite s = SuiteLoader.load(write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - {id: ok, human_commit: a1, perf_command: "vllm bench latency --model facebook/opt-125m"}
                  - {id: bad, human_commit: a2, perf_command: "python benchmarks/benchmark_latency.py --batch-size BS"}
                  - {id: none, human_commit: a3}
                """));
        assertThat(s.runnableTasks()).extracting(TaskSpec::id).containsExactly("ok");
        assertThat(s.notRunnable()).containsOnlyKeys("bad", "none");
        assertThat(s.notRunnable().get("bad")).extracting(Finding::code).containsExactly("PLACEHOLDER");
        assertThat(s.notRunnable().get("none")).extracting(Finding::code).containsExactly("NO_PERF_COMMAND");
    }
}
