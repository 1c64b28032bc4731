package io.isobench.parse;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static io.isobench.parse.RealFiles.CLAUDE;
import static io.isobench.parse.RealFiles.CODEX;
import static org.assertj.core.api.Assertions.assertThat;

/** Every failing file of DESIGN.md §7's table, fed to the classifier as the importer would, with the expected category. */
class FailureClassifierRealDataTest {

    private static final String MODAL = CLAUDE + "results/modal/";

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** R1 (modal) arm: status + error (agent_error for the agent arm when present) + that arm's raw. */
    private static Optional<Failure> modalArm(String c8, String arm) {
        JsonNode r = RealFiles.json(MODAL + c8 + "/benchmark_result.json").get("result");
        String error = text(r, "error");
        if (arm.equals("agent") && text(r, "agent_error") != null) {
            error = text(r, "agent_error");
        }
        if (error == null) {
            error = text(r, "error_message"); // older sub-schema
        }
        return FailureClassifier.classify(text(r, "status"), error, text(r, arm + "_raw"));
    }

    /** R3/R4 per-arm file: status + error + raw_output. */
    private static Optional<Failure> perArm(String file) {
        JsonNode r = RealFiles.json(file);
        return FailureClassifier.classify(text(r, "status"), text(r, "error"), text(r, "raw_output"));
    }

    static Stream<Arguments> table() {
        return Stream.of(
                Arguments.of("modal/6dd94dbe agent", (Case) () -> modalArm("6dd94dbe", "agent"), FailureCategory.NO_METRICS),
                Arguments.of("modal/25ebed2f baseline", (Case) () -> modalArm("25ebed2f", "baseline"), FailureCategory.HARNESS_ERROR),
                Arguments.of("modal/25ebed2f human", (Case) () -> modalArm("25ebed2f", "human"), FailureCategory.HARNESS_ERROR),
                Arguments.of("modal/25ebed2f agent", (Case) () -> modalArm("25ebed2f", "agent"), FailureCategory.HARNESS_ERROR),
                Arguments.of("modal/015069b0 baseline", (Case) () -> modalArm("015069b0", "baseline"), FailureCategory.INFRA_TRANSIENT),
                Arguments.of("modal/015069b0 agent", (Case) () -> modalArm("015069b0", "agent"), FailureCategory.INFRA_TRANSIENT),
                Arguments.of("modal/22d33bac baseline", (Case) () -> modalArm("22d33bac", "baseline"), FailureCategory.BAD_PERF_COMMAND),
                Arguments.of("modal/3127e975 baseline", (Case) () -> modalArm("3127e975", "baseline"), FailureCategory.NO_PERF_COMMAND),
                Arguments.of("modal/3127e975 agent", (Case) () -> modalArm("3127e975", "agent"), FailureCategory.NO_PERF_COMMAND),
                Arguments.of("modal/6e36f4fa baseline", (Case) () -> modalArm("6e36f4fa", "baseline"), FailureCategory.ENV_MISSING),
                Arguments.of("modal/eefbf4a6 human", (Case) () -> modalArm("eefbf4a6", "human"), FailureCategory.GIT_ERROR),
                Arguments.of("modal/eefbf4a6 agent", (Case) () -> modalArm("eefbf4a6", "agent"), FailureCategory.GIT_ERROR),
                Arguments.of("7c01f706 human", (Case) () -> perArm(CLAUDE + "results/7c01f706_human_result.json"), FailureCategory.MODEL_UNSUPPORTED),
                Arguments.of("codex 3476ed08 human", (Case) () -> perArm(CODEX + "results/3476ed08_human_result.json"), FailureCategory.DISK_FULL),
                Arguments.of("separate_agent 2a052011 agent", (Case) () -> perArm(CLAUDE + "results/separate_agent/2a052011_agent_result.json"), FailureCategory.GPU_OOM),
                Arguments.of("codex 67da5720 agent", (Case) () -> perArm(CODEX + "results/67da5720_agent_result.json"), FailureCategory.TIMEOUT),
                Arguments.of("codex fe66b347 agent", (Case) () -> perArm(CODEX + "results/fe66b347_agent_result.json"), FailureCategory.DEPENDENCY_CONFLICT),
                Arguments.of("codex 70b808fe agent", (Case) () -> perArm(CODEX + "results/70b808fe_agent_result.json"), FailureCategory.NO_METRICS),
                Arguments.of("v2 e493e485 stderr", (Case) () -> FailureClassifier.classify(
                        RealFiles.text("archive/results/omniperf_results_v2/vllm/e493e485/stderr.txt")), FailureCategory.DEPENDENCY_CONFLICT),
                Arguments.of("fixed fc542144 stderr", (Case) () -> FailureClassifier.classify(
                        RealFiles.text("archive/results/omniperf_results_fixed/vllm/fc542144/stderr.txt")), FailureCategory.MODEL_ACCESS),
                Arguments.of("hero progress baseline", (Case) () -> {
                    JsonNode r = RealFiles.json(CLAUDE + "logs/modal/hero_3way_20251231_011435_progress.json").get("results").get(0);
                    return FailureClassifier.classify(text(r, "status"), text(r, "error"), text(r, "baseline_raw"));
                }, FailureCategory.PORT_CONFLICT));
    }

    interface Case {
        Optional<Failure> run();
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("table")
    void everyFailingFileGetsItsExpectedCategory(String label, Case c, FailureCategory expected) {
        Optional<Failure> f = c.run();
        assertThat(f).as(label).isPresent();
        assertThat(f.get().category()).as(label + ": " + f.get().detail() + " " + f.get().evidence()).isEqualTo(expected);
        assertThat(f.get().evidence()).as("evidence of " + label).isNotEmpty().allMatch(l -> !l.isBlank());
        assertThat(f.get().retryable()).isEqualTo(expected.retryable());
    }

    @Test
    void codexThroughputRunWithWrongStoredStatusIsNotAFailure() {
        JsonNode r = RealFiles.json(CODEX + "results/61b8cea3_agent_result.json");
        assertThat(text(r, "status")).isEqualTo("error");
        assertThat(FailureClassifier.classify(text(r, "status"), text(r, "error"), text(r, "raw_output"))).isEmpty();
        assertThat(FailureClassifier.classify(text(r, "raw_output"))).isEmpty();
    }

    @Test
    void evidenceIsTheWholeMatchingLine() {
        Failure f = perArm(CLAUDE + "results/7c01f706_human_result.json").orElseThrow();
        assertThat(f.evidence()).contains("[rank0]: ValueError: Unknown RoPE scaling type llama3");
        assertThat(f.detail()).contains("SERVER_CRASHED");

        Failure oom = perArm(CLAUDE + "results/separate_agent/2a052011_agent_result.json").orElseThrow();
        assertThat(oom.firstEvidence()).startsWith("[rank0]: torch.cuda.OutOfMemoryError: CUDA out of memory.");
        assertThat(oom.category().retry()).isEqualTo(FailureCategory.Retry.MAYBE);

        Failure disk = perArm(CODEX + "results/3476ed08_human_result.json").orElseThrow();
        assertThat(disk.evidence()).hasSize(1);
        assertThat(disk.firstEvidence()).startsWith("docker: Error response from daemon: mkdir").endsWith("no space left on device");
    }

    @Test
    void evidenceInsideAnEscapedBytesReprIsTheEscapedLineThatMatched() {
        Failure f = FailureClassifier.classify(
                RealFiles.text("archive/results/omniperf_results_fixed/vllm/fc542144/stderr.txt")).orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.MODEL_ACCESS);
        assertThat(f.firstEvidence()).contains("403").doesNotContain("\\n").hasSizeLessThan(400);
    }

    @Test
    void successfulFilesAreNotFailures() {
        for (String f : List.of(CODEX + "results/aea94362_agent_result.json", CODEX + "results/98f47f2a_agent_result.json",
                RealFiles.CODEX_CLI + "results/2deb029d_agent_result.json",
                CLAUDE + "results/separate_agent/cf2f084d_human_result.json")) {
            assertThat(perArm(f)).as(f).isEmpty();
        }
    }
}
