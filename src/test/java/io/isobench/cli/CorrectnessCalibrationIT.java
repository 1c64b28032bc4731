package io.isobench.cli;

import io.isobench.Arm;
import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The calibrated greedy-output gate end to end on the toy engine: the baseline's repeat check (a second server start)
 * stores a calibration with floor 0 (the toy engine is deterministic, also at batch size 8); a human commit that
 * changes the model's numerics is {@code CHANGES_OUTPUTS}, not a failure; an agent patch that reproduces the human
 * exactly passes by the rule {@code human}; a different patch is {@code OUTPUT_MISMATCH}. The human commit and the
 * patches are made here, from the toy engine's repository.
 */
class CorrectnessCalibrationIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theRepeatCheckCalibratesAndAnAgentThatReproducesAHumanWhoChangesOutputsPasses() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git and setsid (util-linux) for the toy engine");
        Path repo = dir.resolve("repo");
        ToyRepo.build(repo);
        Path patches = Files.createDirectories(dir.resolve("patches"));
        // the human commit: five candidate tokens per step instead of four (other argmax, other greedy outputs)
        ToyRepo.run(repo, "git", "checkout", "-q", "baseline");
        edit(repo, "_NUM_CANDIDATES = 4", "_NUM_CANDIDATES = 5");
        ToyRepo.run(repo, "git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false",
                "commit", "-q", "-am", "model: five candidates");
        ToyRepo.run(repo, "git", "tag", "task-numerics");
        Files.writeString(patches.resolve("mimic.patch"),
                ToyRepo.run(repo, "git", "diff", "baseline", "task-numerics"));
        ToyRepo.run(repo, "git", "checkout", "-q", "baseline");
        edit(repo, "_NUM_CANDIDATES = 4", "_NUM_CANDIDATES = 3");
        Files.writeString(patches.resolve("wrong.patch"), ToyRepo.run(repo, "git", "diff"));
        ToyRepo.run(repo, "git", "checkout", "-q", "--", "toyllm/model.py");

        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: num",
                "    human_commit: task-numerics",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port}"
                        + " --model {model}",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --batch-size 1 --input-len 8"
                        + " --output-len 4 --num-iters 3 --num-iters-warmup 1 --seed 0",
                "    correctness: {prompts: 3, max_tokens: 16, tolerance: 0.0}",
                "agents:",
                "  - {name: mimic, patches: {num: patches/mimic.patch}}",
                "  - {name: wrong, patches: {num: patches/wrong.patch}}",
                "run: {rounds: 1, seed: 1}",
                ""));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Path db = dir.resolve("x.duckdb");
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db.toString(), "run",
                suite.toString(), "--workdir", dir.resolve("w").toString());
        assertThat(code).as(err.toString()).isIn(0, 1);
        try (Store store = Stores.open(db.toString())) {
            String session = store.sessions().get(0).sessionId();
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, session, false), runs::add);

            JsonNode base = extra(runs, "num/baseline/check");
            assertThat(base.path("correctness").path("outcome").asText()).isEqualTo("REFERENCE");
            assertThat(base.path("probe")).hasSize(3);
            assertThat(base.path("probe_batched")).hasSize(3);
            assertThat(base.path("probe_batch_size").asInt()).isEqualTo(8);

            RunRecord repeatRun = run(runs, "num/baseline/check-repeat");
            assertThat(repeatRun.failure()).isNull();
            JsonNode repeat = extra(runs, "num/baseline/check-repeat");
            JsonNode cal = repeat.path("correctness").path("calibration");
            assertThat(repeat.path("correctness").path("outcome").asText()).isEqualTo("CALIBRATION");
            assertThat(cal.path("restart_mismatch").asDouble(-1)).isZero();
            assertThat(cal.path("batch_mismatch").asDouble(-1)).isZero();
            assertThat(cal.path("floor").asDouble(-1)).isZero();
            assertThat(cal.path("batch_size").asInt()).isEqualTo(8);
            assertThat(cal.has("logprob_drift_floor")).isTrue();
            // its probes are the baseline's again, kept apart from the reference
            assertThat(repeat.path("probe")).isEqualTo(base.path("probe"));

            JsonNode human = extra(runs, "num/human/check").path("correctness");
            assertThat(human.path("outcome").asText()).isEqualTo("CHANGES_OUTPUTS");
            assertThat(human.path("rule").isNull()).isTrue();
            assertThat(human.path("reason").asText()).contains("changes the outputs");
            assertThat(human.path("floor").asDouble(-1)).isZero();
            assertThat(human.path("tolerance_effective").asDouble(-1)).isZero();
            assertThat(run(runs, "num/human/check").failure()).isNull();

            JsonNode mimic = extra(runs, "num/agent:mimic/check").path("correctness");
            assertThat(mimic.path("outcome").asText()).isEqualTo("MATCH");
            assertThat(mimic.path("rule").asText()).isEqualTo("human");
            assertThat(mimic.path("vs_human").path("exact_match_rate").asDouble()).isEqualTo(1.0);
            assertThat(mimic.path("vs_human_batched").path("exact_match_rate").asDouble()).isEqualTo(1.0);
            assertThat(mimic.path("vs_baseline").path("exact_match_rate").asDouble()).isLessThan(1.0);

            RunRecord wrongRun = run(runs, "num/agent:wrong/check");
            JsonNode wrong = extra(runs, "num/agent:wrong/check").path("correctness");
            assertThat(wrong.path("outcome").asText()).isEqualTo("OUTPUT_MISMATCH");
            assertThat(wrong.path("rule").isNull()).isTrue();
            assertThat(wrong.path("reason").asText()).contains("vs baseline: ").contains("; vs human: ");
            assertThat(wrongRun.failure().category()).isEqualTo("OUTPUT_MISMATCH");

            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, session, StatsConfig.defaults()).tasks().get(0);
            assertThat(t.correctness(Arm.ofStored("agent:mimic")).rule()).isEqualTo("human");
            assertThat(t.correctness(Arm.HUMAN).outcome()).isEqualTo("CHANGES_OUTPUTS");
            assertThat(t.incorrect()).containsExactly(Arm.ofStored("agent:wrong"));
            assertThat(t.calibration()).containsEntry("floor", 0.0);
        }
    }

    private static RunRecord run(List<RunRecord> runs, String job) {
        return runs.stream().filter(r -> r.runId().endsWith("/" + job)).findFirst().orElseThrow(
                () -> new AssertionError("no run for " + job + " among "
                        + runs.stream().map(RunRecord::runId).toList()));
    }

    private static JsonNode extra(List<RunRecord> runs, String job) throws Exception {
        return JSON.readTree(RunDetailsCodec.encode(run(runs, job).details()));
    }

    private static void edit(Path repo, String from, String to) throws Exception {
        Path f = repo.resolve("toyllm/model.py");
        String text = Files.readString(f, StandardCharsets.UTF_8);
        assertThat(text).contains(from);
        Files.writeString(f, text.replace(from, to), StandardCharsets.UTF_8);
    }
}
