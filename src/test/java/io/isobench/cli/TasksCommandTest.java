package io.isobench.cli;

import io.isobench.SharedData;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class TasksCommandTest {

    static final String EXPORTS = "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/";

    @TempDir
    Path dir;

    @Test
    void lintFullResultsAsTextAndJson() {
        Path f = SharedData.require(EXPORTS + "exports/full_results.jsonl");
        MainTest.Result text = MainTest.run("tasks", "lint", f.toString());
        assertThat(text.code()).isZero();
        assertThat(text.out()).contains("526de822   ERROR").contains("PLACEHOLDER")
                .contains("94 command(s): 22 runnable, 72 not runnable");
        MainTest.Result json = MainTest.run("tasks", "lint", "--format", "json", f.toString());
        assertThat(json.code()).isZero();
        assertThat(json.out().lines()).hasSize(94).allMatch(l -> l.startsWith("{\"id\":"));
    }

    @Test
    void lintTextFileOfCommands() throws IOException {
        Path f = dir.resolve("cmds.txt");
        Files.writeString(f, """
                # one per line
                python benchmarks/benchmark_serving.py --model facebook/opt-125m --input-len 5

                vllm bench latency --model facebook/opt-125m
                """);
        MainTest.Result r = MainTest.run("tasks", "lint", f.toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("line 2     ERROR").contains("INVALID_FLAG").contains("line 4     ok");
    }

    @Test
    void unreadableInputIsExitTwo() {
        MainTest.Result r = MainTest.run("tasks", "lint", dir.resolve("absent.jsonl").toString());
        assertThat(r.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(r.err()).contains("absent.jsonl: no such file");
    }

    @Test
    void badSuiteIsExitTwoWithFileLineField() throws IOException {
        Path f = dir.resolve("s.yaml");
        Files.writeString(f, "engine: {repo: https://x/y.git}\ntasks:\n  - id: t1\n    human_comit: abc\n");
        MainTest.Result r = MainTest.run("tasks", "lint", f.toString());
        assertThat(r.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(r.err()).contains(f + ":4: tasks[0].human_comit: unknown key (did you mean human_commit?)");
    }

    @Test
    void importFullResultsBuildsASuiteThatLoadsAndLints() throws IOException {
        Path f = SharedData.require(EXPORTS + "exports/full_results.jsonl");
        Path out = dir.resolve("suite.yaml");
        MainTest.Result r = MainTest.run("tasks", "import", f.toString(), "--out", out.toString());
        assertThat(r.code()).isZero();
        assertThat(r.err()).contains("imported 94 task(s)");
        Suite s = SuiteLoader.load(out);
        assertThat(s.tasks()).hasSize(94);
        TaskSpec t = s.task("310aca88").orElseThrow();
        assertThat(t.humanCommit()).hasSize(40).startsWith("310aca88");
        assertThat(t.gpus()).isEqualTo(4);
        assertThat(t.modeLabel()).isEqualTo("standalone");
        assertThat(t.perfCommand()).contains("-tp 4");
        assertThat(s.task("3127e975").orElseThrow().perfCommand()).isNull();
        assertThat(Files.readString(out)).contains("# lint error PLACEHOLDER");
        MainTest.Result lint = MainTest.run("tasks", "lint", out.toString());
        assertThat(lint.code()).isZero();
        assertThat(lint.out()).contains("94 command(s): 22 runnable, 72 not runnable");
    }

    @Test
    void importParquetAndCsvTables() {
        Path parquet = SharedData.require(EXPORTS + "exports/data/train-00000-of-00001.parquet");
        MainTest.Result p = MainTest.run("tasks", "import", parquet.toString());
        assertThat(p.code()).isZero();
        assertThat(p.err()).contains("imported 94 task(s)");
        assertThat(p.out()).contains("perf_command: \"python benchmarks/benchmark_latency.py --model"
                + " meta-llama/Meta-Llama-3-70B --load-format dummy --enforce-eager -tp 4\"");

        Path csv = SharedData.require(EXPORTS + "hf_export/updated_rows_only.csv");
        MainTest.Result c = MainTest.run("tasks", "import", csv.toString());
        assertThat(c.code()).isZero();
        assertThat(c.err()).contains("imported ");
        assertThat(c.out()).contains("parent_commit: ");
    }

    @Test
    void lfsPointerIsRefusedWithItsName() throws IOException {
        Path f = dir.resolve("train.parquet");
        Files.writeString(f, "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n");
        MainTest.Result r = MainTest.run("tasks", "import", f.toString());
        assertThat(r.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(r.err()).contains("LFS pointer, data not present");
        Path corrupt = dir.resolve("bad.parquet");
        Files.writeString(corrupt, "not parquet");
        MainTest.Result r2 = MainTest.run("tasks", "lint", corrupt.toString());
        assertThat(r2.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(r2.err()).contains("cannot read as parquet");
    }
}
