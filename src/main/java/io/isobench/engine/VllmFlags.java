package io.isobench.engine;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What vLLM's benchmark entry points and server accept (flag names only, across versions 0.4 – 0.11). Server flags
 * are the engine arguments ({@code EngineArgs}/{@code AsyncEngineArgs}) plus the OpenAI server's own; the offline
 * scripts accept the engine arguments too. Tables, not parsing of vLLM's source: the adapter lints commands written
 * for many vLLM versions, so a flag known to any of them is "known". The vLLM adapter's {@link Dialect} reads them;
 * the perf_command parser reads the serving split (client, server, both) from here.
 */
public final class VllmFlags {

    private VllmFlags() {
    }

    public static final Map<String, String> ALIASES = Map.of(
            "-tp", "--tensor-parallel-size",
            "-pp", "--pipeline-parallel-size",
            "-dp", "--data-parallel-size",
            "-q", "--quantization",
            "-O", "--compilation-config");

    /** Client flags of benchmarks/benchmark_serving.py and {@code vllm bench serve}. */
    public static final Set<String> SERVING_CLIENT = Set.of(
            "--backend", "--base-url", "--host", "--port", "--endpoint", "--endpoint-type", "--dataset",
            "--dataset-name", "--dataset-path", "--max-concurrency", "--model", "--tokenizer", "--tokenizer-mode",
            "--best-of", "--use-beam-search", "--num-prompts", "--logprobs", "--request-rate", "--burstiness",
            "--seed", "--disable-tqdm", "--profile", "--save-result", "--save-detailed", "--append-result",
            "--metadata", "--result-dir", "--result-filename", "--ignore-eos", "--percentile-metrics",
            "--metric-percentiles", "--goodput", "--sonnet-input-len", "--sonnet-output-len", "--sonnet-prefix-len",
            "--sharegpt-output-len", "--random-input-len", "--random-output-len", "--random-range-ratio",
            "--random-prefix-len", "--random-batch-size", "--hf-subset", "--hf-split", "--hf-output-len",
            "--custom-output-len", "--custom-skip-chat-template", "--top-p", "--top-k", "--min-p", "--temperature",
            "--lora-modules", "--ramp-up-strategy", "--ramp-up-start-rps", "--ramp-up-end-rps",
            "--ready-check-timeout-sec", "--label", "--request-id-prefix", "--num-warmups", "--no-stream",
            "--header", "--disable-shuffle", "--spec-bench-output-len", "--spec-bench-category",
            "--prefix-repetition-prefix-len", "--prefix-repetition-suffix-len", "--prefix-repetition-num-prefixes",
            "--prefix-repetition-output-len", "--no-oversample", "--skip-chat-template", "--extra-body",
            "--frequency-penalty", "--presence-penalty", "--repetition-penalty", "--max-num-completed-requests",
            "--random-mm-base-items-per-request", "--random-mm-num-mm-items-range-ratio",
            "--random-mm-limit-mm-per-prompt", "--random-mm-bucket-config",
            // isobench loadgen's multi-turn conversations (docs/loadgen.md)
            "--multi-turn", "--max-turns", "--max-context-len",
            // isobench loadgen's client self-check thresholds (docs/loadgen.md, "Client self-check")
            "--schedule-late-ms", "--client-busy-limit-pct", "--client-loop-lag-limit-ms", "--schedule-lag-limit-ms",
            // vLLM's timed trace (PR #39795) and isobench's window and pace for it (docs/loadgen.md, "timed-trace")
            "--timed-trace-chunk-hash-size", "--timed-trace-sec-multiplier", "--timed-trace-label-timestamp",
            "--timed-trace-label-input-length", "--timed-trace-label-output-length", "--timed-trace-label-hash-ids",
            "--self-timed", "--trace-speedup", "--trace-start", "--trace-duration");

    /** Client flags that take one or more values ({@code nargs="+"}: {@code --goodput ttft:500 tpot:50}). */
    public static final Set<String> MULTI_VALUE = Set.of("--goodput");

    /** Flags that belong to both sides: the client must name the model as the server serves it. */
    public static final Set<String> SERVING_BOTH = Set.of("--served-model-name", "--trust-remote-code");

    /** Client flags isobench sets itself (it starts the server on a port it chooses). */
    public static final Set<String> SERVING_ENDPOINT = Set.of("--host", "--port", "--base-url");

    /** Old client spellings and their {@code vllm bench serve} names. */
    public static final Map<String, String> CLIENT_RENAMES = Map.of("--dataset", "--dataset-path");

    /** Engine arguments (server and offline scripts) and OpenAI-server arguments. */
    public static final Set<String> ENGINE = Set.of(
            "--model", "--tokenizer", "--revision", "--code-revision", "--tokenizer-revision", "--tokenizer-mode",
            "--trust-remote-code", "--download-dir", "--load-format", "--config-format", "--dtype", "--kv-cache-dtype",
            "--quantization-param-path", "--max-model-len", "--guided-decoding-backend", "--structured-outputs-config",
            "--logits-processor-pattern", "--distributed-executor-backend", "--worker-use-ray",
            "--pipeline-parallel-size", "--tensor-parallel-size", "--data-parallel-size", "--data-parallel-size-local",
            "--data-parallel-address", "--data-parallel-rpc-port", "--data-parallel-backend",
            "--enable-expert-parallel", "--enable-eplb", "--max-parallel-loading-workers", "--ray-workers-use-nsight",
            "--block-size", "--enable-prefix-caching", "--no-enable-prefix-caching", "--prefix-caching-hash-algo",
            "--disable-sliding-window", "--use-v2-block-manager", "--num-lookahead-slots", "--seed", "--swap-space",
            "--cpu-offload-gb", "--gpu-memory-utilization", "--num-gpu-blocks-override", "--max-num-batched-tokens",
            "--max-num-partial-prefills", "--max-long-partial-prefills", "--long-prefill-token-threshold",
            "--max-num-seqs", "--max-logprobs", "--disable-log-stats", "--quantization", "--rope-scaling",
            "--rope-theta", "--hf-overrides", "--hf-config-path", "--enforce-eager", "--max-context-len-to-capture",
            "--max-seq-len-to-capture", "--disable-custom-all-reduce", "--tokenizer-pool-size",
            "--tokenizer-pool-type", "--tokenizer-pool-extra-config", "--limit-mm-per-prompt", "--mm-processor-kwargs",
            "--disable-mm-preprocessor-cache", "--enable-lora", "--enable-lora-bias", "--max-loras", "--max-lora-rank",
            "--lora-extra-vocab-size", "--lora-dtype", "--long-lora-scaling-factors", "--max-cpu-loras",
            "--fully-sharded-loras", "--enable-prompt-adapter", "--max-prompt-adapters", "--max-prompt-adapter-token",
            "--device", "--num-scheduler-steps", "--multi-step-stream-outputs", "--scheduler-delay-factor",
            "--enable-chunked-prefill", "--no-enable-chunked-prefill", "--speculative-model",
            "--speculative-model-quantization", "--num-speculative-tokens", "--speculative-disable-mqa-scorer",
            "--speculative-draft-tensor-parallel-size", "--speculative-max-model-len",
            "--speculative-disable-by-batch-size", "--ngram-prompt-lookup-max", "--ngram-prompt-lookup-min",
            "--spec-decoding-acceptance-method", "--typical-acceptance-sampler-posterior-threshold",
            "--typical-acceptance-sampler-posterior-alpha", "--disable-logprobs-during-spec-decoding",
            "--speculative-config", "--model-loader-extra-config", "--ignore-patterns", "--preemption-mode",
            "--served-model-name", "--qlora-adapter-name-or-path", "--otlp-traces-endpoint",
            "--collect-detailed-traces", "--disable-async-output-proc", "--scheduling-policy",
            "--scheduler-cls", "--override-neuron-config", "--override-pooler-config", "--compilation-config",
            "--kv-transfer-config", "--kv-events-config", "--worker-cls", "--worker-extension-cls",
            "--generation-config", "--override-generation-config", "--enable-sleep-mode", "--calculate-kv-scales",
            "--additional-config", "--enable-reasoning", "--reasoning-parser", "--disable-cascade-attn",
            "--model-impl", "--task", "--runner", "--convert", "--use-tqdm-on-load", "--pt-load-map-location",
            "--disable-chunked-mm-input", "--async-scheduling", "--enable-dbo",
            "--cuda-graph-sizes", "--enable-multimodal-encoder-data-parallel", "--mm-encoder-tp-mode",
            "--kv-sharing-fast-prefill", "--disable-hybrid-kv-cache-manager", "--attention-backend",
            // OpenAI-compatible server
            "--host", "--port", "--uvicorn-log-level", "--allow-credentials", "--allowed-origins",
            "--allowed-methods", "--allowed-headers", "--api-key", "--lora-modules", "--prompt-adapters",
            "--chat-template", "--chat-template-content-format", "--response-role", "--ssl-keyfile",
            "--ssl-certfile", "--ssl-ca-certs", "--ssl-cert-reqs", "--root-path", "--middleware",
            "--return-tokens-as-token-ids", "--disable-frontend-multiprocessing", "--enable-request-id-headers",
            "--enable-auto-tool-choice", "--tool-call-parser", "--tool-parser-plugin", "--disable-log-requests",
            "--max-log-len", "--disable-fastapi-docs", "--enable-prompt-tokens-details",
            "--enable-server-load-tracking", "--enable-force-include-usage", "--api-server-count",
            "--headless", "--log-config-file", "--enable-log-requests", "--disable-uvicorn-access-log");

    public static final Set<String> LATENCY_SCRIPT = Set.of(
            "--input-len", "--output-len", "--batch-size", "--n", "--use-beam-search", "--num-iters-warmup",
            "--num-iters", "--profile", "--profile-result-dir", "--output-json", "--disable-detokenize");

    public static final Set<String> THROUGHPUT_SCRIPT = Set.of(
            "--backend", "--dataset", "--dataset-name", "--dataset-path", "--input-len", "--output-len", "--n",
            "--use-beam-search", "--num-prompts", "--hf-max-batch-size", "--output-json", "--async-engine",
            "--disable-frontend-multiprocessing", "--disable-detokenize", "--lora-path", "--prefix-len",
            "--random-range-ratio", "--hf-subset", "--hf-split", "--hf-output-len");

    public static final Set<String> PREFIX_CACHING_SCRIPT = Set.of(
            "--dataset-path", "--prefix-len", "--num-prompts", "--repeat-count", "--sort", "--input-length-range",
            "--output-len", "--disable-detokenize");

    /** Flags of the offline scripts that the serving client does not have (the classic mistake: --input-len). */
    public static final Set<String> OFFLINE_ONLY = Set.of(
            "--input-len", "--output-len", "--batch-size", "--n", "--num-iters-warmup", "--num-iters",
            "--profile-result-dir", "--output-json", "--hf-max-batch-size", "--async-engine", "--lora-path",
            "--prefix-len", "--repeat-count", "--sort", "--input-length-range", "--disable-detokenize");

    /** Serving-client suggestions for offline-only flags. */
    public static final Map<String, String> SERVING_REPLACEMENT = Map.of(
            "--input-len", "--random-input-len (with --dataset-name random)",
            "--output-len", "--random-output-len (with --dataset-name random)",
            "--prefix-len", "--random-prefix-len (with --dataset-name random)",
            "--batch-size", "--max-concurrency",
            "--num-iters", "--num-prompts");

    /** Flags that take no value (argparse store_true or similar). */
    public static final Set<String> BOOLEAN = Set.of(
            "--trust-remote-code", "--enforce-eager", "--enable-prefix-caching", "--no-enable-prefix-caching",
            "--disable-sliding-window", "--use-v2-block-manager", "--disable-log-stats", "--disable-custom-all-reduce",
            "--enable-lora", "--enable-lora-bias", "--fully-sharded-loras", "--enable-prompt-adapter",
            "--multi-step-stream-outputs", "--no-enable-chunked-prefill", "--speculative-disable-mqa-scorer",
            "--disable-logprobs-during-spec-decoding", "--disable-async-output-proc", "--enable-sleep-mode",
            "--calculate-kv-scales", "--enable-reasoning", "--disable-cascade-attn", "--use-tqdm-on-load",
            "--disable-chunked-mm-input", "--async-scheduling", "--enable-expert-parallel", "--enable-eplb",
            "--worker-use-ray", "--ray-workers-use-nsight", "--disable-mm-preprocessor-cache",
            "--return-tokens-as-token-ids", "--disable-frontend-multiprocessing", "--enable-request-id-headers",
            "--enable-auto-tool-choice", "--disable-log-requests", "--disable-fastapi-docs",
            "--enable-prompt-tokens-details", "--enable-server-load-tracking", "--enable-force-include-usage",
            "--headless", "--enable-log-requests", "--disable-uvicorn-access-log", "--enable-dbo",
            "--use-beam-search", "--disable-tqdm", "--profile", "--save-result", "--save-detailed", "--append-result",
            "--ignore-eos", "--multi-turn", "--self-timed", "--custom-skip-chat-template", "--no-stream", "--disable-shuffle", "--no-oversample",
            "--skip-chat-template", "--async-engine", "--disable-detokenize", "--sort", "--allow-credentials",
            "--kv-sharing-fast-prefill", "--disable-hybrid-kv-cache-manager",
            "--enable-multimodal-encoder-data-parallel");

    /**
     * Boolean flags that old vLLM versions declared with an optional value ({@code --enable-chunked-prefill False}).
     */
    public static final Set<String> OPTIONAL_BOOLEAN = Set.of("--enable-chunked-prefill");

    public static final Set<String> DTYPES = Set.of("auto", "half", "float16", "bfloat16", "float", "float32");

    /** Flags whose value must be a positive integer. */
    public static final Set<String> POSITIVE_INT = Set.of(
            "--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size", "--num-prompts",
            "--input-len", "--output-len", "--batch-size", "--num-iters", "--max-model-len",
            "--max-num-batched-tokens", "--max-num-seqs", "--random-input-len", "--random-output-len",
            "--max-concurrency", "--num-speculative-tokens", "--n", "--repeat-count");

    /** Flags whose value must be a non-negative integer. */
    public static final Set<String> NON_NEGATIVE_INT = Set.of("--seed", "--num-iters-warmup", "--random-prefix-len",
            "--prefix-len", "--num-warmups");

    public static Set<String> allKnown() {
        Set<String> all = new TreeSet<>();
        all.addAll(SERVING_CLIENT);
        all.addAll(ENGINE);
        all.addAll(LATENCY_SCRIPT);
        all.addAll(THROUGHPUT_SCRIPT);
        all.addAll(PREFIX_CACHING_SCRIPT);
        all.addAll(ALIASES.keySet());
        return all;
    }
}
