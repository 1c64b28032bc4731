package io.isobench.engine;

import io.isobench.Mode;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What SGLang's benchmark modules accept (flag names only): {@code python -m sglang.bench_serving} (its argparse
 * parser), {@code sglang.bench_offline_throughput} and {@code sglang.bench_one_batch} (their own flags plus the server
 * arguments, {@code ServerArgs}). Tables, as for vLLM: a flag known to any SGLang version is "known"; an unknown one
 * is a warning. Python's argparse accepts an unambiguous prefix of a flag ({@code --random-input} for
 * {@code --random-input-len}, as bench_serving's own usage line writes it): {@link #canonical} resolves those.
 */
final class SglangFlags {

    private SglangFlags() {
    }

    /** The benchmark modules and what each measures ({@code sglang.launch_server} is a server, not a benchmark). */
    static final Map<String, Mode> MODULES = Map.of(
            "sglang.bench_serving", Mode.SERVING,
            "sglang.bench_offline_throughput", Mode.THROUGHPUT,
            "sglang.bench_one_batch", Mode.LATENCY);

    static final Set<String> SERVING = Set.of(
            "--backend", "--base-url", "--host", "--port", "--dataset-name", "--dataset-path", "--model",
            "--tokenizer", "--num-prompts", "--sharegpt-output-len", "--sharegpt-context-len", "--random-input-len",
            "--random-output-len", "--random-range-ratio", "--request-rate", "--max-concurrency", "--output-file",
            "--output-details", "--disable-tqdm", "--disable-stream", "--return-logprob", "--seed",
            "--disable-ignore-eos", "--extra-request-body", "--apply-chat-template", "--profile", "--lora-name",
            "--prompt-suffix", "--pd-separated", "--flush-cache", "--warmup-requests", "--tokenize-prompt",
            "--gsp-num-groups", "--gsp-prompts-per-group", "--gsp-system-prompt-len", "--gsp-question-len",
            "--gsp-output-len");

    /** Server arguments ({@code ServerArgs.add_cli_args}) the offline modules accept, the common ones. */
    static final Set<String> SERVER = Set.of(
            "--model-path", "--tokenizer-path", "--tokenizer-mode", "--skip-tokenizer-init", "--load-format",
            "--trust-remote-code", "--dtype", "--kv-cache-dtype", "--quantization", "--context-length", "--device",
            "--served-model-name", "--chat-template", "--revision", "--mem-fraction-static", "--max-running-requests",
            "--max-total-tokens", "--chunked-prefill-size", "--max-prefill-tokens", "--schedule-policy",
            "--schedule-conservativeness", "--cpu-offload-gb", "--tensor-parallel-size", "--tp-size",
            "--data-parallel-size", "--dp-size", "--pipeline-parallel-size", "--pp-size", "--stream-interval",
            "--random-seed", "--log-level", "--attention-backend", "--sampling-backend", "--disable-radix-cache",
            "--disable-cuda-graph", "--cuda-graph-max-bs", "--enable-torch-compile", "--torch-compile-max-bs",
            "--enable-mixed-chunk", "--enable-dp-attention", "--enable-ep-moe", "--speculative-algorithm",
            "--speculative-draft-model-path", "--speculative-num-steps", "--speculative-eagle-topk",
            "--speculative-num-draft-tokens", "--disable-overlap-schedule", "--enable-metrics", "--host", "--port",
            "--grammar-backend", "--lora-paths", "--max-loras-per-batch", "--triton-attention-reduce-in-fp32",
            "--enable-nan-detection", "--enable-p2p-check", "--disable-custom-all-reduce", "--watchdog-timeout");

    static final Set<String> OFFLINE_THROUGHPUT = Set.of(
            "--backend", "--result-filename", "--dataset-name", "--dataset-path", "--num-prompts",
            "--sharegpt-output-len", "--sharegpt-context-len", "--random-input-len", "--random-output-len",
            "--random-range-ratio", "--gsp-num-groups", "--gsp-prompts-per-group", "--gsp-system-prompt-len",
            "--gsp-question-len", "--gsp-output-len", "--seed", "--disable-ignore-eos", "--extra-request-body",
            "--apply-chat-template", "--profile", "--skip-warmup", "--do-not-exit", "--prompt-suffix");

    static final Set<String> ONE_BATCH = Set.of(
            "--run-name", "--batch-size", "--input-len", "--output-len", "--result-filename", "--correctness-test",
            "--cut-len", "--log-decode-step", "--profile", "--profile-filename-prefix");

    /** {@code nargs="+"|"*"}: every following word up to the next flag is a value too. */
    static final Set<String> MULTI_VALUE = Set.of("--lora-name", "--batch-size", "--input-len", "--output-len",
            "--lora-paths");

    static final Set<String> BOOLEAN = Set.of(
            "--output-details", "--disable-tqdm", "--disable-stream", "--return-logprob", "--disable-ignore-eos",
            "--apply-chat-template", "--profile", "--pd-separated", "--flush-cache", "--tokenize-prompt",
            "--skip-warmup", "--do-not-exit", "--correctness-test", "--skip-tokenizer-init",
            "--trust-remote-code", "--disable-radix-cache", "--disable-cuda-graph", "--enable-torch-compile",
            "--enable-mixed-chunk", "--enable-dp-attention", "--enable-ep-moe", "--disable-overlap-schedule",
            "--enable-metrics", "--triton-attention-reduce-in-fp32", "--enable-nan-detection", "--enable-p2p-check",
            "--disable-custom-all-reduce");

    static final Set<String> POSITIVE_INT = Set.of("--num-prompts", "--random-input-len", "--random-output-len",
            "--max-concurrency", "--tp-size", "--tensor-parallel-size", "--dp-size", "--data-parallel-size",
            "--max-running-requests", "--gsp-num-groups", "--gsp-prompts-per-group");

    static final Set<String> NON_NEGATIVE_INT = Set.of("--seed", "--warmup-requests", "--random-seed");

    /** Server-argument aliases, to the names the GPU count is read from (as vLLM's). */
    static final Map<String, String> ALIASES = Map.of("--tp", "--tensor-parallel-size", "--tp-size",
            "--tensor-parallel-size", "--dp", "--data-parallel-size", "--dp-size", "--data-parallel-size",
            "--pp-size", "--pipeline-parallel-size");

    static Set<String> accepted(String module) {
        return switch (module) {
            case "sglang.bench_serving" -> SERVING;
            case "sglang.bench_offline_throughput" -> union(OFFLINE_THROUGHPUT, SERVER);
            case "sglang.bench_one_batch" -> union(ONE_BATCH, SERVER);
            default -> Set.of();
        };
    }

    static Set<String> known() {
        return union(union(SERVING, SERVER), union(OFFLINE_THROUGHPUT, ONE_BATCH));
    }

    /**
     * The flag {@code written} names for a tool accepting {@code accepted}: itself when accepted or when it is a
     * known alias; else the one accepted flag it is a prefix of (argparse's abbreviation rule); else itself.
     */
    static String canonical(Set<String> accepted, String written) {
        String alias = ALIASES.get(written);
        if (alias != null) {
            return alias;
        }
        if (accepted.contains(written) || !written.startsWith("--")) {
            return written;
        }
        List<String> longer = accepted.stream().filter(f -> f.startsWith(written)).toList();
        return longer.size() == 1 ? longer.get(0) : written;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.addAll(b);
        return out;
    }
}
