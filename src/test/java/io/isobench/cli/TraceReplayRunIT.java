package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A timed trace through {@code isobench run}, for real: {@code examples/trace-replay/suite.yaml} (two npm releases of
 * node-llama-cpp serving the tiny GGUF model) in a 2-round variant that replays an 8-second window of the trace at
 * twice its pace, so the class stays near two minutes. Every measured run is stored without a failure, replayed the
 * window's requests, and carries the same workload fingerprint (prompts, schedule and trace digests) as every other
 * arm's; the Markdown report lists each measured run's schedule lag. Shares nothing with another IT beyond what NodeLlamaCppArtifactIT shares (npm's cache, read only; free
 * loopback ports; its own temp dir), so it takes no ItLocks lock; it asserts no timing, so it is not isolated.
 */
class TraceReplayRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyArmReplaysTheSamePromptsAtTheSameOffsets() throws Exception {
        SharedData.require("fixtures/tiny-llama.gguf");
        SharedData.requireService(Llama2cExampleIT.onPath("node") && Llama2cExampleIT.onPath("npm")
                && Llama2cExampleIT.onPath("setsid"), "node and npm (scripts/provision fills npm's cache with"
                + " node-llama-cpp 3.21.1 and 3.22.1)");
        Path example = Path.of("examples/trace-replay").toAbsolutePath();
        String suite = Files.readString(example.resolve("suite.yaml"))
                .replace("{suite_dir}/../../", example.getParent().getParent() + "/")
                .replace("{suite_dir}/trace.jsonl", example.resolve("trace.jsonl").toString())
                .replace("--seed, \"0\"]", "--seed, \"0\", --trace-duration, \"8\", --trace-speedup, \"2\"]")
                .replace("rounds: 3", "rounds: 2");
        assertThat(suite).contains("--trace-duration").contains("rounds: 2");
        Path file = dir.resolve("suite.yaml");
        Files.writeString(file, suite);
        Path db = dir.resolve("trace.duckdb");
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db",
                db.toString(), "run", file.toString(), "--workdir", dir.resolve("work").toString());
        assertThat(code).as(err.toString()).isZero();
        // the window: the trace's records in its first 8 s (python3 make_trace.py wrote them; counted here)
        long inWindow = Files.readAllLines(example.resolve("trace.jsonl")).stream()
                .filter(l -> Long.parseLong(l.replaceAll(".*\"timestamp\": (\\d+),.*", "$1")) < 8000).count();
        try (Store store = Stores.open(db.toString())) {
            String session = store.sessions().get(0).sessionId();
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, session, false), runs::add);
            List<JsonNode> measured = new ArrayList<>();
            for (RunRecord r : runs) {
                assertThat(r.failure()).as(r.runId() + "\n" + err).isNull();
                if (r.workload() != null && r.runId().matches(".*/r\\d+$")) {
                    measured.add(JSON.readTree(r.workload()));
                }
            }
            assertThat(measured).as(err.toString()).hasSize(6); // baseline, baseline-aa, human × 2 rounds
            JsonNode first = measured.get(0);
            assertThat(first.path("requests").asLong()).isEqualTo(inWindow);
            assertThat(first.path("dataset").asText()).startsWith("timed_trace:trace.jsonl,block=16,")
                    .contains("speedup=2.0").contains("duration=8.0");
            for (String key : List.of("prompts_sha256", "schedule_sha256", "trace_sha256")) {
                assertThat(first.path(key).asText()).hasSize(64);
                assertThat(measured).extracting(w -> w.path(key).asText()).as(key).containsOnly(first.path(key).asText());
            }
        }
        // the report shows the schedule's fidelity next to each measured run: every run had a schedule (the trace)
        Path md = dir.resolve("report.md");
        code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db", db.toString(),
                "report", "--out", md.toString());
        assertThat(code).as(err.toString()).isZero();
        String report = Files.readString(md);
        assertThat(report).contains("Load fidelity per run");
        List<String> rows = report.lines().dropWhile(l -> !l.startsWith("Load fidelity per run")).skip(1)
                .dropWhile(String::isBlank).takeWhile(l -> l.startsWith("|"))
                .filter(l -> l.matches("\\| [12] \\| .*")).toList();
        assertThat(rows).as(report).hasSize(6)
                .allSatisfy(l -> assertThat(l.split("\\|")[3].strip()).as(l).matches("[0-9.]+ / [0-9.]+ / [0-9.]+"));
    }
}
