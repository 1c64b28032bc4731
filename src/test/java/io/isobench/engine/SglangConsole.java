package io.isobench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;

import java.nio.file.Files;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SGLang's {@code bench_serving} console output for the tests: the archive holds SGLang's numbers (the 3-way SGLang
 * result, ../shared) but no console text of it, so the block is written in bench_serving's print statements' layout
 * ({@code "{:<40} {:<10.2f}"} rows under a {@code =}-centred banner; docs/engines.md) with the archive's numbers.
 */
public final class SglangConsole {

    /** The archive's 3-way SGLang result (its perf_command is {@code python -m sglang.bench_serving …}). */
    public static final String THREE_WAY =
            "isobench-data/archive/results/2026-01/omniperf_results_3way_sglang/sglang/09deb20d/benchmark_result.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The archive's metric keys: {@code <family>_<stat>} of the harness, read from bench_serving's numbers. */
    private static final Pattern ARCHIVE_STAT = Pattern.compile("(ttft|tpot|itl|e2e_latency)_(mean|median|p\\d+)");

    private SglangConsole() {
    }

    /** The archive file under ../shared, read; skips the calling test when ../shared is absent. */
    public static JsonNode read(String relative) throws Exception {
        return JSON.readTree(Files.readString(SharedData.require(relative)));
    }

    /** The 3-way SGLang result's human metrics by the canonical name each one is (by rule: family, statistic). */
    public static Map<String, Double> archiveMetrics() throws Exception {
        return canonical(read(THREE_WAY).path("human_metrics"));
    }

    /** The 3-way SGLang result's perf_command. */
    public static String archiveCommand() throws Exception {
        return read(THREE_WAY).path("perf_command").asText();
    }

    /** The archive's metrics by the canonical name each one is (by rule: family, statistic, unit). */
    static Map<String, Double> canonical(JsonNode metrics) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = metrics.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String k = e.getKey();
            Matcher m = ARCHIVE_STAT.matcher(k);
            String name = m.matches() ? SglangOutput.statName(m.group(2), m.group(1)) : switch (k) {
                case "request_throughput" -> "request_throughput_rps";
                case "input_throughput", "output_throughput", "total_throughput" -> k + "_tok_s";
                default -> k;
            };
            out.put(name, e.getValue().asDouble());
        }
        return out;
    }

    /** bench_serving's console block for {@code values}: its print statements' layout (docs/engines.md). */
    public static String console(Map<String, Double> v) {
        StringBuilder b = new StringBuilder("Starting warmup with 1 sequences...\n\n");
        b.append(center(" Serving Benchmark Result ", '=')).append('\n');
        b.append(row("Backend:", "sglang")).append(row("Traffic request rate:", "inf"))
                .append(row("Max request concurrency:", "not set"))
                .append(row("Successful requests:", "100"))
                .append(num("Benchmark duration (s):", 12.31))
                .append(row("Total input tokens:", String.valueOf(Math.round(v.get("total_input_tokens")))))
                .append(row("Total generated tokens:", String.valueOf(Math.round(v.get("total_output_tokens")))))
                .append(row("Total generated tokens (retokenized):", "21190"))
                .append(num("Request throughput (req/s):", v.get("request_throughput_rps")))
                .append(num("Input token throughput (tok/s):", v.get("input_throughput_tok_s")))
                .append(num("Output token throughput (tok/s):", v.get("output_throughput_tok_s")))
                .append(num("Total token throughput (tok/s):", v.get("total_throughput_tok_s")))
                .append(num("Concurrency:", 20.33));
        String[][] sections = {{"End-to-End Latency", "E2E Latency", "e2el"}, {"Time to First Token", "TTFT", "ttft"},
                {"Time per Output Token (excl. 1st token)", "TPOT", "tpot"}, {"Inter-Token Latency", "ITL", "itl"}};
        for (String[] s : sections) {
            b.append(center(s[0], '-')).append('\n');
            for (String stat : new String[] {"mean", "median", "p95", "p99"}) {
                Double x = v.get(s[2] + "_ms_" + stat);
                if (x != null) {
                    String label = stat.substring(0, 1).toUpperCase(Locale.ROOT) + stat.substring(1);
                    b.append(num(label + " " + s[1] + " (ms):", x));
                }
            }
        }
        return b.append("=".repeat(50)).append('\n').toString();
    }

    /** {@code s} centred in 50 {@code c}s, as bench_serving's {@code "{s:{c}^{n}}"}. */
    public static String center(String s, char c) {
        int pad = 50 - s.length();
        return String.valueOf(c).repeat(pad / 2) + s + String.valueOf(c).repeat(pad - pad / 2);
    }

    private static String row(String label, String value) {
        return String.format(Locale.ROOT, "%-40s %-10s%n", label, value);
    }

    private static String num(String label, double value) {
        return String.format(Locale.ROOT, "%-40s %-10.2f%n", label, value);
    }
}
