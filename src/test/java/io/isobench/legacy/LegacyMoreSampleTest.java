package io.isobench.legacy;

import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.SharedData;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each file of the second sample ({@code ../shared/isobench-data-more}) is read as its README describes: one test per
 * README entry. The sample is imported once (read-only) into a store in a temporary folder.
 */
class LegacyMoreSampleTest {

    private static final String V2 = "archive/results/omniperf_results_v2/";
    private static final String FULL = "archive/results/omniperf_results_full/vllm/";

    @TempDir
    static Path dir;
    private static Store store;
    private static ImportSummary summary;
    private static final List<RunRecord> runs = new ArrayList<>();

    @BeforeAll
    static void importSample() {
        Path more = SharedData.require("isobench-data-more");
        store = TestStores.open(dir);
        summary = new LegacyImporter(store, null, null).importTree(more);
        store.forEachRun(new RunFilter(null, null, null, true), runs::add);
    }

    @AfterAll
    static void close() {
        if (store != null) {
            store.close();
        }
    }

    private static List<RunRecord> of(String pathPart) {
        return runs.stream().filter(r -> extra(r).path("path").asText("").contains(pathPart)).toList();
    }

    private static RunRecord arm(String pathPart, String arm) {
        return of(pathPart).stream().filter(r -> r.arm().label().split(":")[0].equals(arm)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + arm + " run from " + pathPart));
    }

    private static JsonNode extra(RunRecord r) {
        try {
            return LenientJson.MAPPER.readTree(RunDetailsCodec.encode(r.details()));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static ImportSummary.FileOutcome file(String suffix) {
        return summary.files().stream().filter(f -> f.path().endsWith(suffix)).findFirst()
                .orElseThrow(() -> new AssertionError("no file ending " + suffix));
    }

    private static String artifact(String sha) {
        return new String(store.artifact(sha).orElseThrow(), StandardCharsets.UTF_8);
    }

    private static void failed(RunRecord r, String category) {
        assertThat(r.status()).as(r.arm() + " status").isEqualTo(RunStatus.FAILED);
        assertThat(r.failure()).isNotNull();
        assertThat(r.failure().category()).as(r.failure().detail()).isEqualTo(category);
    }

    private static void notRun(RunRecord r, String reasonPart) {
        assertThat(r.status()).as(r.arm() + " status").isEqualTo(RunStatus.NOT_RUN);
        assertThat(r.failure()).isNull();
        assertThat(extra(r).path("not_run_reason").asText()).contains(reasonPart);
    }

    @Test
    void everyFileIsReadNoneRefusedOrSkipped() {
        assertThat(summary.files()).hasSize(17);
        assertThat(summary.files()).filteredOn(f -> f.path().startsWith("archive/")).allSatisfy(f ->
                assertThat(f.outcome()).as(f.path() + ": " + f.reason()).isEqualTo(ImportSummary.Outcome.IMPORTED));
    }

    @Test
    void sglangMicroBenchmarkSuccessWithItsLogs() {
        String p = V2 + "sglang/1bf1cf19/";
        assertThat(file(p + "benchmark_result.json").formatId()).isEqualTo("R11");
        RunRecord base = arm(p, "baseline");
        RunRecord agent = arm(p, "agent");
        assertThat(base.status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(agent.status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(base.kind()).isEqualTo(RunRecord.RunKind.MICRO);
        assertThat(base.primaryValue()).isEqualTo(62.12889760026883);
        assertThat(agent.primaryValue()).isEqualTo(62.16318350052461);
        assertThat(agent.arm().label()).isEqualTo("agent:claude_code");
        assertThat(extra(base).path("engine").asText()).isEqualTo("sglang");
        assertThat(of(p)).hasSize(2).allSatisfy(r -> assertThat(r.failure()).isNull());
        // the logs beside it are read as part of the result, not "not a result file"
        for (String log : List.of("stdout.txt", "stderr.txt")) {
            ImportSummary.FileOutcome f = file(p + log);
            assertThat(f.outcome()).isEqualTo(ImportSummary.Outcome.IMPORTED);
            assertThat(f.formatId()).isEqualTo("R11");
            assertThat(f.reason()).contains("beside benchmark_result.json");
            assertThat(extra(base).path("sidecar_artifacts").has(log)).isTrue();
        }
        assertThat(artifact(extra(base).path("sidecar_artifacts").path("stdout.txt").asText())).contains("\"avg_ms\"");
    }

    @Test
    void sglangBaselineFailedChargesTheBaselineOnly() {
        String p = V2 + "sglang/2f427491/";
        RunRecord base = arm(p, "baseline");
        failed(base, "DEPENDENCY_CONFLICT");
        assertThat(base.failure().evidence()).contains("huggingface-hub>=0.34.0,<1.0 is required");
        notRun(arm(p, "agent"), "the baseline arm failed first (status baseline_failed");
        assertThat(file(p + "stdout.txt").outcome()).isEqualTo(ImportSummary.Outcome.IMPORTED);
    }

    @Test
    void vllmMicroBenchmarkKeepsTheExceptionAtTheEndOfTheTraceback() {
        String p = V2 + "vllm/e493e485/";
        RunRecord base = arm(p, "baseline");
        failed(base, "DEPENDENCY_CONFLICT");
        assertThat(base.failure().evidence())
                .contains("ValueError: 'aimv2' is already used by a Transformers config, pick another name.");
        notRun(arm(p, "agent"), "the baseline arm failed first");
        // stored whole: the evidence artifact holds the error message, the stdout field and the whole stderr
        String whole = artifact(extra(base).path("evidence_artifact").asText());
        assertThat(whole).contains("Baseline test failed to produce JSON output")
                .contains("Traceback (most recent call last):").contains("pick another name.")
                .contains("=== stderr.txt ===");
    }

    @Test
    void nativeRunnerCauseComesFromTheSidecarStderr() {
        String p = FULL + "61b8cea3/";
        assertThat(file(p + "benchmark_result.json").formatId()).isEqualTo("R12");
        RunRecord base = arm(p, "baseline");
        assertThat(base.pipeline().label()).isEqualTo("native_runner");
        failed(base, "BAD_PERF_COMMAND");
        assertThat(base.failure().evidence()).contains("ValueError: dataset_path must be provided for loading data.");
        notRun(arm(p, "agent"), "the baseline arm failed first");
    }

    @Test
    void nativeRunnerTimeoutFromTheSidecarStderr() {
        RunRecord base = arm(FULL + "a3223766/", "baseline");
        failed(base, "TIMEOUT");
        assertThat(base.failure().evidence()).contains("Benchmark timed out");
        notRun(arm(FULL + "a3223766/", "agent"), "the baseline arm failed first");
    }

    @Test
    void noWheelForHumanChargesTheHumanArmOnly() {
        String p = FULL + "0d243f2a/";
        RunRecord human = arm(p, "human");
        failed(human, "ENV_MISSING");
        assertThat(human.failure().evidence()).contains("No wheel for human 0d243f2a");
        notRun(arm(p, "baseline"), "the human arm failed first (status no_wheel");
        notRun(arm(p, "agent"), "the human arm failed first (status no_wheel");
    }

    @Test
    void wheelInstallFailedChargesTheBaseline() {
        String p = "archive/results/omniperf_results_3way/vllm/22dd9c27/";
        failed(arm(p, "baseline"), "ENV_MISSING");
        notRun(arm(p, "agent"), "the baseline arm failed first (status wheel_install_failed");
        assertThat(of(p)).noneMatch(r -> r.arm().label().equals("human"));
    }

    @Test
    void traeSeparateBaselineIsAPerVersionResult() {
        String p = "omniperf_results_3way_trae_gpt5/baseline_benchmark_results/21d93c14_baseline_result.json";
        assertThat(file(p).formatId()).isEqualTo("R3");
        RunRecord base = arm(p, "baseline");
        assertThat(base.agent()).isEqualTo("trae_gpt5");
        assertThat(base.pipeline().label()).isEqualTo("run_2026-01-18/19");
        assertThat(base.kind()).isEqualTo(RunRecord.RunKind.LEGACY);
        failed(base, "DEPENDENCY_CONFLICT");
        assertThat(base.failure().evidence()).contains("ModuleNotFoundError: No module named 'transformers.utils'");
    }

    @Test
    void noRunIsChargedToAnArmThatDidNotRun() {
        for (RunRecord r : runs) {
            assertThat(r.status() != RunStatus.FAILED || r.failure() != null).as(r.runId()).isTrue();
        }
        // every source whose status names one failing arm has no other failed arm
        for (String p : List.of(V2 + "sglang/2f427491/", V2 + "vllm/e493e485/", FULL + "61b8cea3/", FULL + "a3223766/",
                FULL + "0d243f2a/", "omniperf_results_3way/vllm/22dd9c27/")) {
            assertThat(of(p).stream().filter(r -> r.status() == RunStatus.FAILED)).as(p).hasSize(1);
        }
    }
}
