package io.isobench.exec;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 10: SIGTERM (what Ctrl-C sends the JVM as SIGINT) of {@code isobench run} prints how to resume the
 * session, and the runs finished before it are kept.
 */
class InterruptHintIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void sigtermPrintsTheResumeCommand() throws Exception {
        SharedData.requireService(io.isobench.ToyRepo.toolsPresent(), "python3, git and setsid for the toy engine");
        Path repo = dir.resolve("repo");
        io.isobench.ToyRepo.build(repo);
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: tpot",
                "    human_commit: task-tpot",
                "    parent_commit: baseline",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model}",
                "    perf_command: vllm bench serve --model toy-1m --dataset-name random --random-input-len 32 "
                        + "--random-output-len 64 --num-prompts 8 --max-concurrency 4 --ignore-eos",
                "run: {rounds: 3, seed: 42, warmup_requests: 1, timeouts: {server_start_s: 20, run_s: 60}}",
                ""));
        String db = dir.resolve("db.duckdb").toString();
        Process p = Cli.builder("run", suite.toString(), "--db", db, "--session", "hint-me", "--workdir",
                dir.resolve("work").toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        StringBuilder err = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            boolean sent = false;
            while ((line = r.readLine()) != null) {
                err.append(line).append('\n');
                if (!sent && line.startsWith("job 2/")) {
                    // SIGTERM (Process.destroy would close the streams this test still reads)
                    new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
                    sent = true;
                }
            }
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(err.toString()).contains("isobench: interrupted; every finished run is stored. Resume with: "
                + "isobench run " + suite + " --resume --session hint-me --db " + db + " --workdir ");
    }
}
