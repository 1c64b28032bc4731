package io.isobench.parse;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Mode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the JSON result files of vLLM's benchmark scripts into the same {@link ParsedOutput} as the console parser:
 * <ul>
 *   <li>{@code vllm bench serve --save-result} / {@code benchmark_serving.py --save-result} (serving),</li>
 *   <li>{@code benchmark_throughput.py --output-json} / {@code vllm bench throughput} (throughput),</li>
 *   <li>{@code benchmark_latency.py --output-json} / {@code vllm bench latency} (latency, seconds → ms).</li>
 * </ul>
 * Per-request arrays ({@code input_lens}, {@code output_lens}, {@code ttfts}, {@code itls}, {@code errors}, …) are
 * not metrics and are ignored, except that a non-empty {@code errors} list is counted in a warning. Never throws:
 * invalid JSON gives an empty result with a warning.
 */
public final class SaveResultParser {

    private static final Pattern STAT_KEY = Pattern.compile("(mean|median|std|p\\d{1,2}(?:\\.\\d{1,3})?)_(ttft|tpot|itl|e2el)_ms");
    private static final Map<String, String> SERVING_KEYS = Map.ofEntries(
            Map.entry("completed", "completed_requests"),
            Map.entry("failed", "failed_requests"),
            Map.entry("duration", "duration_s"),
            Map.entry("total_input_tokens", "total_input_tokens"),
            Map.entry("total_output_tokens", "total_output_tokens"),
            Map.entry("request_throughput", "request_throughput_rps"),
            Map.entry("request_goodput", "request_goodput_rps"),
            Map.entry("output_throughput", "output_throughput_tok_s"),
            Map.entry("total_token_throughput", "total_throughput_tok_s"),
            Map.entry("max_output_tokens_per_s", "peak_output_throughput_tok_s"),
            Map.entry("max_concurrent_requests", "peak_concurrent_requests"));
    private static final Map<String, String> THROUGHPUT_KEYS = Map.of(
            "elapsed_time", "duration_s",
            "num_requests", "completed_requests",
            "requests_per_second", "request_throughput_rps",
            "tokens_per_second", "total_throughput_tok_s");

    private SaveResultParser() {
    }

    public static ParsedOutput parse(String json) {
        List<String> warnings = new ArrayList<>();
        JsonNode root;
        try {
            root = json == null || json.isBlank() ? null : OutputParser.JSON.readTree(json);
        } catch (Exception e) {
            String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
            return ParsedOutput.empty(List.of("not valid JSON: " + msg));
        } catch (StackOverflowError e) {
            return ParsedOutput.empty(List.of("not valid JSON: nested too deeply"));
        }
        if (root == null || !root.isObject()) {
            return ParsedOutput.empty(List.of("not a JSON object: no benchmark result"));
        }
        try {
            if (root.has("avg_latency")) {
                return latency(root, warnings);
            }
            if (root.has("requests_per_second") || root.has("tokens_per_second")) {
                return simple(root, THROUGHPUT_KEYS, Mode.THROUGHPUT, warnings);
            }
            if (root.has("request_throughput") || root.has("completed") || hasStatKey(root)) {
                return serving(root, warnings);
            }
        } catch (RuntimeException e) {
            return ParsedOutput.empty(List.of("unreadable benchmark JSON (" + e.getClass().getSimpleName() + ")"));
        }
        return ParsedOutput.empty(List.of("JSON object has none of the keys of a vLLM benchmark result"));
    }

    private static boolean hasStatKey(JsonNode root) {
        Iterator<String> it = root.fieldNames();
        while (it.hasNext()) {
            if (STAT_KEY.matcher(it.next()).matches()) {
                return true;
            }
        }
        return false;
    }

    private static ParsedOutput serving(JsonNode root, List<String> warnings) {
        OutputParser.Collector c = new OutputParser.Collector(warnings);
        Iterator<Map.Entry<String, JsonNode>> it = root.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = SERVING_KEYS.get(e.getKey());
            if (name == null) {
                Matcher m = STAT_KEY.matcher(e.getKey());
                if (m.matches()) {
                    name = m.group(2) + "_ms_" + m.group(1);
                }
            }
            if (name != null) {
                put(c, name, e.getKey(), e.getValue(), 1.0);
            }
        }
        JsonNode errors = root.get("errors");
        if (errors != null && errors.isArray()) {
            int n = 0;
            for (JsonNode x : errors) {
                if (x != null && !x.isNull() && !(x.isTextual() && x.asText().isEmpty())) {
                    n++;
                }
            }
            if (n > 0) {
                warnings.add(n + " request(s) carry an error in 'errors'");
            }
        }
        Workload w = Workload.ofNullable(longOf(root.get("completed")), longOf(root.get("total_input_tokens")),
                longOf(root.get("total_output_tokens")));
        return ParsedOutput.of(Mode.SERVING, new ArrayList<>(c.metrics.values()), w, c.evidence, warnings);
    }

    private static ParsedOutput simple(JsonNode root, Map<String, String> keys, Mode mode, List<String> warnings) {
        OutputParser.Collector c = new OutputParser.Collector(warnings);
        for (String key : new String[] {"requests_per_second", "tokens_per_second", "num_requests", "elapsed_time"}) {
            if (root.has(key)) {
                put(c, keys.get(key), key, root.get(key), 1.0);
            }
        }
        return ParsedOutput.of(mode, new ArrayList<>(c.metrics.values()), null, c.evidence, warnings);
    }

    private static ParsedOutput latency(JsonNode root, List<String> warnings) {
        OutputParser.Collector c = new OutputParser.Collector(warnings);
        put(c, "latency_ms_avg", "avg_latency", root.get("avg_latency"), 1000.0);
        JsonNode pct = root.get("percentiles");
        if (pct != null && pct.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = pct.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String p = e.getKey().strip();
                if (p.matches("\\d{1,2}(\\.\\d{1,3})?")) {
                    put(c, "latency_ms_p" + p, "percentiles." + p, e.getValue(), 1000.0);
                }
            }
        }
        return ParsedOutput.of(Mode.LATENCY, new ArrayList<>(c.metrics.values()), null, c.evidence, warnings);
    }

    private static void put(OutputParser.Collector c, String name, String key, JsonNode v, double scale) {
        if (v == null || v.isNull()) {
            return;
        }
        String text = v.isNumber() ? v.asText() : v.isTextual() ? v.asText() : null;
        if (text == null) {
            c.warnings.add("skipped " + name + ": '" + key + "' is not a number");
            return;
        }
        c.put(name, text, scale, "\"" + key + "\": " + v, null);
    }

    private static Long longOf(JsonNode v) {
        if (v == null || !v.isNumber()) {
            return null;
        }
        double d = v.asDouble();
        return Double.isFinite(d) ? Math.round(d) : null;
    }
}
