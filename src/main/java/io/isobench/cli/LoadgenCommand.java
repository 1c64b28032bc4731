package io.isobench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.IsobenchException;
import io.isobench.exec.LoadgenRuns;
import io.isobench.guard.AtomicFile;
import io.isobench.loadgen.LoadGenerator;
import io.isobench.loadgen.LoadgenConfig;
import io.isobench.loadgen.LoadgenResult;
import io.isobench.loadgen.ServeFlags;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Nearest;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * {@code isobench loadgen}: the pinned serving client. Flags follow {@code vllm bench serve}; flags that only make
 * sense inside vLLM are accepted with a one-line warning; an unknown flag is an error naming the nearest known one.
 */
@Command(name = "loadgen", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serving load generator for OpenAI-compatible servers (/v1/completions, /v1/chat/completions).",
                "Flags follow `vllm bench serve`; the console block and --save-result JSON use vLLM's layout and keys."},
        footer = {"", "vLLM-only flags (--backend, --tokenizer-mode, --trust-remote-code, --hf-*, --profile, ...) are accepted"
                + " with a warning.", "The API key is read from $OPENAI_API_KEY (or --api-key-env) and never logged."})
final class LoadgenCommand implements Callable<Integer> {

    @CommandLine.ParentCommand
    Main main;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    // ---- server
    @Option(names = "--base-url", paramLabel = "URL", description = "Server or API base URL (overrides --host/--port).")
    String baseUrl;
    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Server host (default: ${DEFAULT-VALUE}).")
    String host;
    @Option(names = "--port", defaultValue = "8000", description = "Server port (default: ${DEFAULT-VALUE}).")
    int port;
    @Option(names = "--endpoint", defaultValue = "/v1/completions",
            description = "API endpoint: /v1/completions or /v1/chat/completions (default: ${DEFAULT-VALUE}).")
    String endpoint;
    @Option(names = "--model", description = "Model name sent in each request (required).")
    String model;
    @Option(names = "--served-model-name", description = "Model name used in the API, if different from --model.")
    String servedModelName;
    @Option(names = "--header", arity = "1..*", paramLabel = "KEY=VALUE", description = "Extra HTTP headers.")
    List<String> header = new ArrayList<>();
    @Option(names = "--api-key-env", defaultValue = "OPENAI_API_KEY", paramLabel = "VAR",
            description = "Environment variable holding the API key (default: ${DEFAULT-VALUE}).")
    String apiKeyEnv;
    @Option(names = "--ready-check-timeout-sec", defaultValue = "0",
            description = "Wait up to this long for /health or /v1/models before sending (default: ${DEFAULT-VALUE}).")
    int readyCheckTimeoutSec;
    @Option(names = "--request-timeout", defaultValue = "21600", paramLabel = "SEC",
            description = "Per-request limit in seconds; a stalled stream fails after it (default: ${DEFAULT-VALUE}).")
    double requestTimeoutSec;

    // ---- dataset
    @Option(names = "--dataset-name", defaultValue = "random",
            description = "random | sharegpt | custom (JSONL, {\"prompt\": ...} per line; alias jsonl) | fixed | sonnet"
                    + " | prefix_repetition | timed-trace (a Mooncake JSONL or Azure CSV trace; alias timed_trace)"
                    + " (default: ${DEFAULT-VALUE}).")
    String datasetName;
    @Option(names = "--dataset-path", description = "Dataset file for sharegpt/custom/sonnet (vLLM's benchmarks/sonnet.txt)/timed-trace.")
    Path datasetPath;
    @Option(names = "--random-input-len", defaultValue = "1024", description = "Random: input tokens (default: ${DEFAULT-VALUE}).")
    int randomInputLen;
    @Option(names = "--random-output-len", defaultValue = "128", description = "Random: output tokens (default: ${DEFAULT-VALUE}).")
    int randomOutputLen;
    @Option(names = "--random-range-ratio", defaultValue = "0.0",
            description = "Random: lengths uniform in [len*(1-r), len*(1+r)] (default: ${DEFAULT-VALUE}).")
    double randomRangeRatio;
    @Option(names = "--tokenizer", paramLabel = "PATH", description = "A HuggingFace tokenizer.json (byte-level BPE: GPT-2,"
            + " Llama-3, Qwen…, or a directory holding one): random prompts are built to an exact token length with it."
            + " Without it, prompts are checked against the server's usage.prompt_tokens.")
    String tokenizer;
    @Option(names = "--random-prefix-len", defaultValue = "0", description = "Random: shared prefix tokens (default: ${DEFAULT-VALUE}).")
    int randomPrefixLen;
    @Option(names = "--sharegpt-output-len", description = "ShareGPT: override each request's output length.")
    Integer sharegptOutputLen;
    @Option(names = "--multi-turn", description = "ShareGPT: send every turn of a conversation, each after the previous"
            + " reply, with the conversation so far as context (--num-prompts counts conversations).")
    boolean multiTurn;
    @Option(names = "--max-turns", defaultValue = "0",
            description = "Multi-turn: at most this many turns per conversation; 0 = all (default: ${DEFAULT-VALUE}).")
    int maxTurns;
    @Option(names = "--max-context-len", defaultValue = "2048", description = "Multi-turn: a turn is sent only while"
            + " its estimated context plus its output fits in this many tokens; 0 = no cap (default: ${DEFAULT-VALUE}).")
    int maxContextLen;
    @Option(names = "--custom-output-len", defaultValue = "256", description = "Custom/JSONL and fixed: output tokens (default: ${DEFAULT-VALUE}).")
    int customOutputLen;
    @Option(names = "--sonnet-input-len", defaultValue = "550", description = "Sonnet: prompt budget in tokens (default: ${DEFAULT-VALUE}).")
    int sonnetInputLen;
    @Option(names = "--sonnet-output-len", defaultValue = "150", description = "Sonnet: output tokens (default: ${DEFAULT-VALUE}).")
    int sonnetOutputLen;
    @Option(names = "--sonnet-prefix-len", defaultValue = "200",
            description = "Sonnet: tokens of the leading lines every prompt shares (default: ${DEFAULT-VALUE}).")
    int sonnetPrefixLen;
    @Option(names = "--prefix-repetition-prefix-len", defaultValue = "256",
            description = "Prefix repetition: prefix tokens (default: ${DEFAULT-VALUE}).")
    int prefixRepetitionPrefixLen;
    @Option(names = "--prefix-repetition-suffix-len", defaultValue = "256",
            description = "Prefix repetition: suffix tokens (default: ${DEFAULT-VALUE}).")
    int prefixRepetitionSuffixLen;
    @Option(names = "--prefix-repetition-num-prefixes", defaultValue = "10",
            description = "Prefix repetition: distinct prefixes (default: ${DEFAULT-VALUE}).")
    int prefixRepetitionNumPrefixes;
    @Option(names = "--prefix-repetition-output-len", defaultValue = "128",
            description = "Prefix repetition: output tokens (default: ${DEFAULT-VALUE}).")
    int prefixRepetitionOutputLen;
    @Option(names = "--timed-trace-chunk-hash-size", defaultValue = "512", description = "Timed trace: tokens per hash"
            + " id (default: ${DEFAULT-VALUE}, Mooncake's; 16 for Alibaba's traces; vLLM's default is 16).")
    int timedTraceChunkHashSize;
    @Option(names = "--timed-trace-sec-multiplier", defaultValue = "0.001", description = "Timed trace: a timestamp"
            + " times this is seconds (default: ${DEFAULT-VALUE}: milliseconds, Mooncake's; vLLM's default is 1).")
    double timedTraceSecMultiplier;
    @Option(names = "--timed-trace-label-timestamp", defaultValue = "timestamp",
            description = "Timed trace: the timestamp field (default: ${DEFAULT-VALUE}).")
    String timedTraceLabelTimestamp;
    @Option(names = "--timed-trace-label-input-length", defaultValue = "input_length",
            description = "Timed trace: the input length field (default: ${DEFAULT-VALUE}).")
    String timedTraceLabelInputLength;
    @Option(names = "--timed-trace-label-output-length", defaultValue = "output_length",
            description = "Timed trace: the output length field (default: ${DEFAULT-VALUE}).")
    String timedTraceLabelOutputLength;
    @Option(names = "--timed-trace-label-hash-ids", defaultValue = "hash_ids",
            description = "Timed trace: the hash ids field (default: ${DEFAULT-VALUE}).")
    String timedTraceLabelHashIds;
    @Option(names = "--trace-speedup", defaultValue = "1", paramLabel = "X",
            description = "Timed trace: send offsets divided by X (default: ${DEFAULT-VALUE}).")
    double traceSpeedup;
    @Option(names = "--trace-start", defaultValue = "0", paramLabel = "SEC", description = "Timed trace: replay from"
            + " this many trace seconds after the first record (default: ${DEFAULT-VALUE}).")
    double traceStart;
    @Option(names = "--trace-duration", paramLabel = "SEC",
            description = "Timed trace: replay only this many trace seconds from --trace-start.")
    Double traceDuration;
    @Option(names = "--self-timed", description = "vLLM's switch to replay a timed trace's timestamps; a timed trace"
            + " always replays them here.")
    boolean selfTimed;
    @Option(names = "--prompt", description = "Fixed: the prompt sent by every request.")
    String prompt;
    @Option(names = "--seed", defaultValue = "0", description = "Seed for the dataset sampler and arrivals (default: ${DEFAULT-VALUE}).")
    long seed;

    // ---- load shape
    @Option(names = "--num-prompts", defaultValue = "1000", description = "Requests to send (default: ${DEFAULT-VALUE}).")
    int numPrompts;
    @Option(names = "--duration", paramLabel = "SEC", description = "Send requests for this many seconds instead of --num-prompts.")
    Double durationSec;
    @Option(names = "--request-rate", defaultValue = "inf",
            description = "Requests per second, or inf to send all at once (default: ${DEFAULT-VALUE}).")
    String requestRate;
    @Option(names = "--burstiness", defaultValue = "1.0",
            description = "Gamma shape of arrival gaps: 1 = Poisson, <1 burstier, >1 more uniform, inf = constant gaps"
                    + " (default: ${DEFAULT-VALUE}).")
    String burstiness;
    @Option(names = "--max-concurrency", description = "Maximum requests in flight (client queue time is recorded).")
    Integer maxConcurrency;
    @Option(names = "--ramp-up-strategy", description = "linear | exponential ramp of the request rate.")
    String rampUpStrategy;
    @Option(names = "--ramp-up-start-rps", description = "Ramp-up start rate.")
    Double rampUpStartRps;
    @Option(names = "--ramp-up-end-rps", description = "Ramp-up end rate.")
    Double rampUpEndRps;
    // ---- schedule fidelity and client self-check (docs/loadgen.md)
    @Option(names = "--schedule-late-ms", paramLabel = "MS",
            description = "A request sent later than this after it could go counts as late (default: 1).")
    Double scheduleLateMs;
    @Option(names = "--client-busy-limit-pct", paramLabel = "PCT",
            description = "The client is saturated when its I/O thread is busy this share of the run (default: 90).")
    Double clientBusyLimitPct;
    @Option(names = "--client-loop-lag-limit-ms", paramLabel = "MS",
            description = "The client is saturated when its event-loop lag p99 exceeds this (default: 10).")
    Double clientLoopLagLimitMs;
    @Option(names = "--schedule-lag-limit-ms", paramLabel = "MS",
            description = "The client is saturated when its schedule lag p99 exceeds this (default: 10).")
    Double scheduleLagLimitMs;
    @Option(names = "--num-warmups", defaultValue = "0", description = "Warm-up requests, sent first and discarded (default: ${DEFAULT-VALUE}).")
    int numWarmups;

    // ---- request body
    @Option(names = "--ignore-eos", description = "Send ignore_eos: true (generate exactly the output length).")
    boolean ignoreEos;
    @Option(names = "--temperature", description = "Sampling temperature (default 0: greedy).")
    Double temperature;
    @Option(names = "--top-p", description = "Top-p.")
    Double topP;
    @Option(names = "--top-k", description = "Top-k.")
    Integer topK;
    @Option(names = "--min-p", description = "Min-p.")
    Double minP;
    @Option(names = "--extra-body", paramLabel = "JSON", description = "JSON object merged into every request body.")
    String extraBody;
    @Option(names = "--no-stream", description = "Do not stream (TTFT = E2EL).")
    boolean noStream;
    @Option(names = "--no-usage", description = "Do not ask for stream_options.include_usage (count chunks instead).")
    boolean noUsage;
    @Option(names = "--request-id-prefix", defaultValue = "bench-", description = "X-Request-Id prefix (default: ${DEFAULT-VALUE}).")
    String requestIdPrefix;

    // ---- metrics and output
    @Option(names = "--percentile-metrics", defaultValue = "ttft,tpot,itl",
            description = "Metrics to report percentiles for: ttft,tpot,itl,e2el (default: ${DEFAULT-VALUE}).")
    String percentileMetrics;
    @Option(names = "--metric-percentiles", defaultValue = "99",
            description = "Comma-separated percentiles, e.g. 25,50,90,99 (default: ${DEFAULT-VALUE}).")
    String metricPercentiles;
    @Option(names = "--goodput", arity = "1..*", paramLabel = "KEY:MS", description = "SLOs for goodput: ttft:MS tpot:MS e2el:MS.")
    List<String> goodput = new ArrayList<>();
    @Option(names = "--save-result", description = "Save the result JSON (vLLM keys + isobench_ extras).")
    boolean saveResult;
    @Option(names = "--save-detailed", description = "Include per-request arrays (ttfts, itls, texts, errors...).")
    boolean saveDetailed;
    @Option(names = "--append-result", description = "Append to the result file instead of overwriting.")
    boolean appendResult;
    @Option(names = "--result-dir", description = "Directory for the result file (default: current).")
    Path resultDir;
    @Option(names = "--result-filename", description = "Result file name (default: vLLM's openai-{rate}qps-...json).")
    String resultFilename;
    @Option(names = "--metadata", arity = "1..*", paramLabel = "KEY=VALUE", description = "Saved in the result JSON.")
    List<String> metadata = new ArrayList<>();
    @Option(names = "--label", description = "Label saved in the result JSON.")
    String label;

    // ---- isobench store
    @Option(names = "--store", description = "Store the run (metrics + per-request detail) in the isobench store"
            + " (--db, default ./isobench.duckdb). Implied by an explicit --db.")
    boolean store;
    @Option(names = "--arm", defaultValue = "adhoc", description = "Arm label of the stored run (default: ${DEFAULT-VALUE}).")
    String arm;
    @Option(names = "--commit", description = "Commit the stored run measured, if any.")
    String commit;

    @CommandLine.Unmatched
    List<String> unmatched = new ArrayList<>();

    /** vLLM flags that only make sense inside vLLM: accepted with a warning. true = takes a value. */
    static final Map<String, Boolean> VLLM_ONLY = new LinkedHashMap<>();

    static {
        for (String f : List.of("--backend", "--tokenizer-mode", "--hf-subset", "--hf-split",
                "--hf-output-len", "--hf-name", "--lora-modules", "--random-batch-size", "--logprobs", "--plot-timeline", "--timeline-itl-thresholds",
                "--trust-remote-code-revision", "--lora-assignment", "--dataset-config", "--input-len", "--output-len",
                "--blazedit-min-distance", "--blazedit-max-distance", "--spec-bench-output-len",
                "--spec-bench-category", "--mm-limit",
                "--random-mm-base-items-per-request", "--random-mm-num-mm-items-range-ratio",
                "--random-mm-limit-mm-per-prompt", "--random-mm-bucket-config", "--request-id-prefix-len")) {
            VLLM_ONLY.put(f, true);
        }
        for (String f : List.of("--trust-remote-code", "--disable-tqdm", "--profile", "--use-beam-search",
                "--disable-shuffle", "--no-oversample", "--custom-skip-chat-template", "--skip-chat-template",
                "--no-stream-usage",
                "--insecure", "--debug", "--save-timeline")) {
            VLLM_ONLY.put(f, false);
        }
    }

    @Override
    public Integer call() {
        List<String> warnings = handleUnmatched();
        warnings.forEach(w -> main.err.println("isobench loadgen: warning: " + w));
        LoadgenConfig config;
        try {
            config = buildConfig();
        } catch (IllegalArgumentException e) {
            throw new IsobenchException.BadInput(e.getMessage(), e);
        }
        LoadgenResult result;
        try {
            result = LoadGenerator.run(config, main.err::println);
        } catch (IllegalArgumentException e) {
            throw new IsobenchException.BadInput(e.getMessage(), e);
        } catch (LoadGenerator.Aborted e) {
            if (e.getCause() instanceof OutOfMemoryError) {
                throw new IsobenchException.EnvironmentMissing("loadgen: " + e.getMessage() + " (fix: give the JVM more"
                        + " heap, e.g. JAVA_TOOL_OPTIONS=-Xmx4g, or lower --max-concurrency)", e);
            }
            throw e;
        }
        main.out.print(result.consoleBlock());
        main.out.flush();
        main.err.print(result.detailBlock());
        main.err.flush();
        if (saveResult || saveDetailed || appendResult) {
            Path file = save(result);
            main.err.println("isobench loadgen: result saved to " + file);
        }
        if (store || main.db != null) {
            String id = storeRun(result);
            main.err.println("isobench loadgen: stored run " + id + " in " + main.dbSpec());
        }
        if (result.summary().completed() == 0) {
            throw new IsobenchException.NothingMeasured("no request succeeded ("
                    + result.summary().failuresByReason() + "); first error: "
                    + result.requests().stream().filter(r -> r.error() != null).map(r -> r.error()).findFirst().orElse("-"));
        }
        return Main.OK;
    }

    private String storeRun(LoadgenResult result) {
        try (Store st = Stores.open(main.dbSpec())) {
            return LoadgenRuns.store(st, result, new LoadgenRuns.Tag(arm, commit,
                    spec.commandLine().getParseResult().originalArgs()));
        } catch (IOException e) {
            throw new IsobenchException.BadInput("cannot store the run: " + e.getMessage(), e);
        }
    }

    private Path save(LoadgenResult result) {
        ObjectNode json = result.resultJson(saveDetailed);
        for (String kv : metadata) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IsobenchException.BadInput("--metadata '" + kv + "' must be KEY=VALUE");
            }
            json.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        String name = resultFilename != null ? resultFilename : result.defaultResultFilename();
        Path file = resultDir != null ? resultDir.resolve(name) : Path.of(name);
        try {
            if (file.toAbsolutePath().getParent() != null) {
                Files.createDirectories(file.toAbsolutePath().getParent());
            }
            String text = new ObjectMapper().writeValueAsString(json);
            // written beside the file and renamed into place (appending: the old content, then the new line)
            String before = appendResult && Files.exists(file) && Files.size(file) > 0
                    ? Files.readString(file, StandardCharsets.UTF_8) + "\n" : "";
            AtomicFile.write(file, w -> w.append(before).append(text));
        } catch (IOException e) {
            throw new IsobenchException.BadInput("cannot write the result file " + file + ": " + e.getMessage(), e);
        }
        return file;
    }

    /** Warnings for vLLM-only flags; a BadInput naming the nearest known flag for anything else. */
    List<String> handleUnmatched() {
        // picocli lets a multi-value option swallow flags it does not know: hand those back
        for (List<String> multi : List.of(goodput, header, metadata)) {
            for (int i = 0; i < multi.size(); i++) {
                if (multi.get(i).startsWith("--")) {
                    List<String> tail = new ArrayList<>(multi.subList(i, multi.size()));
                    multi.subList(i, multi.size()).clear();
                    unmatched.addAll(0, tail);
                    break;
                }
            }
        }
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < unmatched.size(); i++) {
            String a = unmatched.get(i);
            if (!a.startsWith("-")) {
                throw new IsobenchException.BadInput("unexpected argument '" + a + "' (loadgen takes only --flags)");
            }
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            Boolean takesValue = VLLM_ONLY.get(name);
            if (takesValue == null) {
                throw new IsobenchException.BadInput("unknown flag '" + name + "'; did you mean '" + nearest(name) + "'?"
                        + " (see isobench loadgen --help)");
            }
            StringBuilder w = new StringBuilder("ignoring " + name);
            if (takesValue && !a.contains("=")) {
                // vLLM flags with values may take several (nargs='+'): consume until the next flag
                while (i + 1 < unmatched.size() && !unmatched.get(i + 1).startsWith("--")) {
                    w.append(' ').append(unmatched.get(++i));
                }
            }
            w.append(" (only meaningful inside vLLM)");
            warnings.add(w.toString());
        }
        return warnings;
    }

    String nearest(String flag) {
        Set<String> known = new TreeSet<>(VLLM_ONLY.keySet());
        for (CommandLine.Model.OptionSpec o : spec.options()) {
            known.addAll(List.of(o.names()));
        }
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String k : known) {
            if (!k.startsWith("--")) {
                continue;
            }
            int d = Nearest.distance(flag, k);
            if (d < bestD) {
                bestD = d;
                best = k;
            }
        }
        return best;
    }

    /**
     * The options' values (given or default) read by the one flag parser, {@link ServeFlags}: the fields above only
     * declare the options for picocli and {@code --help}.
     */
    LoadgenConfig buildConfig() {
        Map<String, List<String>> flags = new LinkedHashMap<>();
        for (CommandLine.Model.OptionSpec o : spec.options()) {
            Object v = o.getValue();
            if (v != null && o.longestName().startsWith("--")) {
                flags.put(o.longestName().substring(2), v instanceof List<?> l
                        ? l.stream().map(String::valueOf).toList() : List.of(String.valueOf(v)));
            }
        }
        return ServeFlags.parse(flags, w -> main.err.println("isobench loadgen: warning: " + w))
                .keepText(saveDetailed).build();
    }
}
