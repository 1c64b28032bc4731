package io.isobench.engine;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.parse.ParsedOutput;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what {@code python -m sglang.bench_serving} writes (docs/engines.md, "SGLang"): the console block that
 * starts at the {@code Serving Benchmark Result} banner and ends at the first line of {@code =} after it, one
 * {@code Label: value} row per line, and the {@code --output-file} JSON Lines file (one object appended per run:
 * the last object with a result key is the run). Names follow one rule, so every version's rows read the same:
 * {@code Mean|Median|Std|P<n>|Max} of {@code TTFT|TPOT|ITL|E2E Latency} {@code (ms)} (console) and
 * {@code <stat>_<ttft|tpot|itl|e2e_latency>_ms} (file) become {@code <ttft|tpot|itl|e2el>_ms_<stat>}; the counts and
 * throughputs have fixed names ({@link #ROWS}, {@link #KEYS}). Rows with another label (settings such as
 * {@code Backend}, {@code Traffic request rate}; {@code Concurrency}, {@code Accept length}, retokenized counts) and
 * non-finite or null values are not metrics. Never throws; linear in the text.
 */
final class SglangOutput {

    private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();
    private static final String BANNER = " Serving Benchmark Result ";
    private static final int MAX_LINE = 400;
    private static final Pattern ROW_STAT = Pattern.compile("(Mean|Median|Std|P\\d{1,2}(?:\\.\\d{1,3})?|Max) "
            + "(TTFT|TPOT|ITL|E2E Latency) \\(ms\\)");
    private static final Pattern KEY_STAT = Pattern.compile("(mean|median|std|p\\d{1,2}(?:\\.\\d{1,3})?|max)_"
            + "(ttft|tpot|itl|e2e_latency)_ms");

    /** Console rows with a fixed canonical name. */
    static final Map<String, String> ROWS = Map.of(
            "Successful requests", "completed_requests",
            "Benchmark duration (s)", "duration_s",
            "Total input tokens", "total_input_tokens",
            "Total generated tokens", "total_output_tokens",
            "Request throughput (req/s)", "request_throughput_rps",
            "Input token throughput (tok/s)", "input_throughput_tok_s",
            "Output token throughput (tok/s)", "output_throughput_tok_s",
            "Total token throughput (tok/s)", "total_throughput_tok_s");

    /** Result-file keys with a fixed canonical name. */
    static final Map<String, String> KEYS = Map.of(
            "completed", "completed_requests",
            "duration", "duration_s",
            "total_input_tokens", "total_input_tokens",
            "total_output_tokens", "total_output_tokens",
            "request_throughput", "request_throughput_rps",
            "input_throughput", "input_throughput_tok_s",
            "output_throughput", "output_throughput_tok_s",
            "total_throughput", "total_throughput_tok_s");

    private SglangOutput() {
    }

    /** The metrics of the last result block in {@code text}; empty when there is none with a metric row. */
    static Optional<ParsedOutput> console(String text) {
        if (text == null) {
            return Optional.empty();
        }
        int at = text.lastIndexOf(BANNER);
        while (at >= 0) {
            Map<String, Double> values = new LinkedHashMap<>();
            Map<String, String> evidence = new LinkedHashMap<>();
            int lineStart = text.indexOf('\n', at);
            while (lineStart >= 0 && lineStart + 1 < text.length()) {
                int end = text.indexOf('\n', lineStart + 1);
                String line = text.substring(lineStart + 1, end < 0 ? text.length() : end).strip();
                if (line.startsWith("==") || line.contains(BANNER)) {
                    break;
                }
                row(line, values, evidence);
                lineStart = end;
            }
            if (!values.isEmpty()) {
                return Optional.of(output(values, evidence));
            }
            at = at == 0 ? -1 : text.lastIndexOf(BANNER, at - 1);
        }
        return Optional.empty();
    }

    private static void row(String line, Map<String, Double> values, Map<String, String> evidence) {
        int colon = line.indexOf(':');
        if (colon <= 0 || line.length() > MAX_LINE) {
            return;
        }
        String label = line.substring(0, colon).strip();
        String name = ROWS.get(label);
        if (name == null) {
            Matcher m = ROW_STAT.matcher(label);
            name = m.matches() ? statName(m.group(1), m.group(2)) : null;
        }
        Double v = number(line.substring(colon + 1).strip());
        if (name != null && v != null) {
            values.put(name, v);
            evidence.put(name, line);
        }
    }

    /** The metrics of the last result object in a JSON Lines (or JSON) text; empty when there is none. */
    static Optional<ParsedOutput> result(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String[] lines = text.split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            String l = lines[i].strip();
            if (!l.startsWith("{")) {
                continue;
            }
            JsonNode root;
            try {
                root = JSON.readTree(l);
            } catch (Exception e) {
                continue;
            }
            Map<String, Double> values = new LinkedHashMap<>();
            Map<String, String> evidence = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String name = KEYS.get(e.getKey());
                if (name == null) {
                    Matcher m = KEY_STAT.matcher(e.getKey());
                    name = m.matches() ? statName(m.group(1), m.group(2)) : null;
                }
                if (name != null && e.getValue().isNumber() && Double.isFinite(e.getValue().asDouble())) {
                    values.put(name, e.getValue().asDouble());
                    evidence.put(name, e.getKey() + ": " + e.getValue().asText());
                }
            }
            if (!values.isEmpty()) {
                return Optional.of(output(values, evidence));
            }
        }
        return Optional.empty();
    }

    /** {@code Mean} + {@code E2E Latency} → {@code e2el_ms_mean}; {@code p99} + {@code ttft} → {@code ttft_ms_p99}. */
    static String statName(String stat, String family) {
        String f = family.toLowerCase(Locale.ROOT).replace(' ', '_');
        f = f.equals("e2e_latency") ? "e2el" : f;
        return f + "_ms_" + stat.toLowerCase(Locale.ROOT);
    }

    private static ParsedOutput output(Map<String, Double> values, Map<String, String> evidence) {
        List<Metric> metrics = new ArrayList<>();
        values.forEach((n, v) -> metrics.add(Metric.of(n, v)));
        return ParsedOutput.of(Mode.SERVING, metrics, null, evidence, List.of());
    }

    private static Double number(String s) {
        int space = s.indexOf(' ');
        String t = space < 0 ? s : s.substring(0, space);
        try {
            double v = Double.parseDouble(t);
            return Double.isFinite(v) ? v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
