package io.isobench.parse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The error-line grammar (docs/parsing.md "Error lines"), and the evidence it gives the classifier. */
class ErrorLinesTest {

    @ParameterizedTest(name = "advice: {0}")
    @ValueSource(strings = {
            "INFO 12-26 07:52:19 [model_runner.py:1060] If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode.",
            "(VllmWorker rank=0 pid=12) INFO 12-26 07:52:19 [gpu_worker.py:1] If you are running out of memory, consider decreasing gpu_memory_utilization",
            "WARNING 12-24 20:26:56 [__init__.py:221] CUDA out of memory is likely with these settings",
            "WARNING:vllm.engine:CUDA out of memory may happen",
            "[WARNING] No space left on device soon",
            "[W1226 07:52:19.123 ProcessGroupNCCL.cpp:1] Connection reset by peer",
            "2026-01-14 13:24:34,123 - vllm - INFO - address already in use? retrying",
            "/venv/lib/python3.12/site-packages/transformers/utils/hub.py:110: FutureWarning: No module named foo is deprecated",
            "UserWarning: CUDA error: this is only a warning",
    })
    void adviceNeverCarriesASignature(String line) {
        String text = "starting\n" + line + "\ndone\n";
        assertThat(FailureClassifier.classify(text).orElseThrow().category()).as(line).isEqualTo(FailureCategory.UNKNOWN);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            ERROR 12-26 07:52:19 [engine.py:1] torch.OutOfMemoryError: CUDA out of memory    | GPU_OOM
            (VllmWorker rank=0 pid=12) ERROR 12-26 07:52:19 [core.py:1] EngineDeadError       | SERVER_CRASHED
            [rank0]: ValueError: dataset_path must be provided for loading data.              | BAD_PERF_COMMAND
            BASELINE_SERVER_CRASHED                                                           | SERVER_CRASHED
            Benchmark timed out                                                               | TIMEOUT
            huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/models/x' | BAD_PERF_COMMAND
            No wheel for human 0d243f2a                                                       | ENV_MISSING
            Failed to install baseline wheel                                                  | ENV_MISSING
            huggingface-hub>=0.34.0,<1.0 is required for a normal functioning of this module, but found huggingface-hub==1.2.3. | DEPENDENCY_CONFLICT
            TypeError: __init__() got an unexpected keyword argument 'block_size'             | DEPENDENCY_CONFLICT
            Baseline test failed to produce JSON output                                       | NO_METRICS
            AssertionError: Equivalence mismatch at index 3: 0.51 vs 0.49                    | OUTPUT_MISMATCH
            """)
    void errorLinesCarrySignatures(String line, FailureCategory expected) {
        Failure f = FailureClassifier.classify("INFO 01-02 03:04:05 [x.py:1] starting\n" + line + "\n").orElseThrow();
        assertThat(f.category()).as(f.detail()).isEqualTo(expected);
    }

    @Test
    void statusesThatNameTheFailureGetTheirCategory() {
        assertThat(FailureClassifier.classify("no_wheel", "No wheel for human 0d243f2a", null).orElseThrow().category())
                .isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(FailureClassifier.classify("wheel_install_failed", null, null).orElseThrow().category())
                .isEqualTo(FailureCategory.ENV_MISSING);
    }

    @Test
    void sourceLinesOfTracebackFramesAreCodeNotErrors() {
        String tb = """
                Traceback (most recent call last):
                  File "/app/run.py", line 12, in main
                    if "out of memory" in str(e): handle()
                  File "/app/run.py", line 20, in handle
                    raise KeyError(key)
                KeyError: 'model'
                """;
        Failure f = FailureClassifier.classify(tb).orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.UNKNOWN);
        assertThat(f.evidence()).contains("KeyError: 'model'", "File \"/app/run.py\", line 20, in handle");
    }

    @Test
    void theExceptionLineOfTheLastTracebackIsKeptWithTheLinesAroundIt() {
        StringBuilder sb = new StringBuilder("=== BASELINE ===\nBASELINE_SERVER_CRASHED\n");
        sb.append("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    x()\n");
        sb.append("RuntimeError: first failure\n\n");
        sb.append("Traceback (most recent call last):\n");
        for (int i = 0; i < 40; i++) {
            sb.append("  File \"/lib/m").append(i).append(".py\", line ").append(i).append(", in f\n    f()\n");
        }
        sb.append("  File \"/lib/configuration_auto.py\", line 1081, in register\n");
        sb.append("    raise ValueError(f\"'{key}' is already used by a Transformers config, pick another name.\")\n");
        sb.append("ValueError: 'aimv2' is already used by a Transformers config, pick another name.\n");
        Failure f = FailureClassifier.classify(sb.toString()).orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.DEPENDENCY_CONFLICT);
        assertThat(f.evidence()).containsSubsequence(
                "ValueError: 'aimv2' is already used by a Transformers config, pick another name.",
                "File \"/lib/configuration_auto.py\", line 1081, in register",
                "BASELINE_SERVER_CRASHED");
        assertThat(f.evidence()).doesNotContain("RuntimeError: first failure").hasSizeLessThanOrEqualTo(8);
    }

    @Test
    void aTailKeptLogWithoutTracebackHeaderStillGivesItsLastExceptionLine() {
        String text = "    foo()\n  File \"b.py\", line 3, in foo\n    bar()\nOSError: something went wrong\nINFO 01-01 00:00:00 bye\n";
        assertThat(ErrorLines.lastException(text)).containsExactly("File \"b.py\", line 3, in foo", "bar()",
                "OSError: something went wrong");
    }

    @Test
    void firstMarker() {
        assertThat(ErrorLines.firstMarker("ok\nINFO fine\nbenchmark_serving.py: error: unrecognized arguments\nERROR x\n"))
                .isEqualTo("benchmark_serving.py: error: unrecognized arguments");
        assertThat(ErrorLines.firstMarker("ok\nAGENT_PATCH_FAILED\n")).isEqualTo("AGENT_PATCH_FAILED");
        assertThat(ErrorLines.firstMarker("INFO 01-01 00:00:00 [a.py:1] ERROR count 0\nall good\n")).isNull();
    }

    @Test
    void bytesReprLogsAreReadAsLines() {
        String text = "Failed to start vLLM server\nb'INFO 01-01 00:00:00 start\\nTraceback (most recent call last):\\n"
                + "  File \"x.py\", line 1, in f\\n    g()\\nrequests.exceptions.HTTPError: 403 Client Error: Forbidden\\n'\n";
        Failure f = FailureClassifier.classify(text).orElseThrow();
        assertThat(f.category()).isEqualTo(FailureCategory.MODEL_ACCESS);
        assertThat(f.evidence()).contains("requests.exceptions.HTTPError: 403 Client Error: Forbidden");
    }
}
