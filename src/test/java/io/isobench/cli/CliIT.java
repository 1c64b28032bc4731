package io.isobench.cli;

import io.isobench.SharedData;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built jar, run as a user would (STYLE.md §15): the README's main job on the real sample, then table,
 * report and export; exit codes, stdout and stderr.
 */
class CliIT {

    @TempDir
    static Path work;

    static Path db;

    record Run(int code, String out, String err) {
    }

    static Run isobench(String... args) throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("isobench.jar", "target/isobench.jar")).toAbsolutePath();
        assertThat(jar).as("the jar is built by `mvn package` before integration tests").exists();
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString()));
        argv.addAll(List.of(args));
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        Process p = new ProcessBuilder(argv).directory(work.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("isobench " + String.join(" ", args) + " did not finish in 5 minutes");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @BeforeAll
    static void importSample() throws Exception {
        Path data = SharedData.isobenchData();
        db = work.resolve("cli.duckdb");
        Run r = isobench("--db", db.toString(), "import", "legacy", data.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("R1").contains("recovered").contains("total");
    }

    @Test
    void tableAcceptsDbAfterTheSubcommandAndAgentSpelledEitherWay() throws Exception {
        Run a = isobench("table", "--db", db.toString(), "--agent", "claude-code");
        Run b = isobench("--db", db.toString(), "table", "--agent", "claude_code");
        assertThat(a.code()).as(a.err()).isZero();
        assertThat(a.out()).isEqualTo(b.out());
        assertThat(a.out().lines().findFirst().orElseThrow()).isEqualTo("commit,status,pipeline,mode,metric,unit,better,"
                + "baseline_value,human_value,agent_value,human_delta_pct,agent_delta_pct,agent_vs_human_pct,"
                + "comparability,issues");
        assertThat(a.out()).contains("299ebb62,complete_3way_same_run,modal,serving,tpot_ms_mean,ms,lower,4.76,4.20,4.30,"
                + "11.7647,9.6639,-2.3810,same_run,");
    }

    @Test
    void reportToStdoutAndToFile() throws Exception {
        Run r = isobench("--db", db.toString(), "report");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("# isobench report").contains("## Failures by category");
        Path file = work.resolve("out/report.md");
        Run f = isobench("--db", db.toString(), "report", "--out", file.toString());
        assertThat(f.code()).as(f.err()).isZero();
        assertThat(f.out().trim()).isEqualTo(file.toString());
        assertThat(Files.readString(file)).contains("## To-do list");
    }

    @Test
    void exportHfWritesParquetJsonlAndCard() throws Exception {
        Path out = work.resolve("hf");
        Run r = isobench("--db", db.toString(), "export", "hf", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(out.resolve("data/train-00000-of-00001.parquet")).isNotEmptyFile();
        assertThat(out.resolve("data/train-00000-of-00001.jsonl")).isNotEmptyFile();
        assertThat(out.resolve("README.md")).isNotEmptyFile();
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws Exception {
        Run missing = isobench("--db", db.toString(), "import", "legacy", work.resolve("nope").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err().strip().lines().count()).isEqualTo(1);
        assertThat(missing.err()).contains("nope");

        Path notADb = Files.writeString(work.resolve("notes.txt"), "not a database");
        Run badDb = isobench("--db", notADb.toString(), "report");
        assertThat(badDb.code()).isEqualTo(2);
        assertThat(badDb.err()).contains("notes.txt").doesNotContain("\tat ");

        Run badOption = isobench("table", "--format", "xml", "--agent", "x", "--db", db.toString());
        assertThat(badOption.code()).isEqualTo(2);
    }

    @Test
    void everyCommandHasHelp() throws Exception {
        for (String[] cmd : new String[][] {{"--help"}, {"import", "--help"}, {"import", "legacy", "--help"},
                {"import", "hf", "--help"}, {"table", "--help"}, {"report", "--help"}, {"export", "--help"},
                {"export", "hf", "--help"}, {"tasks", "--help"}}) {
            Run r = isobench(cmd);
            assertThat(r.code()).as(String.join(" ", cmd)).isZero();
            assertThat(r.out()).as(String.join(" ", cmd)).contains("Usage:");
        }
    }
}
