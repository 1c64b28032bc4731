package io.isobench.cli;

import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench run} with a build step and fix recipes on the real toy engine: the build runs per arm, its log is an
 * artifact, recipes are recorded on every run, a recipe that breaks only the agent's build is an agent outcome
 * (BUILD_FAILED), and the report and the HF export show it.
 */
class RunBuildRecipesTest {

    @TempDir
    Path dir;

    @Test
    void buildAndRecipesRunPerArmAndABrokenAgentBuildIsAnAgentOutcome() throws Exception {
        io.isobench.SharedData.requireSandbox();
        Path toy = Path.of("examples/toy-engine").toAbsolutePath();
        Path repo = dir.resolve("repo");
        io.isobench.ToyRepo.build(repo);
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine:",
                "  repo: ./repo",
                "  name: toy",
                "  build: [python3, -m, compileall, -q, .]",
                "tasks:",
                "  - id: lat",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model}",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --num-iters 3 --num-iters-warmup 1",
                "    correctness: {prompts: 2, max_tokens: 4}",
                "agents:",
                "  - name: alpha",
                "    patches: {lat: " + toy.resolve("patches/agents/alpha/latency.patch") + "}",
                "recipes:",
                "  - name: tag",
                "    env: {ISOBENCH_TEST_TAG: recipes}",
                "  - name: break-agent",
                "    arms: [agent]",
                "    replace_in_file: {path: toyllm/config.py, from: 'MAX_MODEL_LEN = 4096', to: 'MAX_MODEL_LEN = = 4096'}",
                "run: {rounds: 1, seed: 1, warmup_requests: 0, timeouts: {server_start_s: 20, run_s: 60, build_s: 60}}",
                ""));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "run", suite.toString(),
                "--dry-run", "--workdir", dir.resolve("w").toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("recipes tag, break-agent").contains("build python3 -m compileall -q .");

        String db = dir.resolve("db.duckdb").toString();
        out = new StringWriter();
        err = new StringWriter();
        code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db, "run", suite.toString(),
                "--workdir", dir.resolve("w").toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(err.toString()).contains("env lat baseline: at ").contains("+ recipes tag, built in ")
                .contains("env lat agent:alpha: BUILD_FAILED — build exited with 1: python3 -m compileall -q .");
        ObjectMapper json = new ObjectMapper();
        try (Store store = Stores.open(db)) {
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, null, false), runs::add);
            // checks: baseline, its repeat, human, alpha; one round of baseline, baseline-aa, human, alpha
            assertThat(runs).hasSize(8);
            for (RunRecord r : runs) {
                JsonNode x = json.readTree(RunDetailsCodec.encode(r.details()));
                JsonNode build = x.path("build");
                if (r.arm().label().equals("agent:alpha")) {
                    assertThat(r.failure().category()).isEqualTo("BUILD_FAILED");
                    assertThat(build.path("status").asText()).isEqualTo("failed");
                    assertThat(x.path("recipes")).extracting(n -> n.path("name").asText()).containsExactly("tag", "break-agent");
                    String log = new String(store.artifact(build.path("log_sha256").asText()).orElseThrow(),
                            StandardCharsets.UTF_8);
                    assertThat(log).contains("config.py").contains("SyntaxError");
                } else {
                    assertThat(r.status()).as(r.runId() + " " + r.failure()).isEqualTo(RunRecord.RunStatus.SUCCESS);
                    assertThat(build.path("status").asText()).isEqualTo("ok");
                    assertThat(build.path("exit_code").asInt()).isZero();
                    assertThat(store.artifact(build.path("log_sha256").asText())).isPresent();
                    assertThat(x.path("recipes")).hasSize(1);
                    assertThat(x.path("recipes").get(0).path("detail").asText()).isEqualTo("set ISOBENCH_TEST_TAG");
                }
            }
        }
        StringWriter report = new StringWriter();
        Main.run(new PrintWriter(report, true), new PrintWriter(new StringWriter(), true), "--db", db, "report");
        assertThat(report.toString()).contains("### Environments (build step and fix recipes)")
                .contains("| lat | agent:alpha | failed in ")
                .contains("break-agent (replace_in_file): ok — replaced 1 occurrence in toyllm/config.py")
                .contains("`BUILD_FAILED`");
        out = new StringWriter();
        code = Main.run(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), "--db", db, "export", "hf",
                "--out", dir.resolve("hf").toString());
        assertThat(code).isZero();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT isobench_failure_agent, isobench_build, isobench_status_human,"
                     + " isobench_agent_verdict, isobench_recipes, isobench_correctness_human FROM read_parquet('"
                     + dir.resolve("hf/data/train-00000-of-00001.parquet") + "')")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("BUILD_FAILED");
            assertThat(rs.getString(2)).isEqualTo("baseline=ok; human=ok; agent=failed");
            assertThat(rs.getString(3)).isEqualTo("success");
            assertThat(rs.getString(4)).isEqualTo("failed");
            assertThat(rs.getString(5)).isEqualTo("tag (env) [baseline, human, agent]; break-agent (replace_in_file) [agent]");
            assertThat(rs.getString(6)).isEqualTo("match");
            assertThat(rs.next()).isFalse();
        }
    }
}
