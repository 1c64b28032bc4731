package io.isobench.cli;

import io.isobench.Arm;
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
 * Bad input for the correctness gates, end to end on the toy engine: an agent whose server rejects the probe set,
 * one whose server ignores temperature 0 (no greedy decoding), and one whose accuracy command fails. Each arm gets
 * its specific reason and is marked incorrect, never silently passed. The agent patches are real {@code git diff}s
 * of the toy engine, made here.
 */
class CorrectnessBadInputIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void rejectedProbesMissingGreedyAndAFailingAccuracyCommandGetSpecificReasons() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git and setsid (util-linux) for the toy engine");
        Path repo = dir.resolve("repo");
        ToyRepo.build(repo);
        Path patches = Files.createDirectories(dir.resolve("patches"));
        patch(repo, patches.resolve("rejecter.patch"), "toyllm/entrypoints/api_server.py",
                "max_tokens=int(body.get(\"max_tokens\") or 16),",
                "max_tokens=min(16, int(body.get(\"max_tokens\") or 16)) if int(body.get(\"max_tokens\") or 16) <= 16 else -1,");
        patch(repo, patches.resolve("sampler.patch"), "toyllm/entrypoints/api_server.py",
                "temperature=float(body.get(\"temperature\", 1.0)),\n                top_p=float(body.get(\"top_p\", 1.0)),\n"
                        + "                seed=body.get(\"seed\"),",
                "temperature=float(body.get(\"temperature\", 1.0)) or 1.0,\n                top_p=float(body.get(\"top_p\", 1.0)),\n"
                        + "                seed=None,");
        ToyRepo.run(repo, "git", "checkout", "-q", "baseline");
        Files.writeString(repo.resolve("toyllm/ACC_FAIL"), "the accuracy eval fails in this arm\n");
        ToyRepo.run(repo, "git", "add", "-N", "toyllm/ACC_FAIL");
        Files.writeString(patches.resolve("accfail.patch"), ToyRepo.run(repo, "git", "diff"));
        ToyRepo.run(repo, "git", "reset", "-q");
        Files.delete(repo.resolve("toyllm/ACC_FAIL"));
        Files.writeString(dir.resolve("acc.py"), String.join("\n",
                "import os, sys",
                "if os.path.exists('toyllm/ACC_FAIL'):",
                "    print('RuntimeError: the eval crashed', file=sys.stderr)",
                "    sys.exit(2)",
                "print('accuracy: 0.75')",
                ""));
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: lat",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model}",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --batch-size 1 --input-len 8"
                        + " --output-len 4 --num-iters 3 --num-iters-warmup 1 --seed 0",
                "    correctness: {prompts: 3, max_tokens: 24}",
                "    accuracy: {command: [python3, \"{suite_dir}/acc.py\"], score_regex: 'accuracy: ([0-9.]+)'}",
                // the probes are under test: the review (which rejects the rejecter's capped max_tokens before its
                // patch is applied) only warns, so every arm reaches its correctness check
                "review: {fail_on: []}",
                "agents:",
                "  - {name: rejecter, patches: {lat: patches/rejecter.patch}}",
                "  - {name: sampler, patches: {lat: patches/sampler.patch}}",
                "  - {name: accfail, patches: {lat: patches/accfail.patch}}",
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
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, session, StatsConfig.defaults()).tasks().get(0);
            assertThat(t.correctness(Arm.BASELINE).outcome()).isEqualTo("REFERENCE");
            assertThat(t.correctness(Arm.BASELINE).accuracyOutcome()).isEqualTo("REFERENCE");
            assertThat(t.correctness(Arm.BASELINE).accuracyScore()).isEqualTo(0.75);
            assertThat(t.correctness(Arm.HUMAN).outcome()).isEqualTo("MATCH");

            SessionAnalysis.ArmCorrectness rej = t.correctness(Arm.ofStored("agent:rejecter"));
            assertThat(rej.outcome()).isEqualTo("PROBE_REJECTED");
            assertThat(rej.reason()).contains("rejected probe 0").contains("HTTP 400").contains("max_tokens (-1)");
            assertThat(rej.gateFailures()).anyMatch(g -> g.startsWith("PROBE_REJECTED"));

            SessionAnalysis.ArmCorrectness smp = t.correctness(Arm.ofStored("agent:sampler"));
            assertThat(smp.outcome()).isEqualTo("NO_GREEDY_SUPPORT");
            assertThat(smp.reason()).contains("two identical temperature-0 requests");

            SessionAnalysis.ArmCorrectness acc = t.correctness(Arm.ofStored("agent:accfail"));
            assertThat(acc.outcome()).isEqualTo("MATCH");
            assertThat(acc.accuracyOutcome()).isEqualTo("ACCURACY_FAILED");
            assertThat(acc.accuracyReason()).contains("exited with code 2");
            assertThat(t.incorrect()).containsExactlyInAnyOrder(Arm.ofStored("agent:rejecter"),
                    Arm.ofStored("agent:sampler"), Arm.ofStored("agent:accfail"));

            // the failing accuracy command is a stored run with its reason, not a silent pass
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, session, false), runs::add);
            RunRecord accRun = runs.stream().filter(r -> r.runId().endsWith("lat/agent:accfail/accuracy")).findFirst()
                    .orElseThrow();
            assertThat(accRun.pipeline().label()).isEqualTo("native-accuracy");
            assertThat(accRun.status()).isEqualTo(RunRecord.RunStatus.FAILED);
            assertThat(accRun.failure().detail()).startsWith("ACCURACY_FAILED");
            RunRecord check = runs.stream().filter(r -> r.runId().endsWith("lat/agent:rejecter/check")).findFirst()
                    .orElseThrow();
            assertThat(check.failure().detail()).startsWith("PROBE_REJECTED");
        }
    }

    private static void patch(Path repo, Path out, String file, String from, String to) throws Exception {
        ToyRepo.run(repo, "git", "checkout", "-q", "baseline");
        Path f = repo.resolve(file);
        String text = Files.readString(f, StandardCharsets.UTF_8);
        assertThat(text).as(file).contains(from);
        Files.writeString(f, text.replace(from, to), StandardCharsets.UTF_8);
        Files.writeString(out, ToyRepo.run(repo, "git", "diff"));
        ToyRepo.run(repo, "git", "checkout", "-q", "--", file);
    }
}
