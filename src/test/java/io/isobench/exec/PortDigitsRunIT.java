package io.isobench.exec;

import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The suite of issue 29: a server flag whose value is 65432 (the number that used to stand in for the port) runs as
 * written on a real toy server; the stored argv of every server shows it, next to the port the executor picked.
 */
class PortDigitsRunIT {

    @TempDir
    Path root;

    @Test
    void theServerRunsItsFlagsAsWritten() throws Exception {
        Cli.buildToyRepo(root.resolve("repo"));
        Path suite = root.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: tpot",
                "    human_commit: task-tpot",
                "    parent_commit: baseline",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port}"
                        + " --model {model} --disable-log-requests {server_flags}",
                "    perf_command: vllm bench serve --model toy-1m --max-model-len 65432 --dataset-name random"
                        + " --random-input-len 16 --random-output-len 8 --num-prompts 4 --max-concurrency 2"
                        + " --ignore-eos --seed 1065432",
                "    correctness: {prompts: 2, max_tokens: 8, tolerance: 0.0}",
                "run: {rounds: 1, seed: 3, aa: false, warmup_requests: 0,"
                        + " timeouts: {server_start_s: 60, run_s: 120, build_s: 60}}",
                ""));
        String db = root.resolve("db.duckdb").toString();
        Process p = Cli.builder("run", suite.toString(), "--db", db, "--workdir", root.resolve("work").toString(),
                "--executor", "local").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        List<RunRecord> runs = new ArrayList<>();
        try (Store store = Stores.open(db)) {
            store.forEachRun(RunFilter.all(), runs::add);
        }
        assertThat(runs).hasSize(5).allMatch(r -> r.status() == RunRecord.RunStatus.SUCCESS, out);
        for (RunRecord r : runs) {
            String argv = r.argvJson();
            assertThat(argv).as(r.runId()).contains("\"--max-model-len\",\"65432\"")
                    .containsPattern("\"--port\",\"\\d+\"").doesNotContain("{port}");
        }
    }
}
