package io.isobench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The launcher's class-data archive training run really runs the results commands (a failed one fails the run). */
class TrainArchiveCommandTest {

    @TempDir
    Path tmp;

    @Test
    void runsSynthTableReportAndExportOnASmallStore() {
        Path dir = tmp.resolve("train");
        MainTest.Result r = MainTest.run("train-archive", dir.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("trained on 6 commands");
        assertThat(dir.resolve("train.duckdb")).isNotEmptyFile();
        assertThat(dir.resolve("report.md")).content().contains("claude_code");
        assertThat(dir.resolve("hf/data/train-00000-of-00001.parquet")).isNotEmptyFile();
        assertThat(dir.resolve("hf/data/train-00000-of-00001.jsonl")).isNotEmptyFile();
        assertThat(dir.resolve("hf.duckdb")).isNotEmptyFile();
    }

    @Test
    void isHiddenFromTheHelp() {
        assertThat(MainTest.run("--help").out()).doesNotContain("train-archive");
    }
}
