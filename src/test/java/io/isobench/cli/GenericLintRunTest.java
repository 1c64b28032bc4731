package io.isobench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench tasks lint SUITE --run}: a generic engine (a one-file Python "engine" in a git repository made here)
 * is built and run once in its baseline; a rule that matches its real output reports the value, one that does not is
 * an error naming the task, the rule and what the stream held instead.
 */
class GenericLintRunTest {

    @TempDir
    Path dir;

    @Test
    void theLintRunReportsEveryRuleAgainstTheBaselinesRealOutput() throws Exception {
        io.isobench.SharedData.requireSandbox();
        Path repo = Files.createDirectories(dir.resolve("engine"));
        Files.writeString(repo.resolve("engine.py"), String.join("\n",
                "import sys",
                "print('Once upon a time')",
                "sys.stderr.write('achieved tok/s: 41.5')", ""));
        git(repo, "init", "-q");
        git(repo, "add", "engine.py");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false", "commit", "-q",
                "-m", "engine");
        git(repo, "tag", "v1");
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                engine: {name: generic, repo: ./engine, build: [python3, -m, py_compile, engine.py]}
                tasks:
                  - id: gen
                    human_commit: v1
                    parent_commit: v1
                    offline:
                      command: [python3, engine.py]
                      metrics:
                        - {name: tok_s, from: stderr, regex: 'achieved tok/s: ([0-9.]+)', unit: tok/s, better: higher,
                           primary: true}
                        - {name: ms_per_tok, from: stdout, regex: 'ms/tok: ([0-9.]+)', unit: ms, better: lower}
                    correctness: {output: {from: stdout}}
                """);
        MainTest.Result r = MainTest.run("tasks", "lint", suite.toString(), "--run", "--workdir",
                dir.resolve("work").toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("gen: lint run of the baseline (v1) in " + dir.resolve("work/envs/gen/baseline")
                + ": exit 0, command_wall_s=")
                .contains("  ok     tok_s = 41.5 tok/s   (stderr /achieved tok/s: ([0-9.]+)/)")
                .contains("  ERROR  RULE_NO_MATCH ms_per_tok: no match of /ms/tok: ([0-9.]+)/ in stdout (its last"
                        + " line: Once upon a time)   (stdout /ms/tok: ([0-9.]+)/)")
                .contains("  ok     output: 1 text(s), 17 chars   (stdout (whole text))")
                .contains("  primary metric: tok_s");
        assertThat(r.err()).contains("lint run gen baseline v1: python3 engine.py");
    }

    @Test
    void executorsThatCannotRunAGenericCommandAreRefusedWithTheFix() throws Exception {
        Files.createDirectories(dir.resolve("engine"));
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                engine: {name: generic, repo: ./engine}
                tasks:
                  - {id: gen, human_commit: v1, parent_commit: v0, offline: {command: [python3, engine.py]}}
                """);
        MainTest.Result r = MainTest.run("run", suite.toString(), "--dry-run", "--executor", "slurm");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--executor slurm: generic offline commands run on the local or docker executor"
                + " (fix: --executor local, or describe the task as serving)");
        assertThat(MainTest.run("run", suite.toString(), "--dry-run", "--executor", "docker").code()).isZero();
    }

    private static void git(Path repo, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("git"));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).directory(repo.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
    }
}
