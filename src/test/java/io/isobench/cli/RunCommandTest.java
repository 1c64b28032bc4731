package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.analysis.ClockRule;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.AgentSpec;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RunCommandTest {

    @TempDir
    Path dir;

    private record Result(int code, String out, String err) {
    }

    private Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }

    private Path suite(String repoLine, String extra) throws Exception {
        Path s = dir.resolve("suite.yaml");
        Files.writeString(s, String.join("\n",
                "engine: {" + repoLine + ", name: toy}",
                "tasks:",
                "  - id: lat",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --num-iters 3",
                extra,
                "run: {rounds: 2, seed: 3}",
                ""));
        return s;
    }

    @Test
    void dryRunPrintsThePlanAsJsonAndText() throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Path s = suite("repo: ./repo", "");
        Result json = cli("run", s.toString(), "--dry-run", "--format", "json", "--workdir", dir.resolve("w").toString());
        assertThat(json.code()).as(json.err()).isZero();
        JsonNode n = new ObjectMapper().readTree(json.out());
        assertThat(n.path("rounds").asInt()).isEqualTo(2);
        assertThat(n.path("seed").asInt()).isEqualTo(3);
        // checks: baseline, its repeat, human; then 2 rounds of baseline, baseline-aa, human
        assertThat(n.path("jobs").size()).isEqualTo(3 + 3 * 2);
        assertThat(n.path("jobs").get(3).path("argv").get(0).asText()).isEqualTo("python3");
        assertThat(n.path("aa").asBoolean()).isTrue();
        assertThat(n.path("order").size()).isEqualTo(2);
        Result noAa = cli("run", s.toString(), "--dry-run", "--format", "json", "--no-aa", "--workdir",
                dir.resolve("w").toString());
        assertThat(new ObjectMapper().readTree(noAa.out()).path("jobs").size()).isEqualTo(3 + 2 * 2);
        Result text = cli("run", s.toString(), "--dry-run", "--workdir", dir.resolve("w").toString());
        assertThat(text.out()).contains("lat/baseline/r0").contains("lat/baseline-aa/r1")
                .contains("argv python3 benchmarks/benchmark_latency.py").contains("  round 2: lat: ");
        assertThat(Files.exists(dir.resolve("isobench.duckdb"))).isFalse();
    }

    @Test
    void attemptsOfPlansTheStoredAttemptsAsAgentArmsAndLeavesTheSuiteAlone() throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Path s = suite("repo: ./repo", "").getParent().resolve("suite.yaml");
        Files.writeString(s, Files.readString(s).replace("id: lat", "id: tpot") + "agents:\n  - name: a@1\n"
                + "    patches: {tpot: old.diff}\n");
        Files.writeString(dir.resolve("old.diff"), io.isobench.AttemptSessions.patch("old"));
        byte[] before = Files.readAllBytes(s);
        String db = dir.resolve("a.duckdb").toString();
        try (Store store = Stores.open(db)) {
            io.isobench.AttemptSessions.attempts(store, Instant.parse("2026-01-01T00:00:00Z"));
            store.putSession(SessionRecord.builder(io.isobench.AttemptSessions.AGENTS_SESSION)
                    .suiteJson("{\"agent\":\"a\",\"attempts\":3}").status("agents-complete").build());
        }
        Result plan = cli("run", s.toString(), "--db", db, "--attempts-of", io.isobench.AttemptSessions.AGENTS_SESSION,
                "--dry-run", "--format", "json", "--no-aa", "--workdir", dir.resolve("w").toString());
        assertThat(plan.code()).as(plan.err()).isZero();
        List<String> arms = new ArrayList<>();
        new ObjectMapper().readTree(plan.out()).path("jobs").forEach(j -> {
            if (!arms.contains(j.path("arm").asText())) {
                arms.add(j.path("arm").asText());
            }
        });
        // a@3 left no patch (EMPTY_PATCH): no arm; the suite's own a@1 entry is replaced by the stored attempt
        assertThat(arms).containsExactly("baseline", "human", "agent:a@1", "agent:a@2", "agent:b@1");
        Path patch = dir.resolve("w/attempts").resolve(io.isobench.AttemptSessions.AGENTS_SESSION)
                .resolve("a@2/tpot.diff");
        assertThat(Files.readString(patch)).isEqualTo(io.isobench.AttemptSessions.patch("a@2"));
        assertThat(Files.readAllBytes(s)).as("the suite file is not modified").isEqualTo(before);

        Result unknown = cli("run", s.toString(), "--db", db, "--attempts-of", "agents-nope", "--dry-run",
                "--workdir", dir.resolve("w").toString());
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err().strip()).doesNotContain("\n").startsWith("isobench: --attempts-of agents-nope: no"
                + " session 'agents-nope' in").contains("(fix: the session id `isobench agents run` printed");
        assertThat(Files.readAllBytes(s)).isEqualTo(before);
    }

    @Test
    void agentsExportSuiteWritesTheStoredAttemptsIntoTheSuiteOnlyWhenAsked() throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Path s = suite("repo: ./repo", "");
        Files.writeString(s, Files.readString(s).replace("id: lat", "id: tpot"));
        String db = dir.resolve("e.duckdb").toString();
        try (Store store = Stores.open(db)) {
            io.isobench.AttemptSessions.attempts(store, Instant.parse("2026-01-01T00:00:00Z"));
        }
        Result r = cli("--db", db, "agents", "export-suite", s.toString(), "--session",
                io.isobench.AttemptSessions.AGENTS_SESSION);
        assertThat(r.code()).as(r.err()).isZero();
        Suite after = SuiteLoader.load(s);
        // every attempt number gets an entry; a@3 left no patch (EMPTY_PATCH): no arm at tpot
        assertThat(after.agents()).extracting(AgentSpec::name)
                .containsExactly("a@1", "a@2", "a@3", "b@1");
        assertThat(after.agents().get(2).patches()).isEmpty();
        assertThat(Files.readString(after.agents().get(1).patches().get("tpot")))
                .isEqualTo(io.isobench.AttemptSessions.patch("a@2"));
        assertThat(dir.resolve("patches/a@2/tpot.diff")).exists();

        Result unknown = cli("--db", db, "agents", "export-suite", s.toString(), "--session", "agents-nope");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("--session agents-nope: no session 'agents-nope'");
    }

    @Test
    void theDryRunOfASuiteWithPortDigitsShowsItsFlagsAsWritten() throws Exception {
        // the server's port is a slot, not a number standing in for it: 65432 (the old stand-in) stays 65432
        Files.createDirectories(dir.resolve("repo"));
        Path s = dir.resolve("suite.yaml");
        Files.writeString(s, String.join("\n",
                "engine: {repo: ./repo, name: vllm}",
                "tasks:",
                "  - id: serve",
                "    human_commit: h1",
                "    model: facebook/opt-125m",
                "    perf_command: python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                        + " --max-num-batched-tokens 65432 --seed 1065432 --num-prompts 65432 --dataset-name random",
                "run: {rounds: 1, seed: 3}",
                ""));
        Result text = cli("run", s.toString(), "--dry-run", "--workdir", dir.resolve("w").toString());
        assertThat(text.code()).as(text.err()).isZero();
        assertThat(text.out()).contains("argv python -m vllm.entrypoints.openai.api_server --model facebook/opt-125m"
                + " --max-num-batched-tokens 65432 --host 127.0.0.1 --port {port}\n")
                .contains("client --model facebook/opt-125m --seed 1065432 --num-prompts 65432 --dataset-name random\n")
                .doesNotContain("10{port}");
        Result slurm = cli("run", s.toString(), "--dry-run", "--format", "json", "--executor", "slurm", "--workdir",
                dir.resolve("w").toString());
        assertThat(slurm.code()).as(slurm.err()).isZero();
        JsonNode job = new ObjectMapper().readTree(slurm.out()).path("jobs").get(0);
        assertThat(job.path("sbatch").asText()).contains("--max-num-batched-tokens 65432 --host 127.0.0.1 --port"
                + " \"$port\" &\n");
    }

    @Test
    void aBadParallelValueIsOneLineBeforeAnythingRuns() throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Path s = suite("repo: ./repo", "");
        for (String bad : List.of("0", "-2", "many")) {
            Result r = cli("run", s.toString(), "--parallel", bad, "--db", dir.resolve("p.duckdb").toString(),
                    "--workdir", dir.resolve("w").toString());
            assertThat(r.code()).as(r.err()).isEqualTo(2);
            assertThat(r.err().strip()).isEqualTo("isobench: --parallel " + bad + ": use a number of jobs >= 1 or auto");
        }
        assertThat(Files.exists(dir.resolve("p.duckdb"))).isFalse();
        assertThat(Files.exists(dir.resolve("w"))).isFalse();
    }

    @Test
    void badSuiteNamesFileLineAndField() throws Exception {
        Path s = dir.resolve("bad.yaml");
        Files.writeString(s, "engine: {repo: ./nowhere, name: toy}\ntasks: []\n");
        Result r = cli("run", s.toString(), "--dry-run");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("bad.yaml:1").contains("engine.repo");
    }

    @Test
    void aRepoThatIsNotGitIsClassifiedAndTheLintFailureIsReported() throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Path s = suite("repo: ./repo", String.join("\n",
                "  - id: broken",
                "    human_commit: task-x",
                "    mode: throughput",
                "    perf_command: python3 benchmarks/benchmark_throughput.py --input-len BS",
                ""));
        String db = dir.resolve("db.duckdb").toString();
        Result r = cli("--db", db, "run", s.toString(), "--workdir", dir.resolve("w").toString());
        assertThat(r.code()).as(r.err()).isEqualTo(Main.NOTHING_MEASURED);
        assertThat(r.err()).contains("task broken is not run").contains("not a git repository");
        assertThat(r.out()).contains("not run: broken");
        try (Store store = Stores.open(db)) {
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(RunFilter.all(), runs::add);
            assertThat(runs).hasSize(9); // 3 checks + 2 rounds x 3 arms
            assertThat(runs).allSatisfy(x -> assertThat(x.failure().category()).isEqualTo("ENV_MISSING"));
        }
        Result report = cli("--db", db, "report");
        assertThat(report.out()).contains("## Native session").contains("Tasks not run").contains("broken");
    }

    /** The clock rule is stored with the session: {@code --exclude-on-clock-mismatch} over the suite's default. */
    @Test
    void theClockRuleIsStoredWithTheSession() throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Path s = suite("repo: ./repo", "");
        String db = dir.resolve("clock.duckdb").toString();
        cli("--db", db, "run", s.toString(), "--exclude-on-clock-mismatch", "--session", "on", "--workdir",
                dir.resolve("w").toString());
        cli("--db", db, "run", s.toString(), "--session", "off", "--workdir", dir.resolve("w").toString());
        try (Store store = Stores.open(db)) {
            com.fasterxml.jackson.databind.JsonNode on = new ObjectMapper().readTree(
                    store.session("on").orElseThrow().statsConfigJson()).path("clock_rule");
            assertThat(on.path("exclude_on_clock_mismatch").asBoolean()).isTrue();
            assertThat(on.path("clock_mismatch_sm_pct").asDouble()).isEqualTo(3.0);
            assertThat(on.path("clock_mismatch_throttle_share").asDouble()).isEqualTo(0.25);
            assertThat(ClockRule.ofSettings(store.session("off").orElseThrow().statsConfigJson()))
                    .isEqualTo(ClockRule.defaults());
        }
    }
}
