package io.isobench.legacy;

import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runner and micro-benchmark results the samples do not show, read by rule (schema, keys, arm-naming statuses,
 * sidecar sections), whatever the folder: acceptance runs on archive files nobody has seen.
 */
class RunnerRulesTest {

    private static List<RunRecord> importOne(Path dir, String folder, String json, String stderr) throws Exception {
        Path d = Files.createDirectories(dir.resolve("t").resolve(folder));
        Files.writeString(d.resolve("benchmark_result.json"), json);
        if (stderr != null) {
            Files.writeString(d.resolve("stderr.txt"), stderr);
        }
        return TestStores.importTree(dir);
    }

    private static RunRecord arm(List<RunRecord> runs, String arm) {
        return runs.stream().filter(r -> r.arm().label().split(":")[0].equals(arm)).findFirst().orElseThrow();
    }

    private static String micro(String status, String baselineOut, String patchedOut, String error, String stderr) {
        return "{\"instance\": {\"commit_hash\": \"abcdef1234\", \"repo\": \"vllm\"}, \"result\": {\"status\": \"" + status
                + "\", \"baseline_ms\": null, \"patched_ms\": null, \"speedup\": null, \"baseline_output\": " + baselineOut
                + ", \"patched_output\": " + patchedOut + ", \"error_message\": " + error + ", \"stdout\": \"\","
                + " \"stderr\": " + stderr + ", \"patch_path\": \"/x/state/runs/vllm/codex/default/t/p.diff\"}}";
    }

    @Test
    void patchedFailedChargesTheAgentOnly(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, "anywhere/abcdef12", micro("patched_failed",
                "{\"impl_tag\": \"child\", \"avg_ms\": 1.5}", "null", "\"Patched test failed to produce JSON output\"",
                "\"Traceback (most recent call last):\\n  File \\\"t.py\\\", line 3, in f\\n    g()\\n"
                        + "AttributeError: module 'vllm.ops' has no attribute 'fused_add'\\n\""), null);
        assertThat(arm(runs, "baseline").status()).isEqualTo(RunStatus.SUCCESS);
        RunRecord agent = arm(runs, "agent");
        assertThat(agent.arm().label()).isEqualTo("agent:codex");
        assertThat(agent.status()).isEqualTo(RunStatus.FAILED);
        assertThat(agent.failure().category()).isEqualTo("DEPENDENCY_CONFLICT");
        assertThat(agent.failure().evidence()).contains("AttributeError: module 'vllm.ops' has no attribute 'fused_add'");
    }

    @Test
    void anErrorNamingNoArmChargesTheFirstArmWithoutAValueAndTheNextNeverRan(@TempDir Path dir) throws Exception {
        List<RunRecord> runs = importOne(dir, "x/abcdef12", micro("error", "null", "null",
                "\"Benchmark timed out after 600 s\"", "\"\""), null);
        assertThat(arm(runs, "baseline").failure().category()).isEqualTo("TIMEOUT");
        assertThat(arm(runs, "agent").status()).isEqualTo(RunStatus.NOT_RUN);
        assertThat(arm(runs, "agent").notes()).contains("not run: the baseline arm failed first (status error");
    }

    @Test
    void aRunnerLogWithArmSectionsGivesEachArmItsOwnCause(@TempDir Path dir) throws Exception {
        String json = "{\"instance\": {\"commit_hash\": \"abcdef1234\"}, \"result\": {\"status\": \"error\","
                + " \"benchmark_type\": \"serving\", \"baseline_metrics\": {\"ttft_mean\": null, \"raw_output\": \"\"},"
                + " \"patched_metrics\": {\"ttft_mean\": null, \"raw_output\": \"\"}, \"error_message\": \"run failed\"}}";
        String stderr = "=== BASELINE ===\nOSError: [Errno 98] Address already in use\n=== PATCHED ===\n"
                + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
        List<RunRecord> runs = importOne(dir, "y/vllm/abcdef12", json, stderr);
        assertThat(arm(runs, "baseline").failure().category()).isEqualTo("PORT_CONFLICT");
        assertThat(arm(runs, "agent").failure().category()).isEqualTo("GPU_OOM");
    }

    @Test
    void infoAdviceIsNeverTheCause(@TempDir Path dir) throws Exception {
        String advice = "INFO 12-26 07:52:19 [model_runner.py:1] Capturing the model for CUDA graphs. If you are running"
                + " out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode.\\n";
        String block = "============ Serving Benchmark Result ============\\nSuccessful requests:                     100\\n"
                + "Mean TPOT (ms):                          11.32\\n==================================================\\n";
        // baseline and human printed their result; the agent's output stops after the advice (no result, no error)
        String json = "{\"instance\": {\"commit_hash\": \"abcdef1234\", \"perf_command\": \"vllm bench serve --model m\"},"
                + " \"result\": {\"status\": \"success\", \"baseline_metrics\": {}, \"human_metrics\": {},"
                + " \"agent_metrics\": {}, \"baseline_raw\": \"" + advice + block + "\", \"human_raw\": \"" + advice
                + block + "\", \"agent_raw\": \"" + advice + "\"}}";
        List<RunRecord> runs = importOne(dir, "omniperf_results_3way_x/results/modal/abcdef12", json, null);
        assertThat(arm(runs, "baseline").status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(arm(runs, "human").status()).isEqualTo(RunStatus.SUCCESS);
        RunRecord agent = arm(runs, "agent");
        assertThat(agent.status()).isEqualTo(RunStatus.FAILED);
        assertThat(agent.failure().category()).isEqualTo("NO_METRICS");
    }
}
