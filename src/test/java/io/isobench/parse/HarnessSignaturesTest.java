package io.isobench.parse;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The old harness's own messages and status words (issue 28): each has its category, and the evidence holds the line
 * that decided it (docs/parsing.md, signature table).
 */
class HarnessSignaturesTest {

    private static Failure classify(String status, String error, String console) {
        return FailureClassifier.classify(status, error, console).orElseThrow();
    }

    private static void expect(Failure f, FailureCategory category, String decidingLine) {
        assertThat(f.category()).as(f.detail()).isEqualTo(category);
        assertThat(f.evidence()).as(f.detail()).contains(decidingLine);
    }

    @Test
    void theHarnessOwnBugIsHarnessErrorOnlyInItsErrorField() {
        expect(classify("exception", "name 'port' is not defined", null), FailureCategory.HARNESS_ERROR,
                "name 'port' is not defined");
        // in an arm's console a NameError is the engine's (a patch can introduce one): never the harness's
        Failure console = classify(null, null, "NameError: name 'port' is not defined\n");
        assertThat(console.category()).isNotEqualTo(FailureCategory.HARNESS_ERROR);
    }

    @Test
    void aModalLookupFailureIsHarnessError() {
        String e = "Lookup failed for Function 'run_3way_benchmark_1gpu' from the 'omniperf-benchmark' app: App"
                + " 'omniperf-benchmark' not found in environment 'main'.";
        expect(classify("exception", e, null), FailureCategory.HARNESS_ERROR, e);
    }

    @Test
    void aUserCancelIsCancelled() {
        expect(classify("exception", "Function call was cancelled by user.", null), FailureCategory.CANCELLED,
                "Function call was cancelled by user.");
        assertThat(classify("cancelled", null, null).category()).isEqualTo(FailureCategory.CANCELLED);
    }

    @Test
    void aVersionRefusalIsTheHarnessNotAPortConflict() {
        String e = "vLLM 0.6.3.post2.dev398+g4a18fd14 has known port binding bug (issue #8791) - serving benchmarks"
                + " not supported";
        Failure f = classify("version_bug", e, null);
        expect(f, FailureCategory.HARNESS_ERROR, e);
        assertThat(f.detail()).doesNotContain("PORT_CONFLICT");
        // a real bind failure stays a port conflict
        assertThat(classify("error", null, "ERROR:    [Errno 98] error while attempting to bind on address"
                + " ('127.0.0.1', 8000): address already in use\n").category()).isEqualTo(FailureCategory.PORT_CONFLICT);
    }

    @Test
    void aBrokenPipeIsTransient() {
        expect(classify("exception", "[Errno 32] Broken pipe", null), FailureCategory.INFRA_TRANSIENT,
                "[Errno 32] Broken pipe");
    }

    @Test
    void anInvalidModelIdIsABadPerfCommandNotACrash() {
        String line = "OSError: meta-llama/Llama-3-8B-Instruct is not a local folder and is not a valid model identifier"
                + " listed on 'https://huggingface.co/models'";
        Failure f = classify("error", "Baseline benchmark produced no metrics", "Server failed to start. Server output:"
                + " args) as async_engine_client:\n  File \"/x/hub.py\", line 511, in cached_files\n    raise OSError(\n"
                + line + "\n");
        expect(f, FailureCategory.BAD_PERF_COMMAND, line);
    }

    @Test
    void theOlderShareGptWordingIsABadPerfCommand() {
        String line = "TypeError: expected str, bytes or os.PathLike object, not NoneType";
        String tb = "Traceback (most recent call last):\n"
                + "  File \"/tmp/vllm/benchmarks/benchmark_serving.py\", line 518, in main\n"
                + "    input_requests = sample_sharegpt_requests(\n"
                + "  File \"/tmp/vllm/benchmarks/benchmark_serving.py\", line 91, in sample_sharegpt_requests\n"
                + "    with open(dataset_path) as f:\n" + line + "\n";
        expect(classify("error", "Baseline benchmark produced no metrics", tb), FailureCategory.BAD_PERF_COMMAND, line);
        // the same TypeError elsewhere (not in a dataset sampler) is not read as a missing dataset
        String other = "Traceback (most recent call last):\n  File \"/x/engine.py\", line 3, in load\n"
                + "    open(p)\n" + line + "\n";
        assertThat(classify("error", null, other).category()).isNotEqualTo(FailureCategory.BAD_PERF_COMMAND);
    }

    @Test
    void oldStatusWordsAndMessagesHaveTheirCategory() {
        assertThat(classify("no_metrics", null, null).category()).isEqualTo(FailureCategory.NO_METRICS);
        assertThat(classify("no_baseline_wheel", null, null).category()).isEqualTo(FailureCategory.ENV_MISSING);
        expect(classify("error", "Could not find vLLM installation", null), FailureCategory.ENV_MISSING,
                "Could not find vLLM installation");
        Failure f = classify("error", "No JSON results in output. Stdout:   HF_TOKEN found (37 chars)\n", null);
        assertThat(f.category()).isEqualTo(FailureCategory.NO_METRICS);
        assertThat(f.evidence().get(0)).startsWith("No JSON results in output.");
    }
}
