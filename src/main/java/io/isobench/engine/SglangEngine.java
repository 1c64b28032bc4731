package io.isobench.engine;

import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.ParsedOutput;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * SGLang, the second real engine: {@code python -m sglang.bench_serving|bench_offline_throughput|bench_one_batch}
 * (flag tables: {@link SglangFlags}), bench_serving's console block and {@code --output-file} JSON Lines
 * ({@link SglangOutput}), the failures its tools print, and its server's {@code sglang:*} Prometheus names (the
 * scheduler's gauges {@code sglang:num_running_reqs}, {@code sglang:num_queue_reqs}, {@code sglang:token_usage},
 * {@code sglang:cache_hit_rate}, {@code sglang:spec_accept_length}; the tokenizer manager's histograms
 * {@code sglang:time_to_first_token_seconds}, {@code sglang:e2e_request_latency_seconds}). isobench lints and parses
 * SGLang's tools; it does not run them (docs/engines.md).
 */
public final class SglangEngine implements EngineAdapter {

    private static final Pattern PYTHON = Pattern.compile("python(\\d+(\\.\\d+)?)?");

    static final ServerMetricNames METRICS = new ServerMetricNames("sglang:", List.of(
            new ServerMetricNames.Gauge("sglang:num_running_reqs", List.of("sglang:num_running_reqs"), true,
                    "requests"),
            new ServerMetricNames.Gauge("sglang:num_queue_reqs", List.of("sglang:num_queue_reqs"), true, "requests"),
            new ServerMetricNames.Gauge("sglang:token_usage", List.of("sglang:token_usage"), false, "ratio"),
            new ServerMetricNames.Gauge("sglang:cache_hit_rate", List.of("sglang:cache_hit_rate"), false, "ratio"),
            new ServerMetricNames.Gauge("sglang:spec_accept_length", List.of("sglang:spec_accept_length"), false,
                    "tokens"),
            new ServerMetricNames.Histogram("sglang:time_to_first_token_seconds", "sglang:time_to_first_token_ms_"),
            new ServerMetricNames.Histogram("sglang:e2e_request_latency_seconds", "sglang:e2e_request_latency_ms_")),
            List.of("sglang:cache_hit_rate_mean", "sglang:token_usage_mean", "sglang:num_running_reqs_mean",
                    "sglang:num_queue_reqs_mean", "sglang:spec_accept_length_mean",
                    "sglang:time_to_first_token_ms_mean", "sglang:time_to_first_token_ms_p99",
                    "sglang:e2e_request_latency_ms_mean", "sglang:e2e_request_latency_ms_p99"),
            "sglang:time_to_first_token_ms_mean",
            Map.of("sglang:spec_accept_length_mean", "no speculative decoding, or not exported by the server"));

    private static final Dialect DIALECT = new SglangDialect();

    @Override
    public String name() {
        return "sglang";
    }

    @Override
    public Dialect dialect() {
        return DIALECT;
    }

    @Override
    public Optional<ParsedOutput> parseConsole(String text) {
        return SglangOutput.console(text);
    }

    @Override
    public Optional<ParsedOutput> parseResult(String text) {
        return SglangOutput.result(text);
    }

    @Override
    public List<FailureSignature> failureSignatures() {
        // SGLang's own lines: only its adapter knows them (the generic table does not)
        return List.of(
                new FailureSignature("Not enough memory. Please try to increase --mem-fraction-static",
                        FailureCategory.GPU_OOM,
                        "GPU memory too small for the KV cache pool (SGLang: --mem-fraction-static)"),
                new FailureSignature("Warmup failed - Please make sure benchmark arguments are correctly specified",
                        FailureCategory.BAD_PERF_COMMAND,
                        "the benchmark's warm-up requests failed (SGLang bench_serving: its arguments, or the server)"));
    }

    @Override
    public ServerMetricNames serverMetrics() {
        return METRICS;
    }

    /**
     * SGLang's programs: {@code python [-opts] -m sglang.<module>}, and a script path ending in
     * {@code sglang/<module>.py}; a benchmark module of {@link SglangFlags#MODULES}, or another {@code sglang.}
     * module, which is not a benchmark ({@code sglang.launch_server}).
     */
    private static final class SglangDialect implements Dialect {

        @Override
        public Optional<EntryPoint> entryPoint(List<String> words) {
            if (words.isEmpty() || !PYTHON.matcher(VllmEngine.base(words.get(0))).matches()) {
                return Optional.empty();
            }
            int i = 1;
            while (i < words.size() && words.get(i).startsWith("-") && !words.get(i).equals("-m")) {
                i += (words.get(i).equals("-X") || words.get(i).equals("-W")) ? 2 : 1;
            }
            String module;
            String tool;
            if (i + 1 < words.size() && words.get(i).equals("-m") && words.get(i + 1).startsWith("sglang.")) {
                module = words.get(i + 1);
                tool = "-m " + module;
                i += 2;
            } else if (i < words.size() && words.get(i).matches("(.*/)?sglang/[A-Za-z_]+\\.py")) {
                String w = words.get(i);
                module = "sglang." + VllmEngine.base(w).replace(".py", "");
                tool = w;
                i += 1;
            } else {
                return Optional.empty();
            }
            var mode = SglangFlags.MODULES.get(module);
            return Optional.of(new EntryPoint("sglang", tool, mode, i, mode != null));
        }

        @Override
        public Set<String> known() {
            return SglangFlags.known();
        }

        @Override
        public Set<String> accepted(EntryPoint tool) {
            return SglangFlags.accepted(module(tool));
        }

        @Override
        public String canonical(EntryPoint tool, String flag) {
            return SglangFlags.canonical(accepted(tool), flag);
        }

        @Override
        public boolean isBoolean(String canonical) {
            return SglangFlags.BOOLEAN.contains(canonical);
        }

        @Override
        public boolean isMultiValue(String canonical) {
            return SglangFlags.MULTI_VALUE.contains(canonical);
        }

        @Override
        public ValueRule rule(String canonical) {
            return SglangFlags.POSITIVE_INT.contains(canonical) ? ValueRule.POSITIVE_INT
                    : SglangFlags.NON_NEGATIVE_INT.contains(canonical) ? ValueRule.NON_NEGATIVE_INT : ValueRule.ANY;
        }

        private static String module(EntryPoint tool) {
            String t = tool.tool();
            return t.startsWith("-m ") ? t.substring(3) : "sglang." + VllmEngine.base(t).replace(".py", "");
        }
    }
}
