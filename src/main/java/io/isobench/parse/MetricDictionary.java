package io.isobench.parse;

import io.isobench.Mode;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The canonical metric dictionary (DESIGN.md §5, a contract): names carry their unit, direction is fixed.
 * Percentile families accept any statistic suffix ({@code mean}, {@code median}, {@code std}, {@code pNN}).
 */
public final class MetricDictionary {

    private static final Pattern STAT = Pattern.compile("(mean|median|std|p\\d{1,2}(\\.\\d+)?|min|max)");
    private static final Pattern TURN = Pattern.compile("(turn[1-9]\\d*|later_turns)_(ttft|tpot|e2el)_ms_(.+)");
    private static final Pattern TURN_INPUT = Pattern.compile("(turn[1-9]\\d*|later_turns)_input_tokens_mean");
    private static final Pattern LATENCY_STAT = Pattern.compile("(avg|p\\d{1,2}(\\.\\d+)?|median|std)");

    private MetricDictionary() {
    }

    /** Unit and direction of a canonical metric name, or {@code null} if the name is not canonical. */
    public static Definition lookup(String name) {
        if (name == null) {
            return null;
        }
        for (String fam : new String[] {"ttft_ms_", "tpot_ms_", "itl_ms_", "e2el_ms_"}) {
            if (name.startsWith(fam) && STAT.matcher(name.substring(fam.length())).matches()) {
                return new Definition(name, "ms", Better.LOWER);
            }
        }
        if (name.startsWith("latency_ms_") && LATENCY_STAT.matcher(name.substring(11)).matches()) {
            return new Definition(name, "ms", Better.LOWER);
        }
        if (name.startsWith("client_queue_ms_") && STAT.matcher(name.substring(16)).matches()) {
            return new Definition(name, "ms", Better.NONE);
        }
        // multi-turn runs (docs/loadgen.md): per turn index (turn1…turn8) and every turn from 2 on (later_turns)
        Matcher turn = TURN.matcher(name);
        if (turn.matches() && STAT.matcher(turn.group(3)).matches()) {
            return new Definition(name, "ms", Better.LOWER);
        }
        if (TURN_INPUT.matcher(name).matches()) {
            return new Definition(name, "tokens", Better.NONE);
        }
        if (name.startsWith("conversation_duration_s_") && STAT.matcher(name.substring(24)).matches()) {
            return new Definition(name, "s", Better.LOWER);
        }
        return switch (name) {
            case "request_throughput_rps", "request_goodput_rps" -> new Definition(name, "req/s", Better.HIGHER);
            case "output_throughput_tok_s", "total_throughput_tok_s", "input_throughput_tok_s",
                 "peak_output_throughput_tok_s" -> new Definition(name, "tok/s", Better.HIGHER);
            case "peak_concurrent_requests" -> new Definition(name, "requests", Better.NONE);
            // a load sweep's capacity at the SLO (docs/statistics.md, "Load sweeps and capacity")
            case "capacity_request_rate_rps" -> new Definition(name, "req/s", Better.HIGHER);
            case "capacity_max_concurrency" -> new Definition(name, "concurrent requests", Better.HIGHER);
            case "good_fraction" -> new Definition(name, "ratio", Better.HIGHER);
            case "completed_requests", "failed_requests" -> new Definition(name, "requests", Better.NONE);
            case "total_input_tokens", "total_output_tokens" -> new Definition(name, "tokens", Better.NONE);
            case "duration_s" -> new Definition(name, "s", Better.NONE);
            case "conversations_completed", "conversations_failed" -> new Definition(name, "conversations", Better.NONE);
            case "conversation_throughput_cps" -> new Definition(name, "conv/s", Better.HIGHER);
            case "turns_per_conversation_mean" -> new Definition(name, "turns", Better.NONE);
            // GPU telemetry of a measured run (docs/gpu-telemetry.md)
            case "gpu_energy_j" -> new Definition(name, "J", Better.LOWER);
            case "gpu_energy_per_output_token_j" -> new Definition(name, "J/token", Better.LOWER);
            // the whole sampled job (server start-up included) beside the measured phase's gpu_energy_j: descriptive
            case "gpu_energy_run_j" -> new Definition(name, "J", Better.NONE);
            case "gpu_window_s" -> new Definition(name, "s", Better.NONE);
            case "gpu_power_w_mean", "gpu_power_w_max", "gpu_power_limit_w" -> new Definition(name, "W", Better.NONE);
            case "gpu_sm_clock_mhz_mean", "gpu_mem_clock_mhz_mean" -> new Definition(name, "MHz", Better.NONE);
            case "gpu_temp_c_max" -> new Definition(name, "C", Better.NONE);
            case "gpu_util_pct_mean", "gpu_mem_util_pct_mean" -> new Definition(name, "%", Better.NONE);
            case "gpu_mem_used_mib_max" -> new Definition(name, "MiB", Better.NONE);
            case "gpu_throttle_share" -> new Definition(name, "share", Better.NONE);
            case "gpu_samples", "gpus", "gpu_sampled_s" -> new Definition(name, name.equals("gpu_sampled_s") ? "s"
                    : "count", Better.NONE);
            case "micro_avg_ms", "micro_p50_ms" -> new Definition(name, "ms", Better.LOWER);
            case "accuracy_score" -> new Definition(name, "score", Better.HIGHER);
            // generic engines' offline commands, measured by isobench around the process (MetricRule)
            case "command_wall_s", "command_cpu_s" -> new Definition(name, "s", Better.LOWER);
            // correctness gate (check runs, pipeline native-check): the arm's greedy probes vs a reference arm
            case "exact_match_rate_vs_baseline", "exact_match_rate_vs_human" -> new Definition(name, "ratio", Better.HIGHER);
            case "first_divergence_char_vs_baseline", "first_divergence_char_vs_human" -> new Definition(name, "chars", Better.NONE);
            case "first_divergence_token_vs_baseline", "first_divergence_token_vs_human" -> new Definition(name, "tokens", Better.NONE);
            case "logprob_drift_max_vs_baseline", "logprob_drift_max_vs_human" -> new Definition(name, "nats", Better.LOWER);
            // server-side metrics scraped from the server's Prometheus /metrics (vLLM names; docs/server-metrics.md)
            case "vllm:num_requests_running_mean", "vllm:num_requests_running_max",
                 "vllm:num_requests_waiting_mean", "vllm:num_requests_waiting_max" ->
                    new Definition(name, "requests", Better.NONE);
            case "vllm:kv_cache_usage_perc_mean", "vllm:kv_cache_usage_perc_max" ->
                    new Definition(name, "ratio", Better.NONE);
            case "vllm:prefix_cache_hit_rate", "vllm:spec_decode_acceptance_rate" ->
                    new Definition(name, "ratio", Better.HIGHER);
            case "vllm:num_preemptions_delta" -> new Definition(name, "preemptions", Better.LOWER);
            case "vllm:time_to_first_token_ms_mean", "vllm:time_to_first_token_ms_p99",
                 "vllm:e2e_request_latency_ms_mean", "vllm:e2e_request_latency_ms_p99" ->
                    new Definition(name, "ms", Better.LOWER);
            case "server_metrics_scrapes", "server_metrics_scrape_failures", "server_metrics_bad_lines" ->
                    new Definition(name, "count", Better.NONE);
            case "ttft_client_minus_server_ms" -> new Definition(name, "ms", Better.NONE);
            case "ttft_client_server_gap_large" -> new Definition(name, "flag", Better.NONE);
            default -> null;
        };
    }

    /** Like {@link #lookup} but fails for unknown names: a stored metric always has a unit. */
    public static Definition require(String name) {
        Definition d = lookup(name);
        if (d == null) {
            throw new IllegalArgumentException("'" + name + "' is not a canonical metric name (DESIGN.md §5)");
        }
        return d;
    }

    /** Primary metric per mode (DESIGN.md §5). */
    public static String primaryMetric(Mode mode) {
        return switch (mode) {
            case SERVING -> "tpot_ms_mean";
            case LATENCY -> "latency_ms_avg";
            case THROUGHPUT -> "total_throughput_tok_s";
            case PREFIX_CACHING -> "output_throughput_tok_s";
            case MICRO -> "micro_avg_ms";
        };
    }

    /**
     * Improvement in percent, positive = better: lower-is-better {@code (B − X)/B × 100},
     * higher-is-better {@code (X − B)/B × 100}. Null (never 0, never NaN) when a value is missing or B = 0.
     */
    public static Double improvementPct(Better better, Double base, Double x) {
        if (base == null || x == null || base == 0.0 || base.isNaN() || x.isNaN()
                || base.isInfinite() || x.isInfinite()) {
            return null;
        }
        return switch (better) {
            case LOWER -> (base - x) / base * 100.0;
            case HIGHER -> (x - base) / base * 100.0;
            case NONE -> null;
        };
    }

    public record Definition(String name, String unit, Better better) {
    }
}
