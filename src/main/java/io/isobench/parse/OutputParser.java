package io.isobench.parse;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.isobench.Mode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the console output of vLLM's benchmark scripts into canonical metrics (formats: docs/parsing.md and
 * legacy-import.md "Console formats"). Never throws on any input and runs in linear time: every regex is anchored
 * or led by a literal, has no nested quantifiers, and works on pieces of at most {@link ConsoleText#MAX_PIECE_CHARS}.
 *
 * <p>When the output shows several kinds of result, one mode is chosen in this order and only its metrics are
 * returned: a serving block with metric rows, latency lines, a throughput line, prefix-caching "est. speed" lines
 * after a {@code start generating} marker, micro-benchmark JSON lines, and finally a serving header without rows
 * (mode serving, no metrics).
 */
public final class OutputParser {

    /** How the text was cut before it reached us. */
    public enum Truncation {
        /** Complete output. */
        NONE,
        /** Only the first N characters were kept (ISO-Bench R1 raws): an unterminated last line may be cut: ignored. */
        HEAD_KEPT,
        /** Only the last N characters were kept (console tails): the first line may start mid-line: ignored. */
        TAIL_KEPT
    }

    static final String NUM = "([-+]?(?:\\d{1,300}(?:\\.\\d{0,300})?|\\.\\d{1,300})(?:[eE][-+]?\\d{1,4})?|nan|NaN|inf|-inf)";

    private static final String SERVING_HEADER = "Serving Benchmark Result";
    /** "Label: value" with a printable label; the value alone, with trailing padding. */
    private static final Pattern ROW = Pattern.compile("([A-Za-z][A-Za-z0-9 ()/._%-]{0,80}):[ \\t]{0,200}" + NUM + "[ \\t]*");
    private static final Pattern STAT_ROW = Pattern.compile("(Mean|Median|Std|P\\d{1,2}(?:\\.\\d{1,3})?) (TTFT|TPOT|ITL|E2EL) \\(ms\\)");
    private static final Pattern AVG_LATENCY = Pattern.compile("Avg latency: " + NUM + " seconds");
    private static final Pattern PCT_LATENCY = Pattern.compile("(\\d{1,2}(?:\\.\\d{1,3})?)% percentile latency: " + NUM + " seconds");
    private static final Pattern THROUGHPUT = Pattern.compile(
            "Throughput: " + NUM + " requests/s, " + NUM + " (total )?tokens/s(?:, " + NUM + " output tokens/s)?");
    private static final Pattern NUM_PROMPT_TOKENS = Pattern.compile("Total num prompt tokens:[ \\t]{0,200}(\\d{1,18})");
    private static final Pattern NUM_OUTPUT_TOKENS = Pattern.compile("Total num output tokens:[ \\t]{0,200}(\\d{1,18})");
    private static final Pattern EST_SPEED = Pattern.compile(
            "est\\. speed input: " + NUM + " toks/s, output: " + NUM + " toks/s");
    private static final Pattern COST_TIME = Pattern.compile("cost time " + NUM);

    private static final Map<String, String> SERVING_LABELS = Map.ofEntries(
            Map.entry("Successful requests", "completed_requests"),
            Map.entry("Failed requests", "failed_requests"),
            Map.entry("Benchmark duration (s)", "duration_s"),
            Map.entry("Total input tokens", "total_input_tokens"),
            Map.entry("Total generated tokens", "total_output_tokens"),
            Map.entry("Request throughput (req/s)", "request_throughput_rps"),
            Map.entry("Request goodput (req/s)", "request_goodput_rps"),
            Map.entry("Output token throughput (tok/s)", "output_throughput_tok_s"),
            Map.entry("Peak output token throughput (tok/s)", "peak_output_throughput_tok_s"),
            Map.entry("Peak concurrent requests", "peak_concurrent_requests"),
            Map.entry("Total Token throughput (tok/s)", "total_throughput_tok_s"),
            Map.entry("Total token throughput (tok/s)", "total_throughput_tok_s"),
            Map.entry("Input token throughput (tok/s)", "input_throughput_tok_s"));

    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private OutputParser() {
    }

    /** Parses complete console output. */
    public static ParsedOutput parse(String text) {
        return parse(text, Truncation.NONE);
    }

    /** Parses console output that may have been cut (see {@link Truncation}). */
    public static ParsedOutput parse(String text, Truncation truncation) {
        try {
            return new Run(text, truncation == null ? Truncation.NONE : truncation).parse();
        } catch (RuntimeException | StackOverflowError e) {
            // Defensive: the parser is written not to throw; if it ever does, the run still gets a clear record.
            return ParsedOutput.empty(List.of("parser error (" + e.getClass().getSimpleName() + "): " + e.getMessage()));
        }
    }

    /** Canonical name of a serving-block row label, or null when the label is not a metric. */
    static String servingMetricName(String label) {
        String name = SERVING_LABELS.get(label);
        if (name != null) {
            return name;
        }
        Matcher m = STAT_ROW.matcher(label);
        if (!m.matches()) {
            return null;
        }
        String stat = m.group(1).toLowerCase(Locale.ROOT);
        return m.group(2).toLowerCase(Locale.ROOT) + "_ms_" + stat;
    }

    static int lastIndexOfIgnoreCase(String s, String needle) {
        for (int i = s.length() - needle.length(); i >= 0; i--) {
            if (s.regionMatches(true, i, needle, 0, needle.length())) {
                return i;
            }
        }
        return -1;
    }

    static Double number(String s) {
        if (s == null) {
            return null;
        }
        try {
            double v = Double.parseDouble(s);
            return Double.isFinite(v) ? v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Collects metrics for one mode, keeping the first value of each name. */
    static final class Collector {
        final Map<String, Metric> metrics = new LinkedHashMap<>();
        final Map<String, String> evidence = new LinkedHashMap<>();
        final List<String> warnings;
        ConsoleText.Line lastLine;

        Collector(List<String> warnings) {
            this.warnings = warnings;
        }

        boolean has(String name) {
            return metrics.containsKey(name);
        }

        void put(String name, String value, double scale, String evidenceText, ConsoleText.Line line) {
            if (metrics.containsKey(name) || MetricDictionary.lookup(name) == null) {
                return;
            }
            Double v = number(value);
            if (v == null) {
                warnings.add("skipped " + name + ": value '" + value + "' is not a finite number");
                return;
            }
            metrics.put(name, Metric.of(name, v * scale));
            evidence.put(name, evidenceText);
            if (line != null && !line.terminated()) {
                warnings.add(name + " comes from the last line, which has no newline (the text may be cut there)");
            }
        }

        boolean isEmpty() {
            return metrics.isEmpty();
        }
    }

    private static final class Run {
        private final List<ConsoleText.Line> lines;
        private final List<String> warnings = new ArrayList<>();

        Run(String text, Truncation truncation) {
            List<ConsoleText.Line> all = ConsoleText.lines(text);
            if (truncation == Truncation.HEAD_KEPT && !all.isEmpty() && !all.get(all.size() - 1).terminated()) {
                ConsoleText.Line cut = all.remove(all.size() - 1);
                if (!cut.text().isBlank()) {
                    warnings.add("ignored line " + cut.number() + ": the text was head-truncated and the line has no newline");
                }
            }
            if (truncation == Truncation.TAIL_KEPT && !all.isEmpty()) {
                all.remove(0);
            }
            this.lines = all;
        }

        ParsedOutput parse() {
            Serving serving = serving();
            if (serving.block != null) {
                return result(Mode.SERVING, serving.block, serving.workload(), List.of(), false);
            }
            Collector latency = latency();
            if (!latency.isEmpty()) {
                return result(Mode.LATENCY, latency, null, List.of(), false);
            }
            Collector throughput = throughput();
            if (!throughput.isEmpty()) {
                return result(Mode.THROUGHPUT, throughput, null, List.of(), false);
            }
            Collector prefix = prefixCaching();
            if (!prefix.isEmpty()) {
                return result(Mode.PREFIX_CACHING, prefix, null, List.of(), false);
            }
            List<MicroResult> micro = new ArrayList<>();
            Collector microMetrics = micro(micro);
            if (!micro.isEmpty()) {
                return result(Mode.MICRO, microMetrics, null, micro, false);
            }
            if (serving.headers > 0) {
                warnings.add("serving result header printed " + serving.headers
                        + " time(s) but no block has a metric row: no metrics (a header is not a success)");
                return new ParsedOutput(Mode.SERVING, List.of(), null, Map.of(), warnings, List.of(), true);
            }
            return ParsedOutput.empty(warnings);
        }

        private ParsedOutput result(Mode mode, Collector c, Workload workload, List<MicroResult> micro, boolean empty) {
            return new ParsedOutput(mode, new ArrayList<>(c.metrics.values()), workload, c.evidence, warnings, micro, empty);
        }

        // ---- serving block ------------------------------------------------------------------------------------

        private static final class Serving {
            Collector block;
            int headers;

            Workload workload() {
                return Workload.ofNullable(asLong("completed_requests"), asLong("total_input_tokens"),
                        asLong("total_output_tokens"));
            }

            private Long asLong(String name) {
                Metric m = block.metrics.get(name);
                return m == null ? null : Math.round(m.value());
            }
        }

        private Serving serving() {
            Serving s = new Serving();
            Collector current = null;
            int currentStart = 0;
            boolean currentClosed = false;
            boolean currentHasRows = false;
            int complete = 0;
            for (ConsoleText.Line line : lines) {
                boolean headerOnLine = false;
                for (String piece : line.pieces()) {
                    if (piece.contains(SERVING_HEADER)) {
                        if (headerOnLine) {
                            continue; // the same header seen again as the de-glued remainder of a progress bar
                        }
                        headerOnLine = true;
                        complete += currentHasRows ? 1 : 0;
                        s.headers++;
                        // once a block with rows is chosen, later blocks are only counted (no collector)
                        current = s.block == null ? new Collector(warnings) : null;
                        currentStart = line.number();
                        currentClosed = false;
                        currentHasRows = false;
                        continue;
                    }
                    if (s.headers == 0 || currentClosed) {
                        continue;
                    }
                    if (isRule(piece, '=')) {
                        currentClosed = true;
                        continue;
                    }
                    Matcher m = ROW.matcher(piece);
                    if (!m.matches()) {
                        continue;
                    }
                    String name = servingMetricName(m.group(1).strip());
                    if (name == null) {
                        continue;
                    }
                    if (current != null) {
                        current.put(name, m.group(2), 1.0, line.evidence(), line);
                        if (!current.isEmpty() && s.block == null) {
                            s.block = current;
                        }
                    }
                    currentHasRows = true;
                }
            }
            complete += currentHasRows ? 1 : 0;
            if (s.headers > 0 && !currentClosed && currentHasRows && current != null && current == s.block) {
                warnings.add("serving block starting at line " + currentStart + " has no closing rule (text ends inside it)");
            }
            if (complete > 1) {
                warnings.add(complete + " serving result blocks with metric rows (real block + harness echo?): "
                        + "the first complete one was used");
            }
            return s;
        }

        private static boolean isRule(String piece, char c) {
            if (piece.length() < 10) {
                return false;
            }
            for (int i = 0; i < piece.length(); i++) {
                if (piece.charAt(i) != c) {
                    return false;
                }
            }
            return true;
        }

        // ---- latency ------------------------------------------------------------------------------------------

        private Collector latency() {
            Collector c = new Collector(warnings);
            boolean seenAvg = false;
            int avgCount = 0;
            for (ConsoleText.Line line : lines) {
                for (String piece : line.pieces()) {
                    if (piece.contains("Avg latency: ")) {
                        Matcher m = AVG_LATENCY.matcher(piece);
                        if (m.find()) {
                            avgCount++;
                            if (!seenAvg) {
                                c.put("latency_ms_avg", m.group(1), 1000.0, line.evidence(), line);
                                seenAvg = c.has("latency_ms_avg");
                                continue;
                            }
                        }
                    }
                    if (seenAvg && avgCount == 1 && piece.contains("% percentile latency: ")) {
                        Matcher m = PCT_LATENCY.matcher(piece);
                        if (m.lookingAt()) {
                            c.put("latency_ms_p" + m.group(1), m.group(2), 1000.0, line.evidence(), line);
                        }
                    }
                }
            }
            if (avgCount > 1 && seenAvg) {
                warnings.add(avgCount + " 'Avg latency' lines: the first was used");
            }
            return c;
        }

        // ---- throughput ---------------------------------------------------------------------------------------

        private Collector throughput() {
            Collector c = new Collector(warnings);
            int count = 0;
            for (ConsoleText.Line line : lines) {
                for (String piece : line.pieces()) {
                    if (piece.contains("Throughput: ")) {
                        Matcher m = THROUGHPUT.matcher(piece);
                        if (m.find()) {
                            count++;
                            if (count == 1) {
                                String ev = line.evidence();
                                c.put("request_throughput_rps", m.group(1), 1.0, ev, line);
                                c.put("total_throughput_tok_s", m.group(2), 1.0, ev, line);
                                if (m.group(4) != null) {
                                    c.put("output_throughput_tok_s", m.group(4), 1.0, ev, line);
                                }
                            }
                        }
                    } else if (count >= 1 && piece.startsWith("Total num ")) {
                        Matcher p = NUM_PROMPT_TOKENS.matcher(piece);
                        if (p.lookingAt()) {
                            c.put("total_input_tokens", p.group(1), 1.0, line.evidence(), line);
                        }
                        Matcher o = NUM_OUTPUT_TOKENS.matcher(piece);
                        if (o.lookingAt()) {
                            c.put("total_output_tokens", o.group(1), 1.0, line.evidence(), line);
                        }
                    }
                }
            }
            if (count > 1) {
                warnings.add(count + " 'Throughput:' lines: the first was used");
            }
            return c;
        }

        // ---- prefix caching -----------------------------------------------------------------------------------

        private Collector prefixCaching() {
            Collector c = new Collector(warnings);
            int markerLine = -1;
            for (int i = 0; i < lines.size(); i++) {
                String t = lines.get(i).text();
                if (t.contains("enerating") && t.toLowerCase(Locale.ROOT).contains("start generating")) {
                    markerLine = i;
                }
            }
            if (markerLine < 0) {
                return c;
            }
            String input = null;
            String output = null;
            ConsoleText.Line speedLine = null;
            String cost = null;
            ConsoleText.Line costLine = null;
            for (int i = markerLine; i < lines.size(); i++) {
                ConsoleText.Line line = lines.get(i);
                for (String piece : line.pieces()) {
                    String p = piece;
                    if (i == markerLine) {
                        int at = lastIndexOfIgnoreCase(piece, "start generating");
                        if (at < 0) {
                            continue;
                        }
                        p = piece.substring(at);
                    }
                    if (p.contains("est. speed input: ")) {
                        Matcher m = EST_SPEED.matcher(p);
                        while (m.find()) {
                            input = m.group(1);
                            output = m.group(2);
                            speedLine = line;
                        }
                    }
                    if (cost == null && speedLine != null && p.startsWith("cost time ")) {
                        Matcher m = COST_TIME.matcher(p);
                        if (m.lookingAt()) {
                            cost = m.group(1);
                            costLine = line;
                        }
                    }
                }
            }
            if (speedLine == null) {
                warnings.add("'start generating' marker at line " + lines.get(markerLine).number()
                        + " but no 'est. speed' line after it");
                return c;
            }
            c.put("output_throughput_tok_s", output, 1.0, speedLine.evidence(), speedLine);
            c.put("input_throughput_tok_s", input, 1.0, speedLine.evidence(), speedLine);
            if (cost != null) {
                c.put("duration_s", cost, 1.0, costLine.evidence(), costLine);
            }
            return c;
        }

        // ---- micro-benchmark JSON lines -----------------------------------------------------------------------

        private Collector micro(List<MicroResult> out) {
            Collector c = new Collector(warnings);
            for (ConsoleText.Line line : lines) {
                for (String piece : line.pieces()) {
                    if (piece.charAt(0) != '{' || piece.charAt(piece.length() - 1) != '}'
                            || !(piece.contains("\"avg_ms\"") || piece.contains("\"impl_tag\"")
                                 || piece.contains("\"error\""))) {
                        continue;
                    }
                    MicroResult r = microLine(piece);
                    if (r == null) {
                        continue;
                    }
                    out.add(r);
                    if (r.ok() && c.isEmpty()) {
                        c.put("micro_avg_ms", Double.toString(r.avgMs()), 1.0, line.evidence(), line);
                        if (r.p50Ms() != null) {
                            c.put("micro_p50_ms", Double.toString(r.p50Ms()), 1.0, line.evidence(), line);
                        }
                    }
                }
            }
            if (out.size() > 1) {
                warnings.add(out.size() + " micro-benchmark result lines: metrics come from the first successful one");
            }
            for (MicroResult r : out) {
                if (r.error() != null) {
                    warnings.add("micro-benchmark error object: " + r.error());
                }
            }
            return c;
        }

        private static MicroResult microLine(String piece) {
            JsonNode n;
            try {
                n = JSON.readTree(piece);
            } catch (Exception e) {
                return null;
            }
            if (n == null || !n.isObject()) {
                return null;
            }
            Double avg = finite(n.get("avg_ms"));
            String error = null;
            JsonNode err = n.get("error");
            if (err != null && !err.isNull() && !(err.isBoolean() && !err.asBoolean())) {
                error = err.isTextual() ? err.asText() : err.toString();
            }
            if (avg == null && error == null) {
                if (!n.has("impl_tag")) {
                    return null;
                }
                error = "no avg_ms in result object";
            }
            JsonNode tag = n.get("impl_tag");
            return new MicroResult(tag == null || tag.isNull() ? null : tag.asText(), avg, finite(n.get("p50_ms")),
                    finite(n.get("p95_ms")), error, ConsoleText.redact(piece));
        }

        private static Double finite(JsonNode v) {
            if (v == null || !v.isNumber()) {
                return null;
            }
            double d = v.asDouble();
            return Double.isFinite(d) ? d : null;
        }
    }
}
