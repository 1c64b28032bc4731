package io.isobench.parse;

import io.isobench.Mode;

import java.util.List;
import java.util.Set;
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
    /** An engine server's summary: {@code <namespace>:<family>_<kind>} (docs/server-metrics.md). */
    private static final Pattern SERVER = Pattern.compile("([a-z][a-z0-9_]*):([a-z][a-z0-9_.]*)");
    private static final Pattern HISTOGRAM = Pattern.compile("([a-z][a-z0-9_]*)_ms_([a-z0-9.]+)");

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
        Definition server = serverSummary(name);
        if (server != null) {
            return server;
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
            case "server_metrics_scrapes", "server_metrics_scrape_failures", "server_metrics_bad_lines" ->
                    new Definition(name, "count", Better.NONE);
            case "ttft_client_minus_server_ms" -> new Definition(name, "ms", Better.NONE);
            // the load generator's schedule fidelity and self-check (docs/loadgen.md): about the client, not compared
            case "schedule_lag_ms_p50", "schedule_lag_ms_p99", "schedule_lag_ms_max", "client_loop_lag_ms_p99",
                 "client_loop_lag_ms_max" -> new Definition(name, "ms", Better.NONE);
            case "schedule_late_pct", "client_cpu_busy_pct" -> new Definition(name, "%", Better.NONE);
            case "configured_request_rate_rps", "delivered_request_rate_rps" -> new Definition(name, "req/s", Better.NONE);
            case "configured_max_concurrency", "delivered_concurrency_mean" -> new Definition(name, "requests", Better.NONE);
            case "client_saturated" -> new Definition(name, "flag", Better.NONE);
            case "ttft_client_server_gap_large" -> new Definition(name, "flag", Better.NONE);
            default -> null;
        };
    }

    /**
     * A summary of an engine server's Prometheus metrics (docs/server-metrics.md, "Names of any engine"):
     * {@code <namespace>:<family>_<kind>}, the namespace an engine's ({@code vllm}, {@code sglang}, …), the kind part
     * engine-neutral: {@code _ms_<stat>} a seconds histogram in ms (lower is better); {@code _rate} a counter ratio
     * (higher is better); {@code _delta} a counter's growth over the run, in what {@code num_<things>} counts (else
     * {@code count}; lower is better); {@code _mean}/{@code _max} a gauge, in the unit its family's words name
     * ({@link #gaugeUnit}; no direction). Null for any other name.
     */
    private static Definition serverSummary(String name) {
        Matcher m = SERVER.matcher(name);
        if (!m.matches()) {
            return null;
        }
        String part = m.group(2);
        Matcher h = HISTOGRAM.matcher(part);
        if (h.matches() && STAT.matcher(h.group(2)).matches()) {
            return new Definition(name, "ms", Better.LOWER);
        }
        if (part.endsWith("_mean") || part.endsWith("_max")) {
            return new Definition(name, gaugeUnit(part.substring(0, part.lastIndexOf('_'))), Better.NONE);
        }
        if (part.endsWith("_rate")) {
            return new Definition(name, "ratio", Better.HIGHER);
        }
        if (part.endsWith("_delta")) {
            String family = part.substring(0, part.length() - "_delta".length());
            return new Definition(name, family.startsWith("num_") && family.length() > 4 ? family.substring(4)
                    : "count", Better.LOWER);
        }
        return null;
    }

    /**
     * A gauge's unit from its family's words: {@code requests} or {@code reqs} among them → requests; the last one
     * {@code perc}, {@code usage}, {@code rate} or {@code ratio} → ratio (a share 0..1); the last one {@code length}
     * or {@code tokens} → tokens; otherwise {@code value}.
     */
    static String gaugeUnit(String family) {
        List<String> words = List.of(family.split("_"));
        String last = words.get(words.size() - 1);
        if (words.contains("requests") || words.contains("reqs")) {
            return "requests";
        }
        if (Set.of("perc", "usage", "rate", "ratio").contains(last)) {
            return "ratio";
        }
        if (last.equals("length") || last.equals("tokens")) {
            return "tokens";
        }
        return "value";
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
