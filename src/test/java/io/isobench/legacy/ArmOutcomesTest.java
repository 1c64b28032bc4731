package io.isobench.legacy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edges of "Whose failure is it: arm or harness" and "Success without a primary metric" (docs/parsing.md) on
 * synthetic modal results: a named arm, the running arm, no arm (the attempt), success without a primary metric,
 * no_patch and a skipped agent arm. In every case one event is charged at most once.
 */
class ArmOutcomesTest {

    private static final String SERVING = "python benchmarks/benchmark_serving.py --model m --dataset-name random";
    private static final String THROUGHPUT = "python benchmarks/benchmark_throughput.py --model m --input-len 8";

    /** A modal R1 result: status, error and per-arm fields given as "arm_key", JSON value pairs. */
    private static String modal(String perf, String status, String error, String... fields) {
        ObjectNode result = LenientJson.MAPPER.createObjectNode();
        result.put("status", status);
        if (error != null) {
            result.put("error", error);
        }
        result.put("perf_command", perf);
        result.put("full_commit", "abcdef1234567890abcdef1234567890abcdef12");
        result.put("gpu_config", "H100:1");
        for (int i = 0; i < fields.length; i += 2) {
            try {
                result.set(fields[i], LenientJson.MAPPER.readTree(fields[i + 1]));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        ObjectNode root = LenientJson.MAPPER.createObjectNode();
        root.putObject("instance").put("commit_hash", "abcdef1234567890abcdef1234567890abcdef12")
                .put("perf_command", perf);
        root.set("result", result);
        return root.toString();
    }

    private static List<RunRecord> importOne(Path dir, String json) throws Exception {
        Path d = Files.createDirectories(dir.resolve("t/2026-01/omniperf_results_3way_claude_code/results/modal/abcdef12"));
        Files.writeString(d.resolve("benchmark_result.json"), json);
        return TestStores.importTree(dir);
    }

    private static Optional<RunRecord> find(List<RunRecord> runs, String arm) {
        return runs.stream().filter(r -> r.arm().label().split(":")[0].equals(arm)).findFirst();
    }

    private static RunRecord arm(List<RunRecord> runs, String arm) {
        return find(runs, arm).orElseThrow(() -> new AssertionError("no " + arm + " run in " + runs));
    }

    private static List<RunRecord> failed(List<RunRecord> runs) {
        return runs.stream().filter(r -> r.status() == RunStatus.FAILED).toList();
    }

    @Test
    void anArmNamedByTheErrorGetsTheFailureAndTheLaterArmsNeverRan(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(SERVING, "error", "Human benchmark produced no metrics",
                "baseline_metrics", "{\"tpot_mean\": 10.5}", "human_metrics", "{}",
                "human_raw", "\"Starting server\\nbenchmark exited\"", "agent_metrics", "null"));
        assertThat(arm(runs, "baseline").status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(failed(runs)).hasSize(1);
        assertThat(arm(runs, "human").failure().category()).isEqualTo("NO_METRICS");
        assertThat(arm(runs, "agent").notes()).contains("not run: the human arm failed first (status error");
        assertThat(find(runs, "attempt")).isEmpty();
    }

    @Test
    void anErrorNamingNoArmIsChargedToTheArmThatWasRunning(@TempDir Path dir) throws Exception {
        // the first arm with a record but no value was running
        List<RunRecord> runs = importOne(dir, modal(SERVING, "exception", "boom",
                "baseline_metrics", "{\"tpot_mean\": 10.5}", "human_metrics", "{}",
                "human_raw", "\"Loading model\\nRuntimeError: weights corrupt\"", "agent_metrics", "null"));
        assertThat(failed(runs)).extracting(r -> r.arm().label()).containsExactly("human");
        assertThat(arm(runs, "agent").status()).isEqualTo(RunStatus.NOT_RUN);
        assertThat(find(runs, "attempt")).isEmpty();
    }

    @Test
    void theHarnessProgressLineNamesTheRunningArm(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(SERVING, "error", "No JSON results in output. Stdout:\n"
                        + "[1/3] Running BASELINE benchmark...\n  done\n[2/3] Running HUMAN benchmark...\n",
                "baseline_metrics", "{\"tpot_mean\": 10.5}", "human_metrics", "{}", "agent_metrics", "null"));
        assertThat(failed(runs)).extracting(r -> r.arm().label()).containsExactly("human");
        assertThat(arm(runs, "human").failure().category()).isEqualTo("NO_METRICS");
        assertThat(arm(runs, "baseline").status()).isEqualTo(RunStatus.SUCCESS);
    }

    @Test
    void anEventOutsideEveryArmIsOneFailedAttemptAndNoArmFails(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(SERVING, "exception", "name 'port' is not defined",
                "baseline_metrics", "{}", "human_metrics", "{}", "agent_metrics", "null"));
        assertThat(failed(runs)).hasSize(1);
        RunRecord attempt = arm(runs, "attempt");
        assertThat(attempt.arm().kind()).isEqualTo(io.isobench.Arm.Kind.OTHER);
        assertThat(attempt.failure().category()).isEqualTo("HARNESS_ERROR");
        assertThat(attempt.failure().evidence()).contains("name 'port' is not defined");
        for (String a : new String[] {"baseline", "human", "agent"}) {
            assertThat(arm(runs, a).status()).isEqualTo(RunStatus.NOT_RUN);
            assertThat(arm(runs, a).notes()).contains(
                    "not run: the harness failed before this arm started (HARNESS_ERROR: name 'port' is not defined)");
        }
        // the attempt is never a value, a run id or an issue of the 3-way table
        ThreeWayRow row = ThreeWayTable.row("abcdef12", runs).orElseThrow();
        assertThat(row.runIds()).doesNotContain(attempt.runId());
        assertThat(row.status()).isEqualTo("no_metrics");
    }

    @Test
    void anEventBetweenTwoArmsKeepsTheFinishedArmAndChargesTheAttempt(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(SERVING, "error",
                "Command '['git', 'reset', '--hard', 'HEAD']' timed out after 60 seconds",
                "baseline_metrics", "{\"tpot_mean\": 10.5}", "human_metrics", "{}", "agent_metrics", "null"));
        assertThat(arm(runs, "baseline").status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(failed(runs)).extracting(r -> r.arm().label()).containsExactly("attempt");
        assertThat(arm(runs, "attempt").failure().category()).isEqualTo("GIT_ERROR");
        assertThat(arm(runs, "human").notes()).contains("not run: the harness failed before this arm started (GIT_ERROR");
    }

    @Test
    void aSuccessWhoseOutputParsedIsASuccessWithoutItsPrimaryMetric(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(THROUGHPUT, "success", null,
                "baseline_metrics", "{\"throughput\": 52.25}", "human_metrics", "{\"throughput\": 50.1}",
                "agent_metrics", "{}", "agent_error", "\"Agent benchmark produced no metrics\""));
        for (String a : new String[] {"baseline", "human"}) {
            assertThat(arm(runs, a).status()).isEqualTo(RunStatus.SUCCESS);
            assertThat(arm(runs, a).notes()).contains("no primary metric: the output holds no")
                    .contains("(it has throughput)");
        }
        assertThat(failed(runs)).extracting(r -> r.arm().label()).containsExactly("agent:claude_code");
    }

    @Test
    void aRunnerResultThatSucceededWithoutItsPrimaryMetricIsASuccess(@TempDir Path dir) throws Exception {
        String json = "{\"instance\": {\"commit_hash\": \"abcdef1234\"}, \"result\": {\"status\": \"success\","
                + " \"benchmark_type\": \"serving\", \"baseline_metrics\": {\"ttft_mean\": 12.5, \"raw_output\": \"\"},"
                + " \"patched_metrics\": {\"ttft_mean\": 11.0, \"raw_output\": \"\"}, \"error_message\": null}}";
        Path d = Files.createDirectories(dir.resolve("t/y/vllm/abcdef12"));
        Files.writeString(d.resolve("benchmark_result.json"), json);
        List<RunRecord> runs = new ArrayList<>();
        try (Store store = TestStores.open(dir)) {
            new LegacyImporter(store, null, null).importTree(dir.resolve("t"));
            store.forEachRun(RunFilter.all(), runs::add);
        }
        assertThat(failed(runs)).isEmpty();
        assertThat(arm(runs, "baseline").status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(arm(runs, "baseline").notes()).contains("no primary metric: the output holds no");
    }

    @Test
    void aFailedStatusWithoutAValueStaysFailedEvenWhenSomethingParsed(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(THROUGHPUT, "error", "Baseline benchmark produced no metrics",
                "baseline_metrics", "{\"throughput\": 52.25}", "human_metrics", "{}", "agent_metrics", "null"));
        assertThat(arm(runs, "baseline").status()).isEqualTo(RunStatus.FAILED);
        assertThat(arm(runs, "baseline").failure().category()).isEqualTo("NO_METRICS");
    }

    @Test
    void noPatchIsNoFailure(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(SERVING, "no_patch", "No Claude Code patch found",
                "baseline_metrics", "{\"tpot_mean\": 10.5}", "human_metrics", "{\"tpot_mean\": 9.5}",
                "agent_metrics", "null"));
        assertThat(failed(runs)).isEmpty();
        assertThat(arm(runs, "agent").status()).isEqualTo(RunStatus.NOT_RUN);
        assertThat(arm(runs, "agent").notes()).contains("not run: no agent patch (status no_patch");
        assertThat(arm(runs, "human").status()).isEqualTo(RunStatus.SUCCESS);
    }

    @Test
    void anAgentArmTheHarnessSkippedIsSkippedNotFailed(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(SERVING, "success", null,
                "baseline_metrics", "{\"tpot_mean\": 10.5}", "human_metrics", "{\"tpot_mean\": 9.5}",
                "agent_metrics", "null", "agent_error", "\"Patch contains only non-Python files (skipped: csrc/a.cu)\""));
        assertThat(failed(runs)).isEmpty();
        RunRecord agent = arm(runs, "agent");
        assertThat(agent.status()).isEqualTo(RunStatus.SKIPPED);
        assertThat(agent.notes()).contains("skipped by the harness: Patch contains only non-Python files (skipped:");
    }

    @Test
    void statusWordsNamingAnArmOrNone(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, modal(SERVING, "no_baseline_wheel", null,
                "baseline_metrics", "{}", "human_metrics", "{}", "agent_metrics", "null"));
        assertThat(failed(runs)).extracting(r -> r.arm().label()).containsExactly("baseline");
        assertThat(arm(runs, "baseline").failure().category()).isEqualTo("ENV_MISSING");
        assertThat(arm(runs, "human").notes()).contains("not run: the baseline arm failed first (status no_baseline_wheel");
    }
}
