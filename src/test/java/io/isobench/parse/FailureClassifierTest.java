package io.isobench.parse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class FailureClassifierTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            OSError: [Errno 28] No space left on device                                            | DISK_FULL
            torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB                 | GPU_OOM
            ValueError: No available memory for the cache blocks. Try increasing gpu_memory_util    | GPU_OOM
            ValueError: Unknown RoPE scaling type llama3                                            | MODEL_UNSUPPORTED
            ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`    | MODEL_UNSUPPORTED
            ValueError: Model architectures ['Foo'] are not supported for now.                      | MODEL_UNSUPPORTED
            huggingface_hub.errors.GatedRepoError: 403 Client Error.                                | MODEL_ACCESS
            requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url                   | MODEL_ACCESS
            ValueError: 'aimv2' is already used by a Transformers config, pick another name.        | DEPENDENCY_CONFLICT
            RuntimeError: Numpy is not available                                                    | DEPENDENCY_CONFLICT
            ImportError: cannot import name 'LogitsWarper' from 'transformers'                      | DEPENDENCY_CONFLICT
            ModuleNotFoundError: No module named 'vllm._C'                                          | DEPENDENCY_CONFLICT
            AttributeError: 'Qwen2Tokenizer' object has no attribute 'default_chat_template'        | DEPENDENCY_CONFLICT
            The number of required GPUs exceeds the total number of available GPUs in the placement group | RESOURCES_INSUFFICIENT
            ERROR:    [Errno 98] error while attempting to bind on address: address already in use | PORT_CONFLICT
            vllm: error: unrecognized arguments: --backend vllm                                     | BAD_PERF_COMMAND
            benchmark_throughput.py: error: argument --input-len: invalid int value: 'BS'           | BAD_PERF_COMMAND
            python: can't open file '/opt/vllm/benchmarks/benchmark_foo.py': [Errno 2]              | BAD_PERF_COMMAND
            No perf_command in dataset                                                              | NO_PERF_COMMAND
            error: patch failed: vllm/worker.py:12 -- patch does not apply                          | PATCH_FAILED
            Agent produced an empty patch                                                           | EMPTY_PATCH
            RuntimeError: CUDA error: an illegal memory access was encountered                      | CUDA_ERROR
            triton.compiler.errors.CompilationError: at 12:4                                        | CUDA_ERROR
            fatal: Unable to create '/repo/.git/index.lock': File exists.                           | GIT_ERROR
            Command '['git', 'reset', '--hard', 'HEAD']' timed out after 60 seconds                 | GIT_ERROR
            Baseline install failed: No wheel available and no ancestor wheel found for dd2a6a82   | ENV_MISSING
            Error: Failed to download vllm wheel                                                    | ENV_MISSING
            error: Failed building editable for vllm                                                | BUILD_FAILED
            Docker build timed out after 3600 s                                                     | BUILD_FAILED
            [Errno 32] Broken pipe                                                                  | INFRA_TRANSIENT
            ConnectionResetError: [Errno 104] Connection reset by peer                              | INFRA_TRANSIENT
            Server did not become ready within 600 s                                                | SERVER_START_TIMEOUT
            SERVER_CRASHED                                                                          | SERVER_CRASHED
            Failed to start vLLM server                                                             | SERVER_CRASHED
            ValueError: Initial test run failed - Error: Never received a valid chunk to calculate TTFT. | NO_METRICS
            Agent benchmark produced no metrics                                                     | NO_METRICS
            Agent benchmark timed out after 900s                                                    | TIMEOUT
            """)
    void eachSignature(String line, FailureCategory expected) {
        Failure f = FailureClassifier.classify("INFO 01-02 starting\n" + line + "\nINFO done\n").orElseThrow();
        assertThat(f.category()).as(f.detail()).isEqualTo(expected);
        assertThat(f.evidence()).containsExactly(line.strip());
    }

    @Test
    void everyCategoryButUnknownHasASignature() {
        Set<FailureCategory> covered = EnumSet.noneOf(FailureCategory.class);
        FailureSignatures.ALL.forEach(s -> covered.add(s.category()));
        // REQUESTS_FAILED comes from the client's own count of failed requests, never from log text; the agent-attempt
        // outcomes come from isobench agents run's own timer, budget and exit checks (docs/agents.md); PATCH_REJECTED
        // from the patch review before the arm is prepared (docs/patch-review.md)
        assertThat(covered).containsAll(EnumSet.complementOf(EnumSet.of(FailureCategory.UNKNOWN,
                FailureCategory.REQUESTS_FAILED, FailureCategory.AGENT_TIMEOUT, FailureCategory.BUDGET_EXCEEDED,
                FailureCategory.AGENT_CRASH, FailureCategory.OUTPUT_TOO_LARGE, FailureCategory.PATCH_TOO_LARGE,
                FailureCategory.PATCH_HAS_SECRET, FailureCategory.ATTEMPT_CRASHED, FailureCategory.TREE_CHANGED,
                FailureCategory.SANDBOX_UNSTOPPABLE, FailureCategory.PATCH_REJECTED)));
    }

    @Test
    void precedenceRootCauseBeatsCrashBeatsNoMetricsBeatsUnknown() {
        String crash = "SERVER_CRASHED\n";
        String noMetrics = "============ Serving Benchmark Result ============\n==================================================\n";
        assertThat(FailureClassifier.classify(noMetrics).orElseThrow().category()).isEqualTo(FailureCategory.NO_METRICS);
        assertThat(FailureClassifier.classify(noMetrics + crash).orElseThrow().category())
                .isEqualTo(FailureCategory.SERVER_CRASHED);
        Failure f = FailureClassifier.classify(noMetrics + "torch.OutOfMemoryError: CUDA out of memory\n" + crash).orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.GPU_OOM);
        assertThat(f.detail()).contains("also seen").contains("SERVER_CRASHED").contains("NO_METRICS");
        // status timeout (precedence 3) loses to a crash (2)
        assertThat(FailureClassifier.classify("timeout", null, crash).orElseThrow().category())
                .isEqualTo(FailureCategory.SERVER_CRASHED);
        // equal precedence: the signature listed first wins (OOM before generic CUDA error)
        assertThat(FailureClassifier.classify("RuntimeError: CUDA error: out of memory\n").orElseThrow().category())
                .isEqualTo(FailureCategory.GPU_OOM);
    }

    @Test
    void structuredHints() {
        assertThat(FailureClassifier.classify("timeout", null, "").orElseThrow().category()).isEqualTo(FailureCategory.TIMEOUT);
        assertThat(FailureClassifier.classify("no_perf_command", null, null).orElseThrow().category())
                .isEqualTo(FailureCategory.NO_PERF_COMMAND);
        // version_bug is the old harness refusing an engine version (quoting bug #8791), not a port conflict of a run
        assertThat(FailureClassifier.classify("version_bug", null, null).orElseThrow().category())
                .isEqualTo(FailureCategory.HARNESS_ERROR);
        assertThat(FailureClassifier.classify("error", "engine version incompatible with model", null).orElseThrow().category())
                .isEqualTo(FailureCategory.MODEL_UNSUPPORTED);
        // hint-only words do not fire in console text
        assertThat(FailureClassifier.classify("pip: some packages are incompatible\n").orElseThrow().category())
                .isEqualTo(FailureCategory.UNKNOWN);
    }

    @Test
    void unknownKeepsEvidence() {
        Failure f = FailureClassifier.classify("exception", "something odd", "line 1\nline 2\n\nline 3\nline 4\n").orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.UNKNOWN);
        assertThat(f.evidence()).containsExactly("status: exception", "something odd", "line 2", "line 3", "line 4");
        assertThat(FailureClassifier.classify(null, null, null).orElseThrow().detail()).contains("no output");
    }

    @Test
    void successStatusAndMetricsAreNotFailures() {
        assertThat(FailureClassifier.classify("success", null, "all good\n")).isEmpty();
        assertThat(FailureClassifier.classify("error", "No throughput metrics",
                "Throughput: 50.08 requests/s, 19152.84 total tokens/s, 6410.83 output tokens/s\n")).isEmpty();
    }

    @Test
    void benignLogWordsDoNotTrigger() {
        String log = """
                INFO 01-21 03:08:05 llm_engine.py:194] Initializing an LLM engine (v0.5.5) with config: rope_scaling=None, rope_theta=None
                INFO 01-02 16:44:51 [config.py:723] Resolved architecture: Qwen3MoeForCausalLM
                Unable to find image 'anonymous/vllm-baseline:baseline-7206ce4ce112' locally
                INFO:     Started server process [898]
                """;
        assertThat(FailureClassifier.classify(log).orElseThrow().category()).isEqualTo(FailureCategory.UNKNOWN);
    }

    @Test
    void evidenceIsRedactedAndCarriageReturnsShowTheTerminalLine() {
        Failure f = FailureClassifier.classify(
                "Loading 50%\rHTTPError: 401 Client Error for token hf_abcdefghijklmnopqrstuvwxyz0123\r\n").orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.MODEL_ACCESS);
        assertThat(f.evidence()).containsExactly("HTTPError: 401 Client Error for token hf_***");
    }
}
