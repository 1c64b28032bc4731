package io.isobench.cli;

import io.isobench.Arm;
import io.isobench.CountedRounds;
import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.Verdict;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prebuilt-artifact arms for real ({@code examples/node-llama-cpp/suite.yaml}): two npm releases of node-llama-cpp,
 * each fetched with {@code npm pack}, checked against the suite's sha256, installed into a prefix of its own (the A/A
 * arm included) and verified, serve the tiny GGUF model through tools/llm-server; isobench's load generator measures
 * five interleaved rounds and the greedy outputs of the two releases are compared. Asserted from the store.
 */
@Isolated("how many rounds count depends on the client's own timing check: nothing runs beside it (ItLocks)")
class NodeLlamaCppArtifactIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void twoReleasesAreInstalledVerifiedAndMeasured() throws Exception {
        SharedData.require("fixtures/tiny-llama.gguf");
        SharedData.requireService(Llama2cExampleIT.onPath("node") && Llama2cExampleIT.onPath("npm")
                && Llama2cExampleIT.onPath("setsid"), "node and npm (scripts/provision fills npm's cache with"
                + " node-llama-cpp 3.21.1 and 3.22.1)");
        Path db = dir.resolve("nlc.duckdb");
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db",
                db.toString(), "run", "examples/node-llama-cpp/suite.yaml", "--workdir", dir.resolve("work").toString());
        assertThat(code).as(err.toString()).isZero();
        try (Store store = Stores.open(db.toString())) {
            String session = store.sessions().get(0).sessionId();
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, session, false), runs::add);
            assertThat(runs).as(err.toString()).allSatisfy(r -> assertThat(r.failure()).isNull());

            JsonNode base = artifact(runs, "nlc-3.22.1/baseline/r0");
            JsonNode aa = artifact(runs, "nlc-3.22.1/baseline-aa/r0");
            JsonNode human = artifact(runs, "nlc-3.22.1/human/r0");
            assertThat(base.path("installed_version").asText()).isEqualTo("3.21.1");
            assertThat(aa.path("installed_version").asText()).isEqualTo("3.21.1");
            assertThat(human.path("installed_version").asText()).isEqualTo("3.22.1");
            assertThat(base.path("sha256").asText()).isEqualTo(base.path("sha256_expected").asText())
                    .isEqualTo("7a231d6bafa14142a1cbed9893d4ec5bc6041b2a5f5939a623accaab4203c11f");
            assertThat(human.path("sha256").asText())
                    .isEqualTo("a0d9dd80eacd2ab1cfe71aee57ac8a806487fd70b3d2a38fbec637752d9e5c5f");
            assertThat(human.path("check_output").asText()).isEqualTo("3.22.1");
            assertThat(aa.path("prefix").asText()).as("arms never share an install")
                    .isNotEqualTo(base.path("prefix").asText());
            assertThat(Path.of(aa.path("prefix").asText(), "node_modules/node-llama-cpp/package.json")).exists();
            assertThat(run(runs, "nlc-3.22.1/human/r0").envRef())
                    .isEqualTo("artifact:npm:node-llama-cpp@3.22.1+sha256:a0d9dd80eacd");

            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, session, StatsConfig.defaults()).tasks().get(0);
            assertThat(t.analysis().metric()).isEqualTo("tpot_ms_mean");
            // five rounds each, counted unless the client's own check excluded one (a 2-core machine shared with
            // llama.cpp can starve the load generator's loop: docs/loadgen.md "Client self-check"); two valid rounds
            // still give the arm a summary, and the verdict rules take it from there (INCONCLUSIVE with fewer)
            for (Arm arm : List.of(Arm.BASELINE, Arm.BASELINE_AA, Arm.HUMAN)) {
                CountedRounds.assertCounted(t.analysis(), arm, 5, 2);
            }
            assertThat(t.analysis().humanVsBaseline().verdict()).isNotIn(Verdict.FAILED, Verdict.INCORRECT);
            assertThat(t.correctness(Arm.BASELINE).outcome()).isEqualTo("REFERENCE");
            assertThat(t.correctness(Arm.HUMAN).outcome()).isIn("MATCH", "CHANGES_OUTPUTS");
            assertThat(t.calibration()).containsKey("floor");
        }
    }

    private static JsonNode artifact(List<RunRecord> runs, String job) throws Exception {
        return JSON.readTree(RunDetailsCodec.encode(run(runs, job).details())).path("artifact");
    }

    private static RunRecord run(List<RunRecord> runs, String job) {
        return runs.stream().filter(r -> r.runId().endsWith("/" + job)).findFirst().orElseThrow(
                () -> new AssertionError("no run for " + job));
    }

}
