package io.isobench.cli;

import io.isobench.Arm;
import io.isobench.analysis.Stopping;
import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.ReplayValidity;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.Verdict;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The llama2.c example end to end, as a user runs it ({@code isobench run examples/llama2c/suite.yaml}): the real
 * engine cloned from {@code ../shared/engines/llama2.c.bundle}, a checkpoint generated at run time, every arm built
 * from its worktree with {@code make run}, adaptive interleaved rounds with the A/A arm. Asserted from the store: the
 * human of d421a95 (PR #276) is {@code better} and its replay {@code valid}; the README-only commit, whose binary
 * is byte-identical to its parent's (asserted from the two worktrees' builds), is neither better nor worse; the
 * correct alternative patch passes the gate, the fast-but-wrong one is {@code incorrect}, the stale one
 * {@code PATCH_FAILED}; the prompt-encoder commit is better on CPU time; builds and declared metrics are recorded.
 * The Markdown report is left in {@code target/llama2c-report.md}.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class Llama2cExampleIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void realCommitsGetTheirDesignedVerdicts() throws Exception {
        SharedData.require("engines/llama2.c.bundle"); // the llama2.c git bundle the example clones
        SharedData.requireService(onPath("gcc") && onPath("make") && onPath("git") && onPath("python3")
                && onPath("setsid"), "gcc, make, git, python3 and setsid (util-linux) for the llama2.c example");
        Path db = dir.resolve("llama2c.duckdb");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db.toString(), "run",
                "examples/llama2c/suite.yaml", "--workdir", dir.resolve("work").toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(Main.run(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), "--db",
                db.toString(), "report", "--out", Path.of("target/llama2c-report.md").toAbsolutePath().toString()))
                .isZero();

        try (Store store = Stores.open(db.toString())) {
            String session = store.sessions().get(0).sessionId();
            SessionAnalysis a = SessionAnalysis.of(store, session, StatsConfig.defaults());
            assertThat(a.tasks()).extracting(SessionAnalysis.TaskResult::taskId)
                    .containsExactly("topp-filter", "readme-null", "vocab-bsearch");

            SessionAnalysis.TaskResult topp = task(a, "topp-filter");
            assertThat(topp.analysis().metric()).isEqualTo("command_cpu_s");
            assertThat(topp.analysis().better()).isEqualTo(Better.LOWER);
            assertThat(topp.unit()).isEqualTo("s");
            // adaptive rounds (the example's run.rounds): the 3-4x speedup is decided at an early look, and the verdicts
            // read the rounds up to it
            Stopping stop = topp.analysis().stopping();
            assertThat(stop.adaptive()).isTrue();
            assertThat(stop.lookRounds()).as(stop.describe()).isBetween(3, 5);
            assertThat(topp.analysis().summaries().get(Arm.BASELINE).n()).isEqualTo(stop.lookRounds());
            assertThat(topp.analysis().summaries().get(Arm.BASELINE_AA).n()).isEqualTo(stop.lookRounds());
            assertThat(topp.analysis().humanVsBaseline().verdict()).as(topp.analysis().humanVsBaseline().reason())
                    .isEqualTo(Verdict.BETTER);
            assertThat(topp.analysis().replayValidity()).isEqualTo(ReplayValidity.VALID);
            assertThat(topp.correctness(Arm.HUMAN).outcome()).isEqualTo("MATCH");
            assertThat(agent(topp, "agent:heap_select").vsBaseline().verdict()).isEqualTo(Verdict.BETTER);
            assertThat(topp.correctness(Arm.ofStored("agent:heap_select")).outcome()).isEqualTo("MATCH");
            assertThat(agent(topp, "agent:skip_sort").vsBaseline().verdict()).isEqualTo(Verdict.INCORRECT);
            assertThat(topp.correctness(Arm.ofStored("agent:skip_sort")).outcome()).isEqualTo("OUTPUT_MISMATCH");
            assertThat(topp.incorrect()).containsExactly(Arm.ofStored("agent:skip_sort"));
            assertThat(agent(topp, "agent:stale_base").vsBaseline().verdict()).isEqualTo(Verdict.FAILED);
            assertThat(topp.outcomes().get(Arm.ofStored("agent:stale_base"))).containsOnlyKeys("PATCH_FAILED");
            assertThat(topp.findings()).as("a generic engine has no default source tree to stay in").isEmpty();

            // the null's premise: the two arms built the same binary, so better or worse would be a false verdict
            Path envs = dir.resolve("work").resolve("envs").resolve("readme-null");
            assertThat(sha256(envs.resolve("human").resolve("run"))).as("the README-only commit's binary")
                    .isEqualTo(sha256(envs.resolve("baseline").resolve("run")));
            SessionAnalysis.TaskResult nul = task(a, "readme-null");
            assertThat(nul.analysis().humanVsBaseline().verdict()).as(nul.analysis().humanVsBaseline().reason())
                    .isIn(Verdict.EQUIVALENT, Verdict.INCONCLUSIVE);
            assertThat(nul.analysis().replayValidity()).isEqualTo(ReplayValidity.LOW_SIGNAL);

            SessionAnalysis.TaskResult enc = task(a, "vocab-bsearch");
            assertThat(enc.analysis().humanVsBaseline().verdict()).as(enc.analysis().humanVsBaseline().reason())
                    .isEqualTo(Verdict.BETTER);

            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, session, true), runs::add);
            RunRecord r0 = run(runs, "topp-filter/human/r0");
            assertThat(r0.primaryMetric()).isEqualTo("command_cpu_s");
            assertThat(r0.metrics()).extracting(Metric::name).contains("command_cpu_s", "command_wall_s", "tok_s");
            Metric tok = r0.metrics().stream().filter(m -> m.name().equals("tok_s")).findFirst().orElseThrow();
            assertThat(tok.unit()).isEqualTo("tok/s");
            assertThat(tok.better()).isEqualTo(Better.HIGHER);
            assertThat(tok.value()).isPositive();
            JsonNode extra = JSON.readTree(RunDetailsCodec.encode(r0.details()));
            assertThat(extra.path("build").path("status").asText()).isEqualTo("ok");
            assertThat(extra.path("build").path("argv").toString()).isEqualTo("[\"make\",\"run\"]");
            assertThat(extra.path("verified_commit").asText()).startsWith("d421a95");
            JsonNode lint = JSON.readTree(RunDetailsCodec.encode(run(runs, "topp-filter/baseline/check").details()));
            assertThat(lint.path("correctness").path("thresholds").path("probe").asText()).isEqualTo("command");
            assertThat(run(runs, "topp-filter/agent:stale_base/check").failure().category()).isEqualTo("PATCH_FAILED");
        }
    }

    private static String sha256(Path file) throws IOException, NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static SessionAnalysis.TaskResult task(SessionAnalysis a, String id) {
        return a.tasks().stream().filter(t -> t.taskId().equals(id)).findFirst().orElseThrow();
    }

    private static AgentOutcome agent(SessionAnalysis.TaskResult t, String arm) {
        return t.analysis().agents().stream().filter(o -> o.agent().equals(arm)).findFirst().orElseThrow(
                () -> new AssertionError("no agent " + arm + " in " + t.analysis().agents()));
    }

    private static RunRecord run(List<RunRecord> runs, String job) {
        return runs.stream().filter(r -> r.runId().endsWith("/" + job)).findFirst().orElseThrow(
                () -> new AssertionError("no run for " + job));
    }

    static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }
}
