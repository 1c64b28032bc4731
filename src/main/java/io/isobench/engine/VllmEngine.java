package io.isobench.engine;

import io.isobench.Mode;
import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.OutputParser;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.ParsedOutput;
import io.isobench.parse.SaveResultParser;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * vLLM: {@code vllm bench serve|throughput|latency} and {@code benchmarks/benchmark_*.py} (flag tables:
 * {@link VllmFlags}), their console output ({@link OutputParser}) and {@code --save-result}/{@code --output-json}
 * files ({@link SaveResultParser}), and the server's {@code vllm:*} metrics (docs/server-metrics.md).
 */
public final class VllmEngine implements EngineAdapter {

    private static final Pattern PYTHON = Pattern.compile("python(\\d+(\\.\\d+)?)?");
    private static final Pattern SCRIPT = Pattern.compile("benchmark_(serving|throughput|latency|prefix_caching)\\.py");

    /** vLLM's Prometheus names; the summaries' names are those stored since issue 27 (docs/server-metrics.md). */
    static final ServerMetricNames METRICS = new ServerMetricNames("vllm:", List.of(
            new ServerMetricNames.Gauge("vllm:num_requests_running", List.of("vllm:num_requests_running"), true,
                    "requests"),
            new ServerMetricNames.Gauge("vllm:num_requests_waiting", List.of("vllm:num_requests_waiting"), true,
                    "requests"),
            // V1 names it kv_cache_usage_perc, V0 gpu_cache_usage_perc (both 0..1)
            new ServerMetricNames.Gauge("vllm:kv_cache_usage_perc", List.of("vllm:kv_cache_usage_perc",
                    "vllm:gpu_cache_usage_perc"), false, "ratio"),
            new ServerMetricNames.Ratio("vllm:prefix_cache_hit_rate", List.of(
                    List.of("vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"),
                    List.of("vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total"))),
            new ServerMetricNames.Delta("vllm:num_preemptions_delta", "vllm:num_preemptions_total", "preemptions"),
            new ServerMetricNames.Ratio("vllm:spec_decode_acceptance_rate", List.of(List.of(
                    "vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_draft_tokens_total"))),
            new ServerMetricNames.Histogram("vllm:time_to_first_token_seconds", "vllm:time_to_first_token_ms_"),
            new ServerMetricNames.Histogram("vllm:e2e_request_latency_seconds", "vllm:e2e_request_latency_ms_")),
            List.of("vllm:num_preemptions_delta", "vllm:prefix_cache_hit_rate", "vllm:kv_cache_usage_perc_mean",
                    "vllm:num_requests_running_mean", "vllm:num_requests_waiting_mean",
                    "vllm:spec_decode_acceptance_rate", "vllm:time_to_first_token_ms_mean",
                    "vllm:time_to_first_token_ms_p99", "vllm:e2e_request_latency_ms_mean",
                    "vllm:e2e_request_latency_ms_p99"),
            "vllm:time_to_first_token_ms_mean",
            Map.of("vllm:prefix_cache_hit_rate", "no prefix-cache query in the run, or not exported by the server",
                    "vllm:spec_decode_acceptance_rate", "no speculative draft tokens, or not exported by the server"));

    static final Dialect DIALECT = new VllmDialect();

    @Override
    public String name() {
        return "vllm";
    }

    @Override
    public Dialect dialect() {
        return DIALECT;
    }

    @Override
    public Optional<ParsedOutput> parseConsole(String text) {
        ParsedOutput p = OutputParser.parse(text);
        return p.hasMetrics() ? Optional.of(p) : Optional.empty();
    }

    /** {@link OutputParser}'s whole reading (warnings and an empty result block included). */
    @Override
    public ParsedOutput readConsole(String text, OutputParser.Truncation truncation) {
        return OutputParser.parse(text, truncation);
    }

    @Override
    public Optional<ParsedOutput> parseResult(String text) {
        ParsedOutput p = SaveResultParser.parse(text);
        return p.hasMetrics() ? Optional.of(p) : Optional.empty();
    }

    @Override
    public List<FailureSignature> failureSignatures() {
        // the generic table holds these lines too (a text with no engine known is read as vLLM's): ties go to it
        return List.of(
                new FailureSignature("ValueError: No available memory for the cache blocks.", FailureCategory.GPU_OOM,
                        "GPU memory too small for the KV cache"),
                new FailureSignature("ValueError: dataset_path must be provided for loading the ShareGPT dataset.",
                        FailureCategory.BAD_PERF_COMMAND, "perf command lacks --dataset-name/--dataset-path"),
                new FailureSignature("RuntimeError: Engine core initialization failed.",
                        FailureCategory.SERVER_CRASHED, "engine process died during startup"),
                new FailureSignature("vllm.v1.engine.exceptions.EngineDeadError", FailureCategory.SERVER_CRASHED,
                        "engine process died"),
                new FailureSignature("Could not find vllm installation", FailureCategory.ENV_MISSING,
                        "engine not installed (no vLLM installation found)"));
    }

    @Override
    public ServerMetricNames serverMetrics() {
        return METRICS;
    }

    /** vLLM's programs: {@code vllm …}, {@code python benchmarks/benchmark_*.py}, {@code python -m vllm.…}. */
    private static final class VllmDialect implements Dialect {

        @Override
        public Optional<EntryPoint> entryPoint(List<String> words) {
            if (words.isEmpty()) {
                return Optional.empty();
            }
            String base = base(words.get(0));
            if (base.equals("vllm")) {
                boolean bench = words.size() >= 3 && words.get(1).equals("bench");
                String tool = String.join(" ", words.subList(0, Math.min(bench ? 3 : 2, words.size())));
                Mode mode = bench ? Mode.ofCommand(tool).orElse(null) : null;
                return Optional.of(new EntryPoint("vllm", tool, mode, Math.min(bench ? 3 : 2, words.size()),
                        mode != null));
            }
            if (!PYTHON.matcher(base).matches()) {
                return Optional.empty();
            }
            int i = 1;
            while (i < words.size() && words.get(i).startsWith("-") && !words.get(i).equals("-m")) {
                i += (words.get(i).equals("-X") || words.get(i).equals("-W")) ? 2 : 1;
            }
            if (i + 1 < words.size() && words.get(i).equals("-m") && words.get(i + 1).startsWith("vllm.")) {
                return Optional.of(new EntryPoint("vllm", "-m " + words.get(i + 1), null, i + 2, false));
            }
            if (i < words.size() && SCRIPT.matcher(base(words.get(i))).matches()) {
                return Optional.of(new EntryPoint("vllm", words.get(i), Mode.ofCommand(words.get(i)).orElse(null),
                        i + 1, true));
            }
            return Optional.empty();
        }

        @Override
        public Set<String> known() {
            return VllmFlags.allKnown();
        }

        @Override
        public Set<String> accepted(EntryPoint tool) {
            return switch (tool.mode() == null ? "" : tool.mode().label()) {
                case "serving" -> VllmFlags.SERVING_CLIENT;
                case "latency" -> VllmFlags.LATENCY_SCRIPT;
                case "throughput" -> VllmFlags.THROUGHPUT_SCRIPT;
                case "prefix_caching" -> VllmFlags.PREFIX_CACHING_SCRIPT;
                default -> Set.of();
            };
        }

        @Override
        public String canonical(EntryPoint tool, String flag) {
            return VllmFlags.ALIASES.getOrDefault(flag, flag);
        }

        @Override
        public boolean isBoolean(String canonical) {
            return VllmFlags.BOOLEAN.contains(canonical);
        }

        @Override
        public boolean isOptionalBoolean(String canonical) {
            return VllmFlags.OPTIONAL_BOOLEAN.contains(canonical);
        }

        @Override
        public boolean isMultiValue(String canonical) {
            return VllmFlags.MULTI_VALUE.contains(canonical);
        }

        @Override
        public ValueRule rule(String canonical) {
            return VllmFlags.POSITIVE_INT.contains(canonical) ? ValueRule.POSITIVE_INT
                    : VllmFlags.NON_NEGATIVE_INT.contains(canonical) ? ValueRule.NON_NEGATIVE_INT : ValueRule.ANY;
        }
    }

    static String base(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }
}
